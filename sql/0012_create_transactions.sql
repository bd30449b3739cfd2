-- One row per transaction with every description field as its own column: a NULL column is a key toncenter v3
-- omits, so the description object is rebuilt exactly. `boc` keeps the upstream BOC bytes for v2 `data`.
-- Sort key = (masterchain seqno, block, account, lt): one masterchain block or one shard block is a key range, and
-- the v2 (account, lt) cursor walks the key; partitions are coarse masterchain ranges (a few days of blocks each).
CREATE TABLE IF NOT EXISTS transactions
(
    mc_block_seqno UInt32,
    block_workchain Int32,
    block_shard Int64,
    block_seqno UInt32,
    account String CODEC(ZSTD(1)),
    lt UInt64 CODEC(Delta, ZSTD(1)),
    hash FixedString(44) CODEC(ZSTD(1)),
    block_root_hash FixedString(44) CODEC(ZSTD(1)),
    block_file_hash FixedString(44) CODEC(ZSTD(1)),
    now UInt32 CODEC(Delta, ZSTD(1)),
    trace_id Nullable(FixedString(44)) CODEC(ZSTD(1)),
    prev_trans_hash FixedString(44) CODEC(ZSTD(1)),
    prev_trans_lt UInt64 CODEC(ZSTD(1)),
    orig_status Enum8('uninit' = 0, 'frozen' = 1, 'active' = 2, 'nonexist' = 3),
    end_status Enum8('uninit' = 0, 'frozen' = 1, 'active' = 2, 'nonexist' = 3),
    total_fees UInt64 CODEC(ZSTD(1)),
    total_fees_extra_currencies Map(UInt32, UInt256),
    account_state_hash_before FixedString(44) CODEC(ZSTD(1)),
    account_state_hash_after FixedString(44) CODEC(ZSTD(1)),
    in_msg_hash Nullable(FixedString(44)) CODEC(ZSTD(1)),
    out_msgs_count UInt16,

    descr_type Enum8('ord' = 0, 'storage' = 1, 'tick_tock' = 2, 'split_prepare' = 4, 'split_install' = 5,
                     'merge_prepare' = 6, 'merge_install' = 7),
    aborted Nullable(Bool),
    destroyed Nullable(Bool),
    credit_first Nullable(Bool),
    is_tock Nullable(Bool),
    installed Nullable(Bool),

    storage_ph__storage_fees_collected Nullable(UInt64),
    storage_ph__storage_fees_due Nullable(UInt64),
    storage_ph__status_change Nullable(Enum8('unchanged' = 0, 'frozen' = 2, 'deleted' = 3)),

    credit_ph__due_fees_collected Nullable(UInt64),
    credit_ph__credit Nullable(UInt64),
    credit_ph__credit_extra_currencies Map(UInt32, UInt256),

    compute_ph__skipped Nullable(Bool),
    compute_ph__reason Nullable(Enum8('no_state' = 0, 'bad_state' = 1, 'no_gas' = 2, 'suspended' = 5)),
    compute_ph__success Nullable(Bool),
    compute_ph__msg_state_used Nullable(Bool),
    compute_ph__account_activated Nullable(Bool),
    compute_ph__gas_fees Nullable(UInt64),
    compute_ph__gas_used Nullable(UInt64),
    compute_ph__gas_limit Nullable(UInt64),
    compute_ph__gas_credit Nullable(UInt64),
    compute_ph__mode Nullable(Int16),
    compute_ph__exit_code Nullable(Int32),
    compute_ph__exit_arg Nullable(Int32),
    compute_ph__vm_steps Nullable(UInt32),
    compute_ph__vm_init_state_hash Nullable(FixedString(44)) CODEC(ZSTD(1)),
    compute_ph__vm_final_state_hash Nullable(FixedString(44)) CODEC(ZSTD(1)),

    action__success Nullable(Bool),
    action__valid Nullable(Bool),
    action__no_funds Nullable(Bool),
    action__status_change Nullable(Enum8('unchanged' = 0, 'frozen' = 2, 'deleted' = 3)),
    action__total_fwd_fees Nullable(UInt64),
    action__total_action_fees Nullable(UInt64),
    action__result_code Nullable(Int32),
    action__result_arg Nullable(Int32),
    action__tot_actions Nullable(UInt16),
    action__spec_actions Nullable(UInt16),
    action__skipped_actions Nullable(UInt16),
    action__msgs_created Nullable(UInt16),
    action__action_list_hash Nullable(FixedString(44)) CODEC(ZSTD(1)),
    action__tot_msg_size__cells Nullable(UInt64),
    action__tot_msg_size__bits Nullable(UInt64),

    bounce__type Nullable(Enum8('negfunds' = 0, 'nofunds' = 1, 'ok' = 2)),
    bounce__msg_size__cells Nullable(UInt64),
    bounce__msg_size__bits Nullable(UInt64),
    bounce__req_fwd_fees Nullable(UInt64),
    bounce__msg_fees Nullable(UInt64),
    bounce__fwd_fees Nullable(UInt64),

    split_info__cur_shard_pfx_len Nullable(UInt8),
    split_info__acc_split_depth Nullable(UInt8),
    split_info__this_addr Nullable(String),
    split_info__sibling_addr Nullable(String),

    boc String CODEC(ZSTD(3))
)
ENGINE = ReplacingMergeTree
PARTITION BY intDiv(mc_block_seqno, 1000000)
ORDER BY (mc_block_seqno, block_workchain, block_shard, block_seqno, account, lt)
SETTINGS index_granularity = 1024;
