-- Jetton transfers (TEP-74 `jetton_transfer`, by its decoded name) per day: requests delivered to jetton wallets,
-- the TON attached to them and how many bounced back. Jetton amounts are in the decoded bodies: see
-- 14_jetton_amounts.sql. Params: from_time, to_time (DateTime).
SELECT day, sum(messages) AS transfers, sum(value) AS ton_attached, sum(bounced) AS bounced
FROM analytics_opcodes(from_time = {from_time:DateTime}, to_time = {to_time:DateTime}) AS a
WHERE direction = 'in' AND type = 'int'
  AND opcode IN (SELECT opcode FROM opcode_names WHERE name = 'jetton_transfer')
GROUP BY day
ORDER BY day
