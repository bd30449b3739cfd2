-- The key-value page tables (0131 `v3_pages`, 0132 `v2_pages`) take their inserts through RocksDB's write path
-- (write-ahead log, memtable, flushed and compacted into ZSTD-compressed files) instead of the engine's default bulk
-- path, which writes every insert as a separate uncompressed file that stays so until a compaction rewrites it (one
-- that overlaps no other file never is). Measured on the real mainnet blocks (test/integration/store-real-blocks.test.ts):
-- v3_pages 1,395,287 -> 353,398 bytes, v2_pages 1,246,268 -> 455,462 bytes for 1,355 transactions; the v3 rows of
-- 200,000 generated transactions inserted in 78 batches: 155 -> 106 MB (98 MB once fully compacted). Rows already
-- written keep their files until a compaction reaches them; answers do not change.
ALTER TABLE v3_pages MODIFY SETTING optimize_for_bulk_insert = 0;
ALTER TABLE v2_pages MODIFY SETTING optimize_for_bulk_insert = 0;
