-- Data-skipping indexes for lookups off the sort key: by transaction or message hash (trace parent lookup at ingest,
-- ad-hoc queries) and by time (analytics filters on `now` / `gen_utime`, which grow with the leading mc seqno, so
-- minmax ranges stay tight). They apply to parts written after this migration.
ALTER TABLE transactions ADD INDEX IF NOT EXISTS idx_hash hash TYPE bloom_filter(0.01) GRANULARITY 1;
ALTER TABLE transactions ADD INDEX IF NOT EXISTS idx_now now TYPE minmax GRANULARITY 1;
ALTER TABLE messages ADD INDEX IF NOT EXISTS idx_hash hash TYPE bloom_filter(0.01) GRANULARITY 1;
ALTER TABLE messages ADD INDEX IF NOT EXISTS idx_tx_now tx_now TYPE minmax GRANULARITY 1;
ALTER TABLE blocks ADD INDEX IF NOT EXISTS idx_gen_utime gen_utime TYPE minmax GRANULARITY 1;
