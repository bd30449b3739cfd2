-- Which body decoder (src/ton/bodies/version.ts) wrote the store's decoded columns (`messages.decoded_opcode`,
-- `message_contents.decoded`) and the pages rendered from them, and how far a re-decode to a newer one got.
-- One row per (version, step): `bodies` rows carry the last `message_contents` hash whose decoding was brought to
-- that version (`cursor`, a resume point after a crash), the `done` row says the whole store holds it.
-- ReplacingMergeTree(updated_at): the newest progress row of a version wins; readers use FINAL.
-- A store without rows was written by a decoder older than version 1 (or holds no decoded columns yet).
CREATE TABLE IF NOT EXISTS body_decoder_runs
(
    version UInt32,
    step LowCardinality(String),
    cursor String,
    bodies UInt64,
    changed UInt64,
    updated_at DateTime64(3, 'UTC') DEFAULT now64(3)
)
ENGINE = ReplacingMergeTree(updated_at)
ORDER BY (version, step);
