-- What a v3 page looks up, in ONE key-value table, so a page's lookups are one multi-get instead of a UNION ALL of
-- two (each SELECT of a union pays most of a statement's fixed cost): the known account states by state hash, as
-- `account_states_kv` (sql/0134) holds them (mc_seqno 0, `value` the same JSON `state`), and per account the code
-- hash of its newest report from a done masterchain block, as `account_code_kv` (sql/0141) holds it (`value` the
-- code hash, '' for NULL: an account that lost its code). A state hash (44 characters of base64) never equals an
-- account ("workchain:hex"), and neither is empty: the row with the empty key records the table filled
-- (src/store/accountLookupsKv.ts); until it exists the read path asks the two tables it copies.
-- The state rows are written by the view below on every insert of known rows into `account_states` (the consumer's
-- and the fill's alike; the JSON made by the same expression over the same types as sql/0134's `state`); the account
-- rows by the consumer's guarded puts after the completion markers, as `account_code_kv`'s
-- (src/store/accountCodeKv.ts).
-- Not read on a cluster (CLICKHOUSE_CLUSTER): per node, not replicated.
CREATE TABLE IF NOT EXISTS account_lookups_kv
(
    key String,
    mc_seqno UInt32,
    value String
)
ENGINE = EmbeddedRocksDB
PRIMARY KEY key
SETTINGS optimize_for_bulk_insert = 0;

CREATE MATERIALIZED VIEW IF NOT EXISTS account_lookups_kv_states TO account_lookups_kv AS
SELECT
    toString(hash) AS key,
    toUInt32(0) AS mc_seqno,
    toJSONString(CAST(
        tuple(account, toString(balance), mapApply((k, v) -> (k, toString(v)), extra_currencies), toString(account_status),
              toString(frozen_hash), toString(data_hash), toString(code_hash)),
        'Tuple(account String, balance Nullable(String), extra_currencies Map(UInt32, String), account_status Nullable(String), frozen_hash Nullable(String), data_hash Nullable(String), code_hash Nullable(String))')) AS value
FROM account_states
WHERE known = 1;
