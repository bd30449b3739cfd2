-- One account at a glance: transactions, aborted ones, fees paid, first and last seen.
-- Params: account (String, raw form "0:HEX"), from_day, to_day (Date, inclusive).
SELECT account, transactions, aborted, total_fees, first_seen, last_seen, active_days
FROM analytics_accounts(from_day = {from_day:Date}, to_day = {to_day:Date})
WHERE account = {account:String}
