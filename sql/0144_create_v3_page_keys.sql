-- What a v3 page looks up, per masterchain block, beside its `v3_pages` row (sql/0131): `keys` holds per line of that
-- row, in the same order, the line's state hashes and address-book addresses (its first three tab-separated fields,
-- the empty ones left out) joined by spaces, and `asc_rank` is the row's own, so a page's slice of `keys` is taken as
-- its slice of `lines` is. A lone uncached page then looks its states and code hashes up in `account_lookups_kv`
-- (sql/0142) by these keys at the same time as its lines are read, instead of after them (src/store/Store.ts). The
-- row is a hint, never an answer: the read path checks that the keys it looked up cover the keys of the lines it got,
-- and reads the lookups again by those when they do not (a block without a row, or a row left from lines rendered
-- again), so the table needs no deletes beside `v3_pages`'.
-- Written by the view below on every insert into `v3_pages` (the consumer's and its fills'), by the same expression
-- for every writer; filled for rows stored before it by `npm run migrate` and at start (src/store/backfillV3PageKeys.ts),
-- which records the fill in `v3_page_keys_filled` (id 0). Off on a cluster (CLICKHOUSE_CLUSTER): per node, and
-- nothing writes `v3_pages` there.
CREATE TABLE IF NOT EXISTS v3_page_keys
(
    mc_block_seqno UInt32,
    asc_rank Array(UInt32),
    keys Array(String)
)
ENGINE = EmbeddedRocksDB
PRIMARY KEY mc_block_seqno;

CREATE MATERIALIZED VIEW IF NOT EXISTS v3_page_keys_lines TO v3_page_keys AS
SELECT
    mc_block_seqno,
    asc_rank,
    arrayMap(l -> arrayStringConcat(arrayFilter(k -> k != '', arraySlice(splitByChar('\t', l, 4), 1, 3)), ' '), lines) AS keys
FROM v3_pages;

CREATE TABLE IF NOT EXISTS v3_page_keys_filled
(
    id UInt8
)
ENGINE = EmbeddedRocksDB
PRIMARY KEY id;
