-- Why transactions fail: compute-phase exit codes of aborted transactions in a masterchain seqno range
-- (NULL = compute phase skipped). Base table, completed blocks only.
-- Params: from_seqno, to_seqno (UInt32, inclusive).
SELECT compute_ph__exit_code AS exit_code, count() AS transactions
FROM transactions FINAL
WHERE mc_block_seqno BETWEEN {from_seqno:UInt32} AND {to_seqno:UInt32}
  AND mc_block_seqno IN (SELECT mc_seqno FROM mc_blocks_done)
  AND ifNull(aborted, false)
GROUP BY exit_code
ORDER BY transactions DESC, exit_code
