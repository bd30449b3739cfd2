-- The v3 page of a whole masterchain block in one key-value row (EmbeddedRocksDB: a point lookup by the primary key
-- reads one value, no granule is decompressed), derived from `tx_pages` (which stays the source of truth and the
-- fallback). One row per done masterchain block: `lines` holds per transaction `state_before`, `state_after`, the
-- address-book addresses (space-joined) and the `v3` piece, tab-separated, in descending page order (lt descending,
-- then account ascending); `asc_rank` each line's 1-based position in ascending page order (lt ascending, then
-- account ascending). A page of any offset, limit and order is one lookup whose statement returns only the page's
-- lines (src/store/Store.ts, v3PageText). Written by the consumer before the block's completion marker; filled for
-- blocks stored before it by `npm run migrate` and at start (src/store/backfillV3Pages.ts); whatever drops or renders
-- again a block's `tx_pages` rows deletes its row first. Off on a cluster (CLICKHOUSE_CLUSTER): a table of this
-- engine is per node and not replicated, so nothing reads or writes it there.
CREATE TABLE IF NOT EXISTS v3_pages
(
    mc_block_seqno UInt32,
    asc_rank Array(UInt32),
    lines Array(String)
)
ENGINE = EmbeddedRocksDB
PRIMARY KEY mc_block_seqno;

-- How far the fill of `v3_pages` has come: every done masterchain block up to `through` was looked at (id 0, one row).
CREATE TABLE IF NOT EXISTS v3_pages_backfill
(
    id UInt8,
    through UInt32
)
ENGINE = EmbeddedRocksDB
PRIMARY KEY id;
