-- Compacts the two key-value tables an uncached v3 page reads (`v3_pages`, sql/0131; `account_lookups_kv`, sql/0142)
-- into one sorted run each, once. RocksDB keeps a table's rows in files over several levels (level 0 and the ones
-- its compactions left), and these tables' keys (little-endian seqnos, state hashes, accounts) spread every batch of
-- the consumer's over the whole key range, so every file's range holds every key. A point read then reads and
-- decompresses a data block of every file up to the one holding its key unless a Bloom filter rules the file out,
-- and files written before CLICKHOUSE_KV_BLOOM_BITS have none. On the one-million-transaction store as ingested
-- (v3_pages: 2 files in level 0, 5 in level 5, 5 in level 6; account_lookups_kv: 2 in level 0 after the first open,
-- 2 in level 6) a page's row read 3.5 blocks (1.39 MB decompressed for its 0.39 MB row) and its lookups 2.6 blocks a
-- key; compacted, one block each (BENCHMARKS.md, "An uncached v3 page on the 1M store"). The compaction rewrites the
-- files with the engine's current options, so with the filters on the rewritten files carry them and later files of
-- level 0 cost a read nothing unless they hold its key. Rows and answers do not change. Cost: once, about the
-- table's size in reads and writes (on that store ~33 s and ~27 s of CPU for v3_pages' 490 MiB, ~5 s for
-- account_lookups_kv's 143 MiB; a fresh store nothing). A table whose files are all in its last level already is
-- left as it is. On a cluster these tables are per node and unused, and the statements are cheap no-ops.
OPTIMIZE TABLE v3_pages;
OPTIMIZE TABLE account_lookups_kv;
