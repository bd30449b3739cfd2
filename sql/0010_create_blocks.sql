-- Every block the pipeline ingests (masterchain and shard), one row per block id; a replay rewrites the same row.
-- Keyed by the block id because the v2 API looks blocks up by (workchain, shard, seqno).
CREATE TABLE IF NOT EXISTS blocks
(
    workchain Int32,
    shard Int64,
    seqno UInt32,
    root_hash FixedString(44),
    file_hash FixedString(44),
    mc_block_seqno UInt32,
    global_id Int32,
    version UInt32,
    flags UInt16,
    after_merge Bool,
    after_split Bool,
    before_split Bool,
    want_merge Bool,
    want_split Bool,
    key_block Bool,
    vert_seqno UInt32,
    validator_list_hash_short Int32,
    gen_catchain_seqno UInt32,
    min_ref_mc_seqno UInt32,
    prev_key_block_seqno UInt32,
    gen_utime UInt32,
    start_lt UInt64,
    end_lt UInt64,
    prev_blocks Array(Tuple(workchain Int32, shard Int64, seqno UInt32, root_hash String, file_hash String)),
    tx_count UInt32
)
ENGINE = ReplacingMergeTree
ORDER BY (workchain, shard, seqno)
SETTINGS index_granularity = 1024;
