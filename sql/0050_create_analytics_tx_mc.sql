-- Transaction aggregates per (masterchain block, insert attempt, hour), maintained at ingest by a materialized view
-- on `transactions`. Invariant: rows of one attempt sum to exactly that attempt's rows, whatever chunks ClickHouse
-- cut the insert into (chunks share `queryID()`); readers keep ONE attempt per masterchain block (the most complete,
-- then the latest: see analytics_tx_attempts), so replays and re-inserts after a crash never double count.
CREATE TABLE IF NOT EXISTS analytics_tx_mc
(
    mc_seqno UInt32,
    insert_id String,
    hour DateTime('UTC'),
    inserted_at SimpleAggregateFunction(max, DateTime64(6, 'UTC')),
    transactions SimpleAggregateFunction(sum, UInt64),
    successful SimpleAggregateFunction(sum, UInt64),
    aborted SimpleAggregateFunction(sum, UInt64),
    total_fees SimpleAggregateFunction(sum, UInt128),
    accounts AggregateFunction(uniq, String)
)
ENGINE = AggregatingMergeTree
PARTITION BY intDiv(mc_seqno, 1000000)
ORDER BY (mc_seqno, insert_id, hour);

CREATE MATERIALIZED VIEW IF NOT EXISTS analytics_tx_mc_mv TO analytics_tx_mc AS
SELECT
    t.mc_block_seqno AS mc_seqno,
    queryID() AS insert_id,
    toStartOfHour(toDateTime(t.now, 'UTC')) AS hour,
    max(now64(6, 'UTC')) AS inserted_at,
    count() AS transactions,
    countIf(NOT ifNull(t.aborted, false)) AS successful,
    countIf(ifNull(t.aborted, false)) AS aborted,
    sum(toUInt128(t.total_fees)) AS total_fees,
    uniqState(t.account) AS accounts
FROM transactions AS t
GROUP BY mc_seqno, insert_id, hour;
