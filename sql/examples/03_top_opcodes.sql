-- Top opcodes of delivered internal messages (first 32 bits of the body; -1 = body shorter than 32 bits), with the
-- name toncenter's decoding gives them (`jetton_transfer`, `excess`, ...; NULL for opcodes outside the scheme).
-- Params: from_time, to_time (DateTime), top (UInt32).
SELECT
    a.opcode AS opcode,
    if(a.opcode < 0, 'none', concat('0x', lower(leftPad(hex(toUInt32(a.opcode)), 8, '0')))) AS opcode_hex,
    n.name AS decoded_opcode,
    a.messages AS messages,
    a.value AS value
FROM
(
    SELECT opcode, sum(messages) AS messages, sum(value) AS value
    FROM analytics_opcodes(from_time = {from_time:DateTime}, to_time = {to_time:DateTime})
    WHERE direction = 'in' AND type = 'int'
    GROUP BY opcode
) AS a
LEFT JOIN (SELECT opcode, any(name) AS name FROM opcode_names GROUP BY opcode) AS n ON n.opcode = a.opcode
ORDER BY messages DESC, opcode
LIMIT {top:UInt32}
SETTINGS join_use_nulls = 1
