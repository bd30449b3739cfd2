-- Top contracts by activity over a day range: most transactions first (ties by account).
-- Params: from_day, to_day (Date, inclusive), top (UInt32).
SELECT account, transactions, aborted, total_fees, first_seen, last_seen
FROM analytics_accounts(from_day = {from_day:Date}, to_day = {to_day:Date})
ORDER BY transactions DESC, account
LIMIT {top:UInt32}
