-- Per-account activity over a day range ({from_day:Date} .. {to_day:Date}, both inclusive): transactions, aborted
-- ones, fees, first/last seen. `ORDER BY transactions DESC LIMIT n` is "top contracts"; `WHERE account = '0:...'`
-- reads one key prefix per day. Same invariant as 0060: done blocks only, one insert attempt per block.
CREATE VIEW IF NOT EXISTS analytics_accounts AS
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
                AND mc_seqno IN (SELECT mc_seqno FROM mc_blocks_done)
              GROUP BY mc_seqno, insert_id
          )
          GROUP BY mc_seqno
      )
GROUP BY account;
