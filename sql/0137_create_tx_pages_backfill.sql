-- On a single node (not CLICKHOUSE_CLUSTER) the consumer writes a transaction's pre-rendered pieces to `tx_pages` only
-- for the blocks the key-value page rows cannot serve (a block that gets no `v2_pages` row); every other block's pages
-- live in its `v3_pages` and `v2_pages` rows alone. So "a done block without `tx_pages` rows" no longer means "pages
-- not rendered": a block needs rendering only when it has neither `tx_pages` rows nor a `v3_pages` row. Looking that
-- up reads key-value rows, so the render fill (src/store/backfillPages.ts) walks done masterchain blocks once, past its
-- progress kept here (id 0, `through`: every done block up to it was looked at), as the two key-value fills do.
-- Whatever drops a block's pages (the re-decode, a future migration) lowers `through` below it first.
CREATE TABLE IF NOT EXISTS tx_pages_backfill
(
    id UInt8,
    through UInt32
)
ENGINE = EmbeddedRocksDB
PRIMARY KEY id;
