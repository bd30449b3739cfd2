/**
 * MasterchainBundle -> rows for every table, and the order the tables must be written in. Invariant: the completion
 * marker (`mc_blocks_done`) is last, so a masterchain block becomes visible only after all its rows are stored.
 */
import { assembleAccountState } from "../store/assemble.js"
import { embeddedStateJson, type TxPageRow, txPageRow } from "../store/pages.js"
import type { MasterchainBundle } from "../ton/record.js"
import { withShippedBodies } from "../ton/v3Text.js"
import { type AccountStateRow, accountStateRows } from "./account_states.js"
import { type BlockRow, blockRow } from "./blocks.js"
import { type LatestAccountCodeRow, latestAccountCodeRows } from "./latest_account_code.js"
import { type McBlockDoneRow, mcBlockDoneRow } from "./mc_blocks_done.js"
import { type McShardBlockRow, mcShardBlockRows } from "./mc_shard_blocks.js"
import { type MessageContentRow, messageContentRows } from "./message_contents.js"
import { type MessageRow, messageRows } from "./messages.js"
import { type TransactionRow, transactionRow } from "./transactions.js"
import { type StateJson, type V3PageRow, v3PageRow } from "./v3_pages.js"
import { type V2PageRow, v2PageKey, v2PageRows } from "./v2_pages.js"
import { type McShardsKvRow, mcShardsKvRow } from "./mc_shards_kv.js"

export interface TableRows {
  readonly message_contents: Array<MessageContentRow>
  readonly account_states: Array<AccountStateRow>
  readonly messages: Array<MessageRow>
  readonly transactions: Array<TransactionRow>
  readonly tx_pages: Array<TxPageRow>
  readonly v3_pages: Array<V3PageRow>
  readonly blocks: Array<BlockRow>
  readonly mc_shard_blocks: Array<McShardBlockRow>
  readonly latest_account_code: Array<LatestAccountCodeRow>
  readonly v2_pages: Array<V2PageRow>
  readonly mc_shards_kv: Array<McShardsKvRow>
  readonly mc_blocks_done: Array<McBlockDoneRow>
}

export type TableName = keyof TableRows

/**
 * Insert order. Content-addressed tables first; then `mc_shard_blocks`, which has a row for every masterchain block
 * (its own block at least), BEFORE any other table keyed by masterchain seqno, so that any row of a masterchain block
 * implies its `mc_shard_blocks` rows (deleteIncomplete finds unfinished blocks there alone); `v3_pages` (the
 * block's v3 page in one key-value row, made from the same pieces as `tx_pages`, sql/0131) right after them; `v2_pages` (a key-value table keyed by
 * block, not by masterchain seqno, sql/0132) after `blocks`, so every row of it has its block's `blocks` row, through
 * which deleteIncomplete finds it; `mc_shards_kv` (the masterchain block's blocks and shard tops ready to serve, a
 * key-value row keyed by masterchain seqno, sql/0150) after both tables it is made from; the completion marker strictly
 * last.
 */
export const INSERT_ORDER: ReadonlyArray<TableName> = [
  "message_contents",
  "account_states",
  "mc_shard_blocks",
  "messages",
  "transactions",
  "tx_pages",
  "v3_pages",
  "blocks",
  "latest_account_code",
  "v2_pages",
  "mc_shards_kv",
  "mc_blocks_done"
]

/**
 * Tables whose rows belong to one masterchain block, with the column holding its seqno, in insert order. The first
 * is the anchor: every masterchain block with rows anywhere has rows in it (see INSERT_ORDER).
 */
export const MC_KEYED_TABLES: ReadonlyArray<{ readonly table: TableName; readonly column: string }> = [
  { table: "mc_shard_blocks", column: "mc_seqno" },
  { table: "messages", column: "mc_block_seqno" },
  { table: "transactions", column: "mc_block_seqno" },
  { table: "tx_pages", column: "mc_block_seqno" },
  { table: "blocks", column: "mc_block_seqno" },
  { table: "latest_account_code", column: "mc_seqno" }
]

export const emptyTableRows = (): TableRows => ({
  message_contents: [],
  account_states: [],
  messages: [],
  transactions: [],
  tx_pages: [],
  v3_pages: [],
  blocks: [],
  mc_shard_blocks: [],
  latest_account_code: [],
  v2_pages: [],
  mc_shards_kv: [],
  mc_blocks_done: []
})

