-- One row per (transaction, direction, position): the in-message (msg_index 0) and each out-message at its index in
-- the transaction's out_msgs dictionary. A message passed between two transactions has two rows, one per side.
-- Bodies and init states are referenced by cell hash only (see message_contents). Keyed like transactions so the
-- messages of a page of transactions are one key range of one masterchain block.
CREATE TABLE IF NOT EXISTS messages
(
    mc_block_seqno UInt32,
    tx_account String CODEC(ZSTD(1)),
    tx_lt UInt64 CODEC(ZSTD(1)),
    direction Enum8('in' = 0, 'out' = 1),
    msg_index UInt16,
    tx_hash FixedString(44) CODEC(ZSTD(1)),
    tx_now UInt32 CODEC(Delta, ZSTD(1)),
    block_workchain Int32,
    block_shard Int64,
    block_seqno UInt32,
    trace_id Nullable(FixedString(44)) CODEC(ZSTD(1)),
    type Enum8('int' = 0, 'ext_in' = 1, 'ext_out' = 2),
    hash FixedString(44) CODEC(ZSTD(1)),
    hash_norm Nullable(FixedString(44)) CODEC(ZSTD(1)),
    source Nullable(String) CODEC(ZSTD(1)),
    destination Nullable(String) CODEC(ZSTD(1)),
    value Nullable(UInt128) CODEC(ZSTD(1)),
    value_extra_currencies Map(UInt32, UInt256),
    fwd_fee Nullable(UInt128) CODEC(ZSTD(1)),
    ihr_fee Nullable(UInt128) CODEC(ZSTD(1)),
    import_fee Nullable(UInt128) CODEC(ZSTD(1)),
    created_lt Nullable(UInt64) CODEC(ZSTD(1)),
    created_at Nullable(UInt32) CODEC(ZSTD(1)),
    opcode Nullable(UInt32) CODEC(ZSTD(1)),
    ihr_disabled Nullable(Bool),
    bounce Nullable(Bool),
    bounced Nullable(Bool),
    body_hash FixedString(44) CODEC(ZSTD(1)),
    init_state_hash Nullable(FixedString(44)) CODEC(ZSTD(1))
)
ENGINE = ReplacingMergeTree
PARTITION BY intDiv(mc_block_seqno, 1000000)
ORDER BY (mc_block_seqno, tx_account, tx_lt, direction, msg_index)
SETTINGS index_granularity = 1024;
