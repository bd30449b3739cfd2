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

/** A v3 transactions page as pre-rendered pieces, with what the read-time parts need. */
export interface V3PageText {
  /**
   * Per transaction in page order: its v3 JSON up to the account states (UTF-8 bytes, as the store holds them: they go
   * into the answer uncopied into text), and its two states: each a hash, looked up in `states`, or the state's JSON
   * as its `v3_pages` line embeds it (starting with `{`: src/store/pages.ts isEmbeddedState).
   */
  readonly txs: ReadonlyArray<{ readonly v3: Buffer; readonly before: string; readonly after: string }>
  readonly states: ReadonlyMap<string, AccountStateRecord>
  /** Every address-book address of the page; empty without the address book. */
  readonly book: ReadonlyArray<string>
  readonly codeHashes: ReadonlyMap<string, string | null>
}

/** A v2 page of a done block with the block's id, as one key-value row answers it. */
export interface V2BlockPage {
  readonly id: BlockIdExt
  /** The page's whole v2 `raw.transaction` JSONs, in page order, joined by commas. */
  readonly transactions: string
  readonly count: number
}

/** What a masterchain block commits and references, pre-rendered (its key-value row, sql/0150). */
export interface McShardsText {
  /** The v3 `Block` objects of `/api/v3/masterchainBlockShards` (Go's JSON), in the answer's order. */
  readonly blocks: ReadonlyArray<string>
  /** The v2 `ton.blockIdExt` objects of `/api/v2/shards` (Python's JSON) joined by commas, in the answer's order. */
  readonly tops: string
}

/**
 * Pages served from pre-rendered pieces (a store may offer them). null: the store holds no pieces for this block
 * (not backfilled yet), the caller answers from records instead; an empty page is answered from records too.
 */
export interface PageTextStore {
  v3PageText(
    seqno: number,
    o: { limit: number; offset: number; sort: SortOrder },
    withAddressBook: boolean
  ): Promise<V3PageText | null>
  /** Each transaction's whole v2 `raw.transaction` JSON, in page order; `block` must be done (from blockById). */
  v2PageText(block: BlockRecord, after: AccountCursor | null, count: number): Promise<ReadonlyArray<string> | null>
  /**
   * The block's id and its v2 page (empty pages too) in one lookup, when the store holds the block's page row and
   * the block is done; null otherwise (the caller then answers through `blockById` and `v2PageText`, which also
   * tell a missing block apart).
   */
  v2BlockPage?(id: BlockId, after: AccountCursor | null, count: number): Promise<V2BlockPage | null>
  /**
   * The blocks and shard tops of done masterchain block `seqno` in one lookup, when the store holds its row; null
   * otherwise (the caller then answers through `blockById`, `shardBlocksOfMc` and `shardTops`, which also tell a
   * missing block apart).
   */
  mcShards?(seqno: number): Promise<McShardsText | null>
}

export interface TxStore {
  /** Present when the store serves pre-rendered pages. */
  readonly pages?: PageTextStore
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
