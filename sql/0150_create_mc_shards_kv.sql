-- What a masterchain block commits and references, ready to serve, in one key-value row per masterchain block
-- (EmbeddedRocksDB: a point lookup by the primary key reads one value, no granule is decompressed), derived from
-- `blocks` and `mc_shard_blocks` (which stay the source of truth and the fallback). `blocks` holds the v3 `Block`
-- objects (Go's JSON) of `/api/v3/masterchainBlockShards` in its order (workchain, unsigned shard, seqno; the
-- masterchain block itself included), one a line; `tops` the v2 `ton.blockIdExt` objects (Python's JSON) of
-- `/api/v2/shards` in the order of the masterchain block's shard hashes, joined by commas. Without it the first
-- endpoint read `blocks FINAL` by a set of ids from `mc_shard_blocks` and a condition outside its sort key (50-120 ms a
-- request on the one-million-transaction store), the second `mc_shard_blocks FINAL`. Written by the consumer with the
-- block's other rows, before its completion marker (an upsert by key: a replay rewrites it whole); read only for done
-- masterchain blocks; filled for blocks stored before it by `npm run migrate` and at start
-- (src/store/backfillMcShards.ts); a block without a row is answered from the MergeTree tables as before. Off on a
-- cluster (CLICKHOUSE_CLUSTER): a table of this engine is per node and not replicated.
CREATE TABLE IF NOT EXISTS mc_shards_kv
(
    mc_seqno UInt32,
    blocks String,
    tops String
)
ENGINE = EmbeddedRocksDB
PRIMARY KEY mc_seqno
SETTINGS optimize_for_bulk_insert = 0;

-- How far the fill of `mc_shards_kv` has come: every done masterchain block up to `through` was looked at (id 0).
CREATE TABLE IF NOT EXISTS mc_shards_kv_backfill
(
    id UInt8,
    through UInt32
)
ENGINE = EmbeddedRocksDB
PRIMARY KEY id;
