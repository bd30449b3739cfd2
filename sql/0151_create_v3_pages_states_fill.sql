-- How far the embedding of known account states into `v3_pages` rows (sql/0131) has come: every done masterchain
-- block up to `through` was looked at (id 0, one row). Since this release the consumer writes each line's known states
-- as their JSON in place of their hashes (src/flatten/v3_pages.ts), so a v3 page's lookups (sql/0142) ask only for the
-- address book and the hashes left; older rows are rewritten so by `npm run migrate` and at start
-- (src/store/embedV3States.ts), after `account_lookups_kv` is filled. Rows not rewritten yet are read as before.
CREATE TABLE IF NOT EXISTS v3_pages_states_fill
(
    id UInt8,
    through UInt32
)
ENGINE = EmbeddedRocksDB
PRIMARY KEY id;
