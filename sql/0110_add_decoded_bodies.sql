-- Decoded message bodies, made once at ingest by src/ton/bodies (the decoding toncenter's v3 serves):
-- `messages.decoded_opcode` names the opcode (`jetton_transfer`, `nft_transfer`, ...; NULL for opcodes outside the
-- scheme), so analytics group by name; `message_contents.decoded` is the body's decoded JSON as the API serves it in
-- `message_content.decoded` (NULL when the body does not decode). Rows written before this migration hold NULL.
ALTER TABLE messages ADD COLUMN IF NOT EXISTS decoded_opcode LowCardinality(Nullable(String)) AFTER opcode;
ALTER TABLE message_contents ADD COLUMN IF NOT EXISTS decoded Nullable(String) CODEC(ZSTD(3));

-- Opcode -> name, one row per opcode the scheme names, kept by a materialized view on `messages` (a few rows per
-- insert): the analytics aggregates are keyed by the numeric opcode, and this small table turns them into names.
-- The name is a function of the opcode, so duplicates from replays are identical rows.
CREATE TABLE IF NOT EXISTS opcode_names
(
    opcode Int64,
    name LowCardinality(String)
)
ENGINE = ReplacingMergeTree
ORDER BY opcode;

CREATE MATERIALIZED VIEW IF NOT EXISTS opcode_names_mv TO opcode_names AS
SELECT DISTINCT toInt64(assumeNotNull(opcode)) AS opcode, assumeNotNull(decoded_opcode) AS name
FROM messages
WHERE decoded_opcode IS NOT NULL AND opcode IS NOT NULL;
