-- Completion marker: a masterchain block (and every row keyed by its seqno) is visible to readers only once its row
-- exists here. The consumer writes it last, after every other table acknowledged the block's rows.
CREATE TABLE IF NOT EXISTS mc_blocks_done
(
    mc_seqno UInt32,
    block_count UInt32,
    tx_count UInt32
)
ENGINE = ReplacingMergeTree
ORDER BY mc_seqno;
