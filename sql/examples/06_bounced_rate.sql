-- Bounced-message rate per day: delivered internal messages that are bounces, over all delivered internal messages.
-- Params: from_time, to_time (DateTime).
SELECT day, internal_in, bounced_in, round(bounced_in / internal_in, 6) AS bounced_rate
FROM analytics_daily(from_time = {from_time:DateTime}, to_time = {to_time:DateTime})
WHERE internal_in > 0
ORDER BY day
