-- Message aggregates per (masterchain block, insert attempt, hour, side, type, opcode), maintained at ingest by a
-- materialized view on `messages`. `opcode` is -1 for a body shorter than 32 bits. A message between two
-- transactions has a row per side, so "messages sent" is `direction = 'out'` and "delivered" `direction = 'in'`.
-- Same attempt rule as analytics_tx_mc: readers keep one attempt per masterchain block (analytics_msg_attempts).
CREATE TABLE IF NOT EXISTS analytics_msg_mc
(
    mc_seqno UInt32,
    insert_id String,
    hour DateTime('UTC'),
    direction Enum8('in' = 0, 'out' = 1),
    type Enum8('int' = 0, 'ext_in' = 1, 'ext_out' = 2),
    opcode Int64,
    inserted_at SimpleAggregateFunction(max, DateTime64(6, 'UTC')),
    messages SimpleAggregateFunction(sum, UInt64),
    bounceable SimpleAggregateFunction(sum, UInt64),
    bounced SimpleAggregateFunction(sum, UInt64),
    value SimpleAggregateFunction(sum, UInt128),
    fwd_fees SimpleAggregateFunction(sum, UInt128)
)
ENGINE = AggregatingMergeTree
PARTITION BY intDiv(mc_seqno, 1000000)
ORDER BY (mc_seqno, insert_id, hour, direction, type, opcode);

CREATE MATERIALIZED VIEW IF NOT EXISTS analytics_msg_mc_mv TO analytics_msg_mc AS
SELECT
    m.mc_block_seqno AS mc_seqno,
    queryID() AS insert_id,
    toStartOfHour(toDateTime(m.tx_now, 'UTC')) AS hour,
    m.direction AS direction,
    m.type AS type,
    ifNull(toInt64(m.opcode), -1) AS opcode,
    max(now64(6, 'UTC')) AS inserted_at,
    count() AS messages,
    countIf(ifNull(m.bounce, false)) AS bounceable,
    countIf(ifNull(m.bounced, false)) AS bounced,
    sum(ifNull(m.value, toUInt128(0))) AS value,
    sum(ifNull(m.fwd_fee, toUInt128(0))) AS fwd_fees
FROM messages AS m
GROUP BY mc_seqno, insert_id, hour, direction, type, opcode;
