-- Jetton amounts moved per day, read from the decoded bodies stored at ingest: every delivered `jetton_transfer`
-- request with the amount of its body (`amount.value` of the decoded JSON, in the jetton's base units, summed over
-- all jettons alike) and how many carried a text comment in their forward payload. From the base tables
-- (completed blocks only); bound the seqno range on large stores.
-- Params: from_seqno, to_seqno (UInt32, inclusive).
SELECT toDate(toDateTime(m.tx_now, 'UTC')) AS day,
       count() AS transfers,
       sum(toUInt256OrZero(JSONExtractString(c.decoded, 'amount', 'value'))) AS jetton_amount,
       countIf(JSONExtractString(c.decoded, 'forward_payload', 'value', '@type') = 'text_comment') AS with_comment
FROM (SELECT DISTINCT tx_hash, msg_index, tx_now, body_hash FROM messages
      WHERE decoded_opcode = 'jetton_transfer' AND direction = 'in' AND type = 'int'
        AND mc_block_seqno BETWEEN {from_seqno:UInt32} AND {to_seqno:UInt32}
        AND mc_block_seqno IN (SELECT mc_seqno FROM mc_blocks_done)) AS m
INNER JOIN (SELECT hash, any(decoded) AS decoded FROM message_contents
            WHERE hash IN (SELECT body_hash FROM messages
                           WHERE decoded_opcode = 'jetton_transfer'
                             AND mc_block_seqno BETWEEN {from_seqno:UInt32} AND {to_seqno:UInt32})
            GROUP BY hash) AS c ON c.hash = m.body_hash
GROUP BY day
ORDER BY day
