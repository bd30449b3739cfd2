-- TON moved per day: value carried by delivered internal messages (nanotons), and the messages carrying it.
-- Params: from_time, to_time (DateTime).
SELECT day, value_moved, internal_in
FROM analytics_daily(from_time = {from_time:DateTime}, to_time = {to_time:DateTime})
ORDER BY day
