-- The v2 getBlockTransactionsExt page of a whole block in one key-value row (EmbeddedRocksDB: a point lookup by the
-- primary key reads one value, no granule is decompressed), derived from `tx_pages` and `blocks` (which stay the
-- source of truth and the fallback). One row per block of a done masterchain block, keyed by
-- `block` = 'workchain:shard:seqno' (shard as the signed decimal the v2 API takes). `keys` holds, per transaction in
-- (account, lt) order, the account's 64 hex digits and the lt as 20 decimal digits (84 characters each, no
-- separator), so a cursor is found by comparing fixed-width strings; `v2` holds the transactions' `tx_pages.v2`
-- pieces in the same order joined by newlines (pieces hold no raw newline). A page is one lookup and a cut of
-- that row (src/store/v2Pages.ts). Written by the consumer after the block's `blocks` row and before its completion
-- marker; filled for blocks stored before it by `npm run migrate` and at start (src/store/backfillV2Pages.ts).
-- Off on a cluster (CLICKHOUSE_CLUSTER): a table of this engine is per node and not replicated, so nothing reads or
-- writes it there.
CREATE TABLE IF NOT EXISTS v2_pages
(
    block String,
    mc_block_seqno UInt32,
    root_hash String,
    file_hash String,
    keys String,
    v2 String
)
ENGINE = EmbeddedRocksDB
PRIMARY KEY block;

-- How far the fill of `v2_pages` has come: every done masterchain block up to `through` was looked at (id 0, one row).
CREATE TABLE IF NOT EXISTS v2_pages_backfill
(
    id UInt8,
    through UInt32
)
ENGINE = EmbeddedRocksDB
PRIMARY KEY id;
