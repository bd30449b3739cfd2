-- New accounts per day: accounts whose first transaction in the range falls on that day.
-- Params: from_day, to_day (Date, inclusive).
SELECT toDate(first_seen) AS day, count() AS new_accounts
FROM analytics_accounts(from_day = {from_day:Date}, to_day = {to_day:Date})
GROUP BY day
ORDER BY day
