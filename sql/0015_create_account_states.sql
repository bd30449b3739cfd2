-- Account states by the hash of their Account cell (HASH_UPDATE old/new of transactions). The version column lets
-- a state with known fields win over a hash-only row for the same hash.
CREATE TABLE IF NOT EXISTS account_states
(
    hash FixedString(44) CODEC(ZSTD(1)),
    account String CODEC(ZSTD(1)),
    balance Nullable(UInt64),
    extra_currencies Map(UInt32, UInt256),
    account_status Nullable(Enum8('uninit' = 0, 'frozen' = 1, 'active' = 2, 'nonexist' = 3)),
    frozen_hash Nullable(FixedString(44)) CODEC(ZSTD(1)),
    data_hash Nullable(FixedString(44)) CODEC(ZSTD(1)),
    code_hash Nullable(FixedString(44)) CODEC(ZSTD(1)),
    known UInt8
)
ENGINE = ReplacingMergeTree(known)
ORDER BY hash
SETTINGS index_granularity = 1024;
