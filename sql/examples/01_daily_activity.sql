-- Daily activity: transactions, their outcome and the accounts that were active, per UTC day.
-- Params: from_time, to_time (DateTime; hour buckets in [from_time, to_time)).
SELECT day, transactions, successful, aborted, active_accounts
FROM analytics_daily(from_time = {from_time:DateTime}, to_time = {to_time:DateTime})
ORDER BY day
