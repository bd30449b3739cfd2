-- Fee trend: total fees paid per day (nanotons) and the average fee per transaction.
-- Params: from_time, to_time (DateTime).
SELECT day, total_fees, intDiv(total_fees, transactions) AS avg_fee_per_tx
FROM analytics_daily(from_time = {from_time:DateTime}, to_time = {to_time:DateTime})
WHERE transactions > 0
ORDER BY day
