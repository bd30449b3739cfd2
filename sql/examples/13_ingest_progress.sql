-- Ingest progress: completed masterchain blocks, the covered seqno range and how many seqnos inside it are missing
-- (a parallel backfill shows as missing until it is done).
SELECT count() AS done_blocks, min(mc_seqno) AS first_seqno, max(mc_seqno) AS last_seqno,
       max(mc_seqno) - min(mc_seqno) + 1 - count() AS missing_inside, sum(tx_count) AS transactions
FROM (SELECT mc_seqno, any(tx_count) AS tx_count FROM mc_blocks_done GROUP BY mc_seqno)
