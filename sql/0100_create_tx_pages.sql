-- The read path's table: one row per transaction holding exactly what an API page needs, pre-rendered at ingest.
-- `v3` is the toncenter v3 Transaction JSON (Go dialect) up to, not including, `,"account_state_before":` (the
-- states follow whatever `account_states` holds at read time); `v2` the whole ton-http-api `raw.transaction` JSON;
-- `book` the raw addresses the v3 address book lists for this transaction. Same sort key and partitions as
-- `transactions`, so a v3 page (one masterchain block) and a v2 page (one shard block after an (account, lt)
-- cursor) are one key range each. Small granules: rows are a few kilobytes, a page reads a few granules.
CREATE TABLE IF NOT EXISTS tx_pages
(
    mc_block_seqno UInt32,
    block_workchain Int32,
    block_shard Int64,
    block_seqno UInt32,
    account String CODEC(ZSTD(1)),
    lt UInt64 CODEC(Delta, ZSTD(1)),
    state_before FixedString(44) CODEC(ZSTD(1)),
    state_after FixedString(44) CODEC(ZSTD(1)),
    book Array(String) CODEC(ZSTD(1)),
    v3 String CODEC(ZSTD(3)),
    v2 String CODEC(ZSTD(3))
)
ENGINE = ReplacingMergeTree
PARTITION BY intDiv(mc_block_seqno, 1000000)
ORDER BY (mc_block_seqno, block_workchain, block_shard, block_seqno, account, lt)
SETTINGS index_granularity = 128;
