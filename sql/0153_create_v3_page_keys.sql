-- What a v3 page looks up, per line of its block's `v3_pages` row (sql/0131), in a small key-value row of its own:
-- per line its state hashes not embedded (a field starting with `{` is an embedded state, sql/0151) and its address
-- book's accounts, in the row's line order, with the row's ascending ranks. A lone page is then ONE statement: its
-- lines UNION ALL a multi-get of `account_lookups_kv` (sql/0142) whose keys the engine takes from this row
-- (src/store/Store.ts v3PageLines) instead of a second statement after the lines; cutting the keys from the
-- `v3_pages` row itself in that statement reads and splits the ~400 KB row again and costs more than it saves
-- (BENCHMARKS.md, "A lone uncached v3 page in one statement"). Written by the view below on every insert into
-- `v3_pages` (the consumer's rows and the states fill's rewrites alike, so a row never lacks a key of its lines: a
-- rewrite only embeds states), filled below for the rows stored before it (an upsert by key: run again, the same
-- rows). A block without a row here is read with the lookups statement after its lines, as before. Not read on a
-- cluster (CLICKHOUSE_CLUSTER): per node, not replicated.
CREATE TABLE IF NOT EXISTS v3_page_keys
(
    mc_block_seqno UInt32,
    asc_rank Array(UInt32),
    hashes Array(Array(String)),
    book Array(Array(String))
)
ENGINE = EmbeddedRocksDB
PRIMARY KEY mc_block_seqno
SETTINGS optimize_for_bulk_insert = 0;

CREATE MATERIALIZED VIEW IF NOT EXISTS v3_page_keys_lines TO v3_page_keys AS
SELECT
    mc_block_seqno,
    asc_rank,
    arrayMap(l -> arrayFilter(k -> k != '' AND NOT startsWith(k, '{'), arraySlice(splitByChar('\t', l, 3), 1, 2)), lines) AS hashes,
    arrayMap(l -> arrayFilter(k -> k != '', splitByChar(' ', splitByChar('\t', l, 3)[3])), lines) AS book
FROM v3_pages;

INSERT INTO v3_page_keys
SELECT
    mc_block_seqno,
    asc_rank,
    arrayMap(l -> arrayFilter(k -> k != '' AND NOT startsWith(k, '{'), arraySlice(splitByChar('\t', l, 3), 1, 2)), lines) AS hashes,
    arrayMap(l -> arrayFilter(k -> k != '', splitByChar(' ', splitByChar('\t', l, 3)[3])), lines) AS book
FROM v3_pages
SETTINGS max_block_size = 256;