/** The parts of a bundle's flattening a caller can time apart (see `flattenBundle`'s `lap`). */
export type FlattenPart = "tx_pages" | "v3_pages" | "v2_pages" | "mc_shards_kv" | "other"

export interface FlattenOptions {
  /**
   * The store keeps the key-value page rows (`v3_pages`, `v2_pages`; single node, not a cluster): `tx_pages` then gets
   * only the pieces of blocks without a `v2_pages` row (see `piecesWithoutV2Row`), since every other page is served
   * from the key-value rows. Off (the default, and a cluster's): every transaction's piece goes to `tx_pages`.
   */
  readonly pageKv?: boolean
  /**
   * The known states of the bundles flattened before (the consumer's, bounded): a `v3_pages` line whose state is not
   * in its own bundle but in these embeds it too, and each bundle's known states are added to them.
   */
  readonly earlierStates?: StateHistory
}

/**
 * The JSON of the newest known states a writer saw (`maxEntries`, the least recently used let go): in the toncenter
 * source a bundle brings each account's state after its last transaction of the block, so the state before its first
 * one is usually the one an earlier bundle brought. Any state kept is right (a state is immutable per hash); one let
 * go only leaves its hash in a line, for the read path to look up.
 */
export class StateHistory {
  private readonly json = new Map<string, string>()
  constructor(readonly maxEntries: number) {}
  get size(): number {
    return this.json.size
  }
  get(hash: string): string | undefined {
    const json = this.json.get(hash)
    if (json !== undefined) {
      this.json.delete(hash)
      this.json.set(hash, json)
    }
    return json
  }
  remember(hash: string, json: string): void {
    this.json.delete(hash)
    this.json.set(hash, json)
    if (this.json.size > this.maxEntries) this.json.delete(this.json.keys().next().value!)
  }
}

/**
 * The pieces `tx_pages` needs beside the key-value rows: those of blocks that got no `v2_pages` row among `v2Rows`
 * (a block whose pieces do not fit the row's shape, src/flatten/v2_pages.ts). Every other piece is in its masterchain
 * block's `v3_pages` row and its block's `v2_pages` row, which the read path answers from. Whole blocks only: a block's
 * pieces are all kept or all left out, so the `tx_pages` fallback of a block without a v2 row reads the whole block.
 */
export const piecesWithoutV2Row = <P extends Pick<TxPageRow, "block_workchain" | "block_shard" | "block_seqno">>(
  pieces: ReadonlyArray<P>,
  v2Rows: ReadonlyArray<Pick<V2PageRow, "block">>
): Array<P> => {
  if (pieces.length === 0) return []
  const served = new Set(v2Rows.map((r) => r.block))
  return pieces.filter(
    (p) => !served.has(v2PageKey(Number(p.block_workchain), String(p.block_shard), Number(p.block_seqno)))
  )
}

/**
 * All rows of one bundle, by table. `lap`, when given, is called after each part is made (the pieces rendered for
 * `tx_pages`, the other tables' rows, the `v3_pages` row, the `v2_pages` rows, the `mc_shards_kv` row), so a caller
 * can time them apart.
 */
export const flattenBundle = (
  b: MasterchainBundle,
  lap?: (part: FlattenPart) => void,
  options: FlattenOptions = {}
): TableRows => withShippedBodies(b, () => flattenRows(b, lap, options))

/**
 * The JSON of each known state among `rows` (hash-only ones are left out: the read path renders them from their hash),
 * else of `earlier` (states of bundles before), made once a hash is asked for, from the row as the read path reads it
 * back from `account_lookups_kv` (sql/0142: the row's fields, extra currencies null exactly when the balance is).
 */
export const knownStateJson = (rows: ReadonlyArray<AccountStateRow>, earlier?: StateHistory): StateJson => {
  const known = new Map<string, AccountStateRow>()
  for (const r of rows) if (r.known === 1) known.set(r.hash, r)
  const made = new Map<string, string>()
  return (hash) => {
    let json = made.get(hash)
    if (json !== undefined) return json
    const r = known.get(hash)
    if (r === undefined) return earlier?.get(hash)
    json = embeddedStateJson(assembleAccountState(r))
    made.set(hash, json)
    return json
  }
}

