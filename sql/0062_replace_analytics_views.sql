-- The dashboard views of 0060/0061 with a bounded completion check: the marker set a view reads is limited to the
-- masterchain seqnos of the analytics rows in the requested range (found through the minmax index of 0053), instead
-- of every marker ever written. Same columns, parameters and invariant: done blocks only, one insert attempt each
-- (most rows, then latest).

CREATE OR REPLACE VIEW analytics_hourly AS
SELECT
    bucket AS hour, tx.transactions AS transactions, tx.successful AS successful, tx.aborted AS aborted,
    tx.total_fees AS total_fees, tx.active_accounts AS active_accounts, msg.messages_in AS messages_in,
    msg.messages_out AS messages_out, msg.external_in AS external_in, msg.internal_in AS internal_in,
    msg.bounced_in AS bounced_in, msg.value_moved AS value_moved
FROM (
    SELECT hour AS bucket, sum(transactions) AS transactions, sum(successful) AS successful,
           sum(aborted) AS aborted, sum(total_fees) AS total_fees, uniqMerge(accounts) AS active_accounts
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
              GROUP BY mc_seqno, insert_id
          )
          WHERE mc_seqno IN
          (
              SELECT mc_seqno FROM mc_blocks_done
              WHERE mc_seqno >= (SELECT min(mc_seqno) FROM analytics_tx_mc
                                 WHERE hour >= {from_time:DateTime} AND hour < {to_time:DateTime})
                AND mc_seqno <= (SELECT max(mc_seqno) FROM analytics_tx_mc
                                 WHERE hour >= {from_time:DateTime} AND hour < {to_time:DateTime})
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
              GROUP BY mc_seqno, insert_id
          )
          WHERE mc_seqno IN
          (
              SELECT mc_seqno FROM mc_blocks_done
              WHERE mc_seqno >= (SELECT min(mc_seqno) FROM analytics_msg_mc
                                 WHERE hour >= {from_time:DateTime} AND hour < {to_time:DateTime})
                AND mc_seqno <= (SELECT max(mc_seqno) FROM analytics_msg_mc
                                 WHERE hour >= {from_time:DateTime} AND hour < {to_time:DateTime})
          )
          GROUP BY mc_seqno
      )
    GROUP BY bucket
) AS msg USING (bucket)
ORDER BY hour;

CREATE OR REPLACE VIEW analytics_daily AS
SELECT
    bucket AS day, tx.transactions AS transactions, tx.successful AS successful, tx.aborted AS aborted,
    tx.total_fees AS total_fees, tx.active_accounts AS active_accounts, msg.messages_in AS messages_in,
    msg.messages_out AS messages_out, msg.external_in AS external_in, msg.internal_in AS internal_in,
    msg.bounced_in AS bounced_in, msg.value_moved AS value_moved
FROM (
    SELECT toDate(hour) AS bucket, sum(transactions) AS transactions, sum(successful) AS successful,
           sum(aborted) AS aborted, sum(total_fees) AS total_fees, uniqMerge(accounts) AS active_accounts
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
              GROUP BY mc_seqno, insert_id
          )
          WHERE mc_seqno IN
          (
              SELECT mc_seqno FROM mc_blocks_done
              WHERE mc_seqno >= (SELECT min(mc_seqno) FROM analytics_tx_mc
                                 WHERE hour >= {from_time:DateTime} AND hour < {to_time:DateTime})
                AND mc_seqno <= (SELECT max(mc_seqno) FROM analytics_tx_mc
                                 WHERE hour >= {from_time:DateTime} AND hour < {to_time:DateTime})
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
              GROUP BY mc_seqno, insert_id
          )
          WHERE mc_seqno IN
          (
              SELECT mc_seqno FROM mc_blocks_done
              WHERE mc_seqno >= (SELECT min(mc_seqno) FROM analytics_msg_mc
                                 WHERE hour >= {from_time:DateTime} AND hour < {to_time:DateTime})
                AND mc_seqno <= (SELECT max(mc_seqno) FROM analytics_msg_mc
                                 WHERE hour >= {from_time:DateTime} AND hour < {to_time:DateTime})
          )
          GROUP BY mc_seqno
      )
    GROUP BY bucket
) AS msg USING (bucket)
ORDER BY day;

CREATE OR REPLACE VIEW analytics_opcodes AS
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
              GROUP BY mc_seqno, insert_id
          )
          WHERE mc_seqno IN
          (
              SELECT mc_seqno FROM mc_blocks_done
              WHERE mc_seqno >= (SELECT min(mc_seqno) FROM analytics_msg_mc
                                 WHERE hour >= {from_time:DateTime} AND hour < {to_time:DateTime})
                AND mc_seqno <= (SELECT max(mc_seqno) FROM analytics_msg_mc
                                 WHERE hour >= {from_time:DateTime} AND hour < {to_time:DateTime})
          )
          GROUP BY mc_seqno
      )
GROUP BY day, direction, type, opcode
ORDER BY day, direction, type, opcode;

CREATE OR REPLACE VIEW analytics_accounts AS
SELECT account, sum(transactions) AS transactions, sum(aborted) AS aborted, sum(total_fees) AS total_fees,
       toDateTime(min(first_now), 'UTC') AS first_seen, toDateTime(max(last_now), 'UTC') AS last_seen,
       min(first_lt) AS first_lt, max(last_lt) AS last_lt, uniqExact(day) AS active_days
FROM analytics_account_day
WHERE day >= {from_day:Date} AND day <= {to_day:Date}
  AND (mc_seqno, insert_id) IN
      (
          SELECT mc_seqno, argMax(insert_id, (n, at))
          FROM
          (
              SELECT mc_seqno, insert_id, sum(transactions) AS n, max(inserted_at) AS at
              FROM analytics_tx_mc
              WHERE hour >= toDateTime({from_day:Date}) AND hour < toDateTime({to_day:Date} + 1)
              GROUP BY mc_seqno, insert_id
          )
          WHERE mc_seqno IN
          (
              SELECT mc_seqno FROM mc_blocks_done
              WHERE mc_seqno >= (SELECT min(mc_seqno) FROM analytics_tx_mc
                                 WHERE hour >= toDateTime({from_day:Date}) AND hour < toDateTime({to_day:Date} + 1))
                AND mc_seqno <= (SELECT max(mc_seqno) FROM analytics_tx_mc
                                 WHERE hour >= toDateTime({from_day:Date}) AND hour < toDateTime({to_day:Date} + 1))
          )
          GROUP BY mc_seqno
      )
GROUP BY account;
