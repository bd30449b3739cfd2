-- Top opcodes of delivered internal messages (first 32 bits of the body; -1 = body shorter than 32 bits).
-- Params: from_time, to_time (DateTime), top (UInt32).
SELECT
    opcode,
    if(opcode < 0, 'none', concat('0x', lower(leftPad(hex(toUInt32(opcode)), 8, '0')))) AS opcode_hex,
    sum(messages) AS messages,
    sum(value) AS value
FROM analytics_opcodes(from_time = {from_time:DateTime}, to_time = {to_time:DateTime})
WHERE direction = 'in' AND type = 'int'
GROUP BY opcode
ORDER BY messages DESC, opcode
LIMIT {top:UInt32}
