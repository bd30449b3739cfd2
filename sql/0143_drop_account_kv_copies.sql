-- Retires the two key-value tables `account_lookups_kv` (sql/0142) was copied from: `account_states_kv` (sql/0134, the
-- known states by hash) and `account_code_kv` (sql/0141, each account's newest done code hash). Once
-- `account_lookups_kv` is filled no read asks them, and before that the read path asks the MergeTree tables
-- (`account_states`, `latest_account_code`), as on a cluster; its fill copies the states from `account_states` and
-- the code rows from `latest_account_code` (src/store/accountLookupsKv.ts). The consumer no longer writes them.
-- IF EXISTS: a store of any earlier version migrates (on a cluster, where they are plain per-node tables, ON CLUSTER).
-- SYNC: the files go now, not after the engine's delay for dropped tables (8 minutes by default, which a short-lived
-- process such as `npm run migrate` never reaches).
DROP TABLE IF EXISTS account_states_kv SYNC;
DROP TABLE IF EXISTS account_code_kv SYNC;