// The bodies' decodings come from the bundle when it brought them at this build's release (withShippedBodies).
const flattenRows = (
  b: MasterchainBundle,
  lap: ((part: FlattenPart) => void) | undefined,
  options: FlattenOptions
): TableRows => {
  const pages = b.transactions.map(txPageRow)
  lap?.("tx_pages")
  const blocks = [blockRow(b.mc_block), ...b.shard_blocks.map(blockRow)]
  const message_contents = messageContentRows(b.transactions)
  const account_states = accountStateRows(b.account_states)
  const messages = b.transactions.flatMap(messageRows)
  const transactions = b.transactions.map(transactionRow)
  const mc_shard_blocks = mcShardBlockRows(b)
  const latest_account_code = latestAccountCodeRows(b)
  const mc_blocks_done = [mcBlockDoneRow(b)]
  lap?.("other")
  // the known states (the bundle's, the earlier ones kept) go into the row as their JSON: its page's lookups then ask
  // only the other hashes
  const stateJson = knownStateJson(account_states, options.earlierStates)
  const v3_pages = [v3PageRow(b.mc_seqno, pages, stateJson)]
  if (options.earlierStates !== undefined) {
    for (const r of account_states) if (r.known === 1) options.earlierStates.remember(r.hash, stateJson(r.hash)!)
  }
  lap?.("v3_pages")
  const v2_pages = v2PageRows(blocks, pages)
  lap?.("v2_pages")
  const mcShards = mcShardsKvRow(b.mc_seqno, blocks, mc_shard_blocks)
  const mc_shards_kv = mcShards === null ? [] : [mcShards]
  lap?.("mc_shards_kv")
  return {
    message_contents,
    account_states,
    messages,
    transactions,
    tx_pages: options.pageKv === true ? piecesWithoutV2Row(pages, v2_pages) : pages,
    v3_pages,
    blocks,
    mc_shard_blocks,
    latest_account_code,
    v2_pages,
    mc_shards_kv,
    mc_blocks_done
  }
}

/** Receives one row of one table; `flattenBundles` collects them, the sink encodes them as they come. */
export type RowVisitor = <T extends TableName>(table: T, row: TableRows[T][number]) => void

/**
 * Rows of many bundles for one batched insert per table, handed to `visit` bundle by bundle (account states last),
 * so a caller can keep only what it makes of them.
 * Content-addressed rows are deduplicated across the batch;
 * everything else is keyed by masterchain seqno and cannot repeat between distinct bundles.
 */
export const visitBundleRows = (
  bs: Iterable<MasterchainBundle>,
  visit: RowVisitor,
  /**
   * Called around each bundle's flattening (not its visits), so a caller can tell the two costs apart; `lap` after
   * each part of the flattening (see flattenBundle).
   */
  around?: { readonly before: () => void; readonly after: () => void; readonly lap?: (part: FlattenPart) => void },
  options: FlattenOptions = {}
): void => {
  const contentSeen = new Set<string>()
  const states = new Map<string, AccountStateRow>()
  const bundleSeen = new Set<number>()
  for (const b of bs) {
    // A redelivered bundle inside one batch would only add duplicate rows for merges to remove.
    if (bundleSeen.has(b.mc_seqno)) continue
    bundleSeen.add(b.mc_seqno)
    around?.before()
    const r = flattenBundle(b, around?.lap, options)
    around?.after()
    for (const c of r.message_contents) {
      if (!contentSeen.has(c.hash)) {
        contentSeen.add(c.hash)
        visit("message_contents", c)
      }
    }
    for (const s of r.account_states) {
      const prev = states.get(s.hash)
      if (prev === undefined || s.known > prev.known) states.set(s.hash, s)
    }
    for (const row of r.messages) visit("messages", row)
    for (const row of r.transactions) visit("transactions", row)
    for (const row of r.tx_pages) visit("tx_pages", row)
    for (const row of r.v3_pages) visit("v3_pages", row)
    for (const row of r.blocks) visit("blocks", row)
    for (const row of r.mc_shard_blocks) visit("mc_shard_blocks", row)
    for (const row of r.latest_account_code) visit("latest_account_code", row)
    for (const row of r.v2_pages) visit("v2_pages", row)
    for (const row of r.mc_shards_kv) visit("mc_shards_kv", row)
    for (const row of r.mc_blocks_done) visit("mc_blocks_done", row)
  }
  for (const s of states.values()) visit("account_states", s)
}

/** All rows of many bundles, by table (see visitBundleRows). */
export const flattenBundles = (bs: ReadonlyArray<MasterchainBundle>, options: FlattenOptions = {}): TableRows => {
  const out = emptyTableRows()
  visitBundleRows(bs, (table, row) => (out[table] as Array<typeof row>).push(row), undefined, options)
  return out
}
