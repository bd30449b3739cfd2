-- Account -> code hash as of the newest masterchain block that reported it (the address book's bounceable rule).
-- Merges keep the newest row per account; readers still take argMax over done masterchain blocks.
CREATE TABLE IF NOT EXISTS latest_account_code
(
    account String CODEC(ZSTD(1)),
    mc_seqno UInt32,
    code_hash Nullable(FixedString(44)) CODEC(ZSTD(1))
)
ENGINE = ReplacingMergeTree(mc_seqno)
ORDER BY account
SETTINGS index_granularity = 1024;
