-- Decoded message bodies, made once at ingest by src/ton/bodies (the decoding toncenter's v3 serves):
-- `messages.decoded_opcode` names the opcode (`jetton_transfer`, `nft_transfer`, ...; NULL for opcodes outside the
-- scheme), so analytics group by name; `message_contents.decoded` is the body's decoded JSON as the API serves it in
-- `message_content.decoded` (NULL when the body does not decode). Rows written before this migration hold NULL.
ALTER TABLE messages ADD COLUMN IF NOT EXISTS decoded_opcode LowCardinality(Nullable(String)) AFTER opcode;
ALTER TABLE message_contents ADD COLUMN IF NOT EXISTS decoded Nullable(String) CODEC(ZSTD(3));
