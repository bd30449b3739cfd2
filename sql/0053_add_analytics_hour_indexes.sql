-- The analytics tables lead with the masterchain seqno, and dashboards filter by time: `hour` grows with the seqno,
-- so a minmax index lets a time-range read skip almost every granule instead of scanning the whole history. It
-- applies to parts written after this migration (the tables are new in 0050-0052).
ALTER TABLE analytics_tx_mc ADD INDEX IF NOT EXISTS idx_hour hour TYPE minmax GRANULARITY 1;
ALTER TABLE analytics_msg_mc ADD INDEX IF NOT EXISTS idx_hour hour TYPE minmax GRANULARITY 1;
