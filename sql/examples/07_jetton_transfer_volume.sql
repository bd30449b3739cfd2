-- Jetton transfers (TEP-74 `transfer`, opcode 0x0f8a7ea5) per day: requests delivered to jetton wallets, the TON
-- attached to them and how many bounced back. Jetton amounts live in the body, not in these aggregates.
-- Params: from_time, to_time (DateTime).
SELECT day, sum(messages) AS transfers, sum(value) AS ton_attached, sum(bounced) AS bounced
FROM analytics_opcodes(from_time = {from_time:DateTime}, to_time = {to_time:DateTime})
WHERE direction = 'in' AND type = 'int' AND opcode = 0x0f8a7ea5
GROUP BY day
ORDER BY day
