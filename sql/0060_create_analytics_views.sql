-- Dashboard views over the analytics tables, parameterized by a time range ({from_time:DateTime} inclusive,
-- {to_time:DateTime} exclusive, compared with the hour bucket): `SELECT * FROM analytics_daily(from_time = ...,
-- to_time = ...)`. Invariant: only masterchain blocks with a completion marker count, each through exactly one insert
-- attempt (most rows, then latest), so the figures equal a plain GROUP BY over the deduplicated base tables.

CREATE VIEW IF NOT EXISTS analytics_hourly AS
SELECT
    bucket AS hour, tx.transactions AS transactions, tx.successful AS successful, tx.aborted AS aborted,
    tx.total_fees AS total_fees, tx.active_accounts AS active_accounts, msg.messages_in AS messages_in,
    msg.messages_out AS messages_out, msg.external_in AS external_in, msg.internal_in AS internal_in,
    msg.bounced_in AS bounced_in, msg.value_moved AS value_moved
FROM (
    SELECT hour AS bucket, sum(transactions) AS transactions, sum(successful) AS successful, sum(aborted) AS aborted,
           sum(total_fees) AS total_fees, uniqMerge(accounts) AS active_accounts
    FROM analytics_tx_mc
    WHERE hour >= {from_time:DateTime} AND hour < {to_time:DateTime}
      AND (mc_seqno, insert_id) IN
      (
          SELECT mc_seqno, argMax(insert_id, (n, at))
          FROM
          (
              SELECT mc_seqno, insert_id, sum(transactions) AS n, max(inserted_at) AS at
              FROM analytics_tx_mc
              WHERE hour >= {from_time:DateTime} AND hour < {to_time:DateTime}
                AND mc_seqno IN (SELECT mc_seqno FROM mc_blocks_done)
              GROUP BY mc_seqno, insert_id
          )
          GROUP BY mc_seqno
      )
    GROUP BY bucket
) AS tx
LEFT JOIN (
    SELECT hour AS bucket,
           sumIf(messages, direction = 'in') AS messages_in,
           sumIf(messages, direction = 'out') AS messages_out,
           sumIf(messages, direction = 'in' AND type = 'ext_in') AS external_in,
           sumIf(value, direction = 'in' AND type = 'int') AS value_moved,
           sumIf(messages, direction = 'in' AND type = 'int') AS internal_in,
           sumIf(bounced, direction = 'in' AND type = 'int') AS bounced_in
    FROM analytics_msg_mc
    WHERE hour >= {from_time:DateTime} AND hour < {to_time:DateTime}
      AND (mc_seqno, insert_id) IN
      (
          SELECT mc_seqno, argMax(insert_id, (n, at))
          FROM
          (
              SELECT mc_seqno, insert_id, sum(messages) AS n, max(inserted_at) AS at
              FROM analytics_msg_mc
              WHERE hour >= {from_time:DateTime} AND hour < {to_time:DateTime}
                AND mc_seqno IN (SELECT mc_seqno FROM mc_blocks_done)
              GROUP BY mc_seqno, insert_id
          )
          GROUP BY mc_seqno
      )
    GROUP BY bucket
) AS msg USING (bucket)
ORDER BY hour;

CREATE VIEW IF NOT EXISTS analytics_daily AS
SELECT
    bucket AS day, tx.transactions AS transactions, tx.successful AS successful, tx.aborted AS aborted,
    tx.total_fees AS total_fees, tx.active_accounts AS active_accounts, msg.messages_in AS messages_in,
    msg.messages_out AS messages_out, msg.external_in AS external_in, msg.internal_in AS internal_in,
    msg.bounced_in AS bounced_in, msg.value_moved AS value_moved
FROM (
    SELECT toDate(hour) AS bucket, sum(transactions) AS transactions, sum(successful) AS successful,
           sum(aborted) AS aborted,
           sum(total_fees) AS total_fees, uniqMerge(accounts) AS active_accounts
    FROM analytics_tx_mc
    WHERE hour >= {from_time:DateTime} AND hour < {to_time:DateTime}
      AND (mc_seqno, insert_id) IN
      (
          SELECT mc_seqno, argMax(insert_id, (n, at))
          FROM
          (
              SELECT mc_seqno, insert_id, sum(transactions) AS n, max(inserted_at) AS at
              FROM analytics_tx_mc
              WHERE hour >= {from_time:DateTime} AND hour < {to_time:DateTime}
                AND mc_seqno IN (SELECT mc_seqno FROM mc_blocks_done)
              GROUP BY mc_seqno, insert_id
          )
          GROUP BY mc_seqno
      )
    GROUP BY bucket
) AS tx
LEFT JOIN (
    SELECT toDate(hour) AS bucket,
           sumIf(messages, direction = 'in') AS messages_in,
           sumIf(messages, direction = 'out') AS messages_out,
           sumIf(messages, direction = 'in' AND type = 'ext_in') AS external_in,
           sumIf(value, direction = 'in' AND type = 'int') AS value_moved,
           sumIf(messages, direction = 'in' AND type = 'int') AS internal_in,
           sumIf(bounced, direction = 'in' AND type = 'int') AS bounced_in
    FROM analytics_msg_mc
    WHERE hour >= {from_time:DateTime} AND hour < {to_time:DateTime}
      AND (mc_seqno, insert_id) IN
      (
          SELECT mc_seqno, argMax(insert_id, (n, at))
          FROM
          (
              SELECT mc_seqno, insert_id, sum(messages) AS n, max(inserted_at) AS at
              FROM analytics_msg_mc
              WHERE hour >= {from_time:DateTime} AND hour < {to_time:DateTime}
                AND mc_seqno IN (SELECT mc_seqno FROM mc_blocks_done)
              GROUP BY mc_seqno, insert_id
          )
          GROUP BY mc_seqno
      )
    GROUP BY bucket
) AS msg USING (bucket)
ORDER BY day;

CREATE VIEW IF NOT EXISTS analytics_opcodes AS
SELECT toDate(hour) AS day, direction, type, opcode, sum(messages) AS messages, sum(bounceable) AS bounceable,
       sum(bounced) AS bounced, sum(value) AS value, sum(fwd_fees) AS fwd_fees
FROM analytics_msg_mc
WHERE hour >= {from_time:DateTime} AND hour < {to_time:DateTime}
  AND (mc_seqno, insert_id) IN
      (
          SELECT mc_seqno, argMax(insert_id, (n, at))
          FROM
          (
              SELECT mc_seqno, insert_id, sum(messages) AS n, max(inserted_at) AS at
              FROM analytics_msg_mc
              WHERE hour >= {from_time:DateTime} AND hour < {to_time:DateTime}
                AND mc_seqno IN (SELECT mc_seqno FROM mc_blocks_done)
              GROUP BY mc_seqno, insert_id
          )
          GROUP BY mc_seqno
      )
GROUP BY day, direction, type, opcode
ORDER BY day, direction, type, opcode;
