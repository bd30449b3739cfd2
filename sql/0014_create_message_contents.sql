-- Cell hash -> BOC of a message body or state init, shared by every message that carries the same cell, so a body
-- seen by the sending and the receiving transaction is stored once after merges. Content-addressed: a row is never
-- wrong, only possibly unreferenced, so it is not gated by the completion marker.
CREATE TABLE IF NOT EXISTS message_contents
(
    hash FixedString(44) CODEC(ZSTD(1)),
    boc String CODEC(ZSTD(3))
)
ENGINE = ReplacingMergeTree
ORDER BY hash
SETTINGS index_granularity = 256;
