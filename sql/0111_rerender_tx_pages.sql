-- The pre-rendered pages written before 0110 hold v3 messages without `decoded_opcode`, `extra_flags` and the decoded
-- bodies: they are dropped here, and `npm run migrate` renders them again from the row tables (src/store/backfillPages.ts
-- treats a done block without pieces as history to render). Until then such blocks are answered from the row tables,
-- with the same bytes. Synchronous, so the backfill that follows sees the table empty.
ALTER TABLE tx_pages DELETE WHERE 1 SETTINGS mutations_sync = 2;
