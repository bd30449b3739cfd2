-- An account's latest transactions with their incoming message, from the base tables (completed blocks only).
-- The base tables lead with the masterchain seqno: bound the seqno range for large histories.
-- Params: account (String), from_seqno, to_seqno (UInt32, inclusive), limit (UInt32).
SELECT t.lt AS lt, t.hash AS hash, t.now AS now, t.total_fees AS total_fees, ifNull(t.aborted, false) AS aborted,
       m.type AS in_type, m.source AS in_source, m.value AS in_value
FROM (SELECT * FROM transactions FINAL
      WHERE account = {account:String} AND mc_block_seqno BETWEEN {from_seqno:UInt32} AND {to_seqno:UInt32}
        AND mc_block_seqno IN (SELECT mc_seqno FROM mc_blocks_done)) AS t
LEFT JOIN (SELECT tx_lt, type, source, value FROM messages FINAL
           WHERE tx_account = {account:String} AND direction = 'in'
             AND mc_block_seqno BETWEEN {from_seqno:UInt32} AND {to_seqno:UInt32}) AS m
    ON m.tx_lt = t.lt
ORDER BY lt DESC
LIMIT {limit:UInt32}
SETTINGS join_use_nulls = 1
