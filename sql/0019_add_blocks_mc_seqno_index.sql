-- `blocks` is keyed by block id; deleting the rows of an unfinished masterchain block filters on mc_block_seqno,
-- which grows with seqno inside each shard, so a minmax index lets the delete skip almost every granule.
ALTER TABLE blocks ADD INDEX IF NOT EXISTS idx_mc_block_seqno mc_block_seqno TYPE minmax GRANULARITY 1;
