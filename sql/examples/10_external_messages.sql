-- Wallet activity proxy: external messages delivered per hour (what users sign and send).
-- Params: from_time, to_time (DateTime).
SELECT hour, external_in
FROM analytics_hourly(from_time = {from_time:DateTime}, to_time = {to_time:DateTime})
WHERE external_in > 0
ORDER BY hour
