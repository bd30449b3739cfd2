-- The known account states (`account_states` rows with `known = 1`) again, one key-value row per state hash
-- (EmbeddedRocksDB: a lookup of a page's ~80 hashes is one multi-get, no granule of the MergeTree is decompressed).
-- The state's fields are taken as `account_states` takes them (the same columns and types, so the engine normalizes
-- the values alike; any insert that fills `account_states` fills this table), and `state` holds them again as the JSON
-- object the read path parses (made by the engine at insert; a lookup reads only `hash` and `state`).
-- A state hash identifies an immutable Account cell, so every write of a hash writes the same row (an upsert by key
-- in any order, by any writer, changes nothing). Hash-only rows (`known = 0`: no field at all) are never written: the
-- read path renders an absent hash exactly as a hash-only one. The row with the empty key records that every known
-- state stored before it was copied (src/store/accountStatesKv.ts): until it exists the read path asks
-- `account_states`. Written by the consumer right after `account_states`, before the completion marker; never
-- deleted (as `account_states` rows are not). Off on a cluster (CLICKHOUSE_CLUSTER): per node, not replicated.
CREATE TABLE IF NOT EXISTS account_states_kv
(
    hash String,
    account String,
    balance Nullable(UInt64),
    extra_currencies Map(UInt32, UInt256),
    account_status Nullable(Enum8('uninit' = 0, 'frozen' = 1, 'active' = 2, 'nonexist' = 3)),
    frozen_hash Nullable(FixedString(44)),
    data_hash Nullable(FixedString(44)),
    code_hash Nullable(FixedString(44)),
    known UInt8,
    state String MATERIALIZED toJSONString(CAST(
        tuple(account, toString(balance), mapApply((k, v) -> (k, toString(v)), extra_currencies), toString(account_status),
              toString(frozen_hash), toString(data_hash), toString(code_hash)),
        'Tuple(account String, balance Nullable(String), extra_currencies Map(UInt32, String), account_status Nullable(String), frozen_hash Nullable(String), data_hash Nullable(String), code_hash Nullable(String))'))
)
ENGINE = EmbeddedRocksDB
PRIMARY KEY hash
SETTINGS optimize_for_bulk_insert = 0;
