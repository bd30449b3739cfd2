-- toncenter's v3 serves a compute phase's gas_fees and gas_used exchanged when gas_fees < gas_used (its reader's
-- repair of rows an old indexer wrote swapped), which is every transaction of an account that pays no gas: the
-- masterchain's system transactions. src/ton/v3.ts renders that since this migration; pieces rendered before it hold
-- the unswapped figures, so the pieces of every masterchain block holding such a transaction are dropped here and
-- `npm run migrate` renders them again from the row tables (src/store/backfillPages.ts). Until then those blocks are
-- answered from the row tables, with the same bytes. The row tables keep the chain's own figures.
ALTER TABLE tx_pages DELETE WHERE mc_block_seqno IN (
    SELECT DISTINCT mc_block_seqno FROM transactions WHERE compute_ph__gas_fees < compute_ph__gas_used
) SETTINGS mutations_sync = 2;
