-- Per (day, account, masterchain block, insert attempt): transactions, aborted ones, fees and the first/last time and
-- lt, maintained at ingest by a materialized view on `transactions`. Serves "top contracts" over a day range (a key
-- range) and one account's activity (the (day, account) prefix skips to the account inside each day). The attempt
-- is the one of analytics_tx_mc (same insert, same queryID()), so readers filter by analytics_tx_attempts.
CREATE TABLE IF NOT EXISTS analytics_account_day
(
    day Date,
    account String CODEC(ZSTD(1)),
    mc_seqno UInt32,
    insert_id String,
    transactions SimpleAggregateFunction(sum, UInt64),
    aborted SimpleAggregateFunction(sum, UInt64),
    total_fees SimpleAggregateFunction(sum, UInt128),
    first_now SimpleAggregateFunction(min, UInt32),
    last_now SimpleAggregateFunction(max, UInt32),
    first_lt SimpleAggregateFunction(min, UInt64),
    last_lt SimpleAggregateFunction(max, UInt64)
)
ENGINE = AggregatingMergeTree
PARTITION BY toYYYYMM(day)
ORDER BY (day, account, mc_seqno, insert_id);

CREATE MATERIALIZED VIEW IF NOT EXISTS analytics_account_day_mv TO analytics_account_day AS
SELECT
    toDate(toDateTime(t.now, 'UTC')) AS day,
    t.account AS account,
    t.mc_block_seqno AS mc_seqno,
    queryID() AS insert_id,
    count() AS transactions,
    countIf(ifNull(t.aborted, false)) AS aborted,
    sum(toUInt128(t.total_fees)) AS total_fees,
    min(t.now) AS first_now,
    max(t.now) AS last_now,
    min(t.lt) AS first_lt,
    max(t.lt) AS last_lt
FROM transactions AS t
GROUP BY day, account, mc_seqno, insert_id;
