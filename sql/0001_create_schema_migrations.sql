-- Bookkeeping of applied migrations: one row per sql/NNNN_*.sql file with the checksum of the text that ran.
-- ReplacingMergeTree keyed by name so two processes migrating at once leave one row per file after merges
-- (readers use FINAL).
CREATE TABLE IF NOT EXISTS schema_migrations
(
    name       String,
    checksum   FixedString(64),
    applied_at DateTime64(3, 'UTC') DEFAULT now64(3)
)
ENGINE = ReplacingMergeTree(applied_at)
ORDER BY name;
