-- Masterchain seqno -> every block it commits (itself and each new shard block, intermediate ones included) and
-- every shard top it references (what v2 /shards returns, in the order of the masterchain block's shard hashes).
-- A top that did not change since the previous masterchain block is a row with committed = false.
CREATE TABLE IF NOT EXISTS mc_shard_blocks
(
    mc_seqno UInt32,
    workchain Int32,
    shard Int64,
    seqno UInt32,
    root_hash FixedString(44),
    file_hash FixedString(44),
    committed Bool,
    shard_top_index Nullable(UInt16)
)
ENGINE = ReplacingMergeTree
PARTITION BY intDiv(mc_seqno, 10000000)
ORDER BY (mc_seqno, workchain, shard, seqno);
