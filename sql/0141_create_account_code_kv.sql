-- Account -> code hash of its newest report from a DONE masterchain block, one key-value row per account
-- (EmbeddedRocksDB: the address book of a v3 page is one multi-get, and no row needs a completion-marker check,
-- unlike `latest_account_code`, sql/0016, which holds a row per account per reporting block, done or not).
-- `code_hash` NULL is an account that lost its code; `mc_seqno` is the block of the report. Written by the consumer
-- only after a block's completion marker, and only where newer than the stored row; the race of two writers is
-- repaired by the writer that could lose it (src/store/accountCodeKv.ts). The row with the empty key records that
-- every account's newest done report stored before it was copied: until it exists the read path asks
-- `latest_account_code`. Off on a cluster (CLICKHOUSE_CLUSTER): per node, not replicated.
CREATE TABLE IF NOT EXISTS account_code_kv
(
    account String,
    mc_seqno UInt32,
    code_hash Nullable(FixedString(44))
)
ENGINE = EmbeddedRocksDB
PRIMARY KEY account
SETTINGS optimize_for_bulk_insert = 0;
