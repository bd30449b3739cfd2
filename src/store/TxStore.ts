/**
 * The read port the API is written against, one method per query the HTTP layer may issue. It lives with the store:
 * api depends on it and store never imports api. Invariant: implementations only expose data of masterchain blocks
 * that are completely ingested, so a block visible here never changes again (which lets the API mark such responses
 * immutable).
 */
import type { AccountStateRecord, BlockId, BlockIdExt, BlockRecord, TransactionRecord } from "../ton/record.js"

export type SortOrder = "asc" | "desc"

/** Exclusive (account, lt) cursor inside a block; account is the 64 upper-case hex digits without workchain. */
export interface AccountCursor {
  readonly account: string
  readonly lt: string
}

export interface TxStore {
  mcBlockDone(seqno: number): Promise<boolean>
  /** Transactions with mc_block_seqno = seqno ordered by (lt <sort>, account asc), then limit/offset. */
  transactionsByMcSeqno(
    seqno: number,
    o: { limit: number; offset: number; sort: SortOrder }
  ): Promise<TransactionRecord[]>
  blockById(id: BlockId): Promise<BlockRecord | null>
  /** Up to `count` transactions of the block after the cursor, ordered by (account id, lt) ascending. */
  blockTransactions(id: BlockId, after: AccountCursor | null, count: number): Promise<TransactionRecord[]>
  shardBlocksOfMc(seqno: number): Promise<BlockRecord[]>
  shardTops(seqno: number): Promise<BlockIdExt[]>
  accountStates(hashes: ReadonlyArray<string>): Promise<Map<string, AccountStateRecord>>
  codeHashes(accounts: ReadonlyArray<string>): Promise<Map<string, string | null>>
  lastDoneMcSeqno(): Promise<number | null>
}
