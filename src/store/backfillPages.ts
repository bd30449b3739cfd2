/**
 * Renders the pre-rendered pages of done masterchain blocks that have none: blocks stored before `tx_pages` existed
 * (sql/0100), and blocks whose pages were dropped for a re-render (sql/0111, sql/0130, the re-decode). Every such block
 * is read back through the record path (ClickHouseTxStore) and rendered by `txPageRow`, a few blocks per statement.
 *
 * Where the pages go depends on the store, as the consumer's writes do (src/flatten/bundle.ts, `pageKv`):
 * - on a cluster (no key-value page tables), to `tx_pages`; a block needs rendering when it has transactions and no
 *   `tx_pages` rows (`blocksWithoutPages`);
 * - on a single node, to the key-value rows (`v3_pages`, `v2_pages`) directly, and to `tx_pages` only the pieces of
 *   blocks that get no `v2_pages` row. A block needs rendering when it has transactions, no `tx_pages` rows and no
 *   `v3_pages` row; since that lookup reads key-value rows, the done blocks are walked once, past a recorded progress
 *   (`tx_pages_backfill`, sql/0137), which whoever drops pages lowers first (`lowerRenderProgress`).
 *
 * Invariants: idempotent and safe beside a running consumer (the consumer writes a block's pages before its completion
 * marker, so a done block without pages can only be history or dropped). On a single node a block's rows are written
 * v2 rows, then the v3 row, then its `tx_pages` pieces: a masterchain block without a `v3_pages` row never has
 * part of its `tx_pages` rows (the v3 read path would take them for the whole page), a block's pieces go in one
 * statement (all or none), and an interruption before the v3 row leaves the block to be found again.
 */
import type { ClickHouseClient } from "@clickhouse/client"
import { piecesWithoutV2Row } from "../flatten/bundle.js"
import { type V2PageBlock, type V2PageRow, v2PageRows } from "../flatten/v2_pages.js"
import { type V3PageRow, v3PageRow } from "../flatten/v3_pages.js"
import { embedV3StatesOf } from "./embedV3States.js"
import { fillPageRows } from "./pageRowFill.js"
import { readSettings, ClickHouseTxStore } from "./Store.js"
import { txPageRow, type TxPageRow } from "./pages.js"
import { uint32Array } from "./sql.js"

export interface BackfillPagesOptions {
  /** Masterchain seqnos compared per lookup (bounds the anti-join's memory; cluster). Default 1,000,000. */
  readonly rangeSize?: number
  /** Transactions per insert statement (whole blocks; at least one block). Default 20,000. */
  readonly batchTxs?: number
  /**
   * A single node's store (the key-value page tables are written and read): pages go to the key-value rows, and
   * `tx_pages` gets only what they cannot serve. Off on a cluster.
   */
  readonly pageKv?: boolean
  /** Single node: masterchain blocks whose pages were dropped: rendered first, whatever the progress. */
  readonly seqnos?: ReadonlyArray<number>
  /** Single node: masterchain blocks looked at per batch of the walk. Default 100. */
  readonly batchBlocks?: number
  /** Single node: stops between batches once aborted (the progress is recorded, the next fill resumes there). */
  readonly signal?: AbortSignal
  readonly onProgress?: (p: { readonly blocks: number; readonly transactions: number }) => void
}

const rows = async <T>(client: ClickHouseClient, query: string): Promise<Array<T>> =>
  (await client.query({ query, format: "JSONEachRow", clickhouse_settings: readSettings })).json<T>()

/** Done masterchain seqnos with transactions but no `tx_pages` rows, ascending (what a cluster renders). */
export const blocksWithoutPages = async (client: ClickHouseClient, rangeSize = 1_000_000): Promise<Array<number>> => {
  const ranges = await rows<{ r: number }>(
    client,
    `SELECT DISTINCT intDiv(mc_seqno, ${rangeSize}) AS r FROM mc_blocks_done WHERE tx_count > 0 ORDER BY r`
  )
  const found: Array<number> = []
  for (const { r } of ranges) {
    const lo = Number(r) * rangeSize
    const hi = lo + rangeSize - 1
    const page = await rows<{ s: number }>(
      client,
      `SELECT DISTINCT mc_block_seqno AS s FROM transactions
       WHERE mc_block_seqno BETWEEN ${lo} AND ${hi}
         AND mc_block_seqno IN (SELECT mc_seqno FROM mc_blocks_done WHERE mc_seqno BETWEEN ${lo} AND ${hi})
         AND mc_block_seqno NOT IN (SELECT DISTINCT mc_block_seqno FROM tx_pages WHERE mc_block_seqno BETWEEN ${lo} AND ${hi})
       ORDER BY s`
    )
    for (const x of page) found.push(Number(x.s))
  }
  return found
}

/**
 * Single node: the render walk (`tx_pages_backfill`) looks again at every done masterchain block from `mcSeqno` on.
 * Called before a block's pages are dropped, so an interruption between the drop and the render leaves it findable.
 */
export const lowerRenderProgress = async (client: ClickHouseClient, mcSeqno: number): Promise<void> => {
  const [p] = await rows<{ through: number }>(client, "SELECT through FROM tx_pages_backfill WHERE id = 0")
  if (p === undefined || Number(p.through) < mcSeqno) return
  if (mcSeqno === 0) await client.command({ query: "DELETE FROM tx_pages_backfill WHERE id = 0" })
  else
    await client.insert({
      table: "tx_pages_backfill",
      values: [{ id: 0, through: mcSeqno - 1 }],
      format: "JSONEachRow"
    })
}

/** A masterchain block's rendered pages as a single node stores them. */
export interface KvPages {
  readonly v3: V3PageRow
  readonly v2: Array<V2PageRow>
  /** The pieces of blocks without a `v2_pages` row (usually none). */
  readonly pieces: Array<TxPageRow>
}

/** The rows of a masterchain block's pages from its pieces and its blocks (as the consumer makes them). */
export const kvPages = (
  mcSeqno: number,
  pieces: ReadonlyArray<TxPageRow>,
  blocks: ReadonlyArray<V2PageBlock>
): KvPages => {
  const v2 = v2PageRows(blocks, pieces)
  return { v3: v3PageRow(mcSeqno, pieces), v2, pieces: piecesWithoutV2Row(pieces, v2) }
}

/** Single node: renders these done masterchain blocks (all, or only those without any pages) into their rows. */
const renderKv = async (
  client: ClickHouseClient,
  store: ClickHouseTxStore,
  mcSeqnos: ReadonlyArray<number>,
  rebuild: boolean,
  limit: number,
  count: { blocks: number; transactions: number },
  options: BackfillPagesOptions
): Promise<Array<number>> => {
  if (mcSeqnos.length === 0) return []
  let todo = (
    await rows<{ s: number; n: number }>(
      client,
      `SELECT mc_seqno AS s, max(tx_count) AS n FROM mc_blocks_done WHERE mc_seqno IN ${uint32Array(mcSeqnos)} GROUP BY s`
    )
  ).map((r) => ({ s: Number(r.s), n: Number(r.n) }))
  if (!rebuild) {
    // Blocks without transactions have their (empty) pages answered from the row tables until the key-value fills
    // write them; a block with `tx_pages` rows is left to those fills too (they derive the rows from its pieces).
    todo = todo.filter((d) => d.n > 0)
    if (todo.length === 0) return []
    const list = uint32Array(todo.map((d) => d.s))
    const have = new Set(
      [
        ...(await rows<{ s: number }>(
          client,
          `SELECT DISTINCT mc_block_seqno AS s FROM tx_pages WHERE mc_block_seqno IN ${list}`
        )),
        ...(await rows<{ s: number }>(
          client,
          `SELECT mc_block_seqno AS s FROM v3_pages WHERE mc_block_seqno IN ${list}`
        ))
      ].map((r) => Number(r.s))
    )
    todo = todo.filter((d) => !have.has(d.s))
  }
  if (todo.length === 0) return []
  const seqnos = todo.map((d) => d.s)
  const blocks = await rows<V2PageBlock>(
    client,
    `SELECT workchain, toString(shard) AS shard, seqno, toString(root_hash) AS root_hash,
            toString(file_hash) AS file_hash, mc_block_seqno
     FROM blocks FINAL WHERE mc_block_seqno IN ${uint32Array(seqnos)}`
  )
  const blocksOf = new Map<number, Array<V2PageBlock>>()
  for (const b of blocks) {
    const s = Number(b.mc_block_seqno)
    const list = blocksOf.get(s)
    if (list === undefined) blocksOf.set(s, [b])
    else list.push(b)
  }
  let v2: Array<V2PageRow> = []
  let v3: Array<V3PageRow> = []
  let pieces: Array<TxPageRow> = []
  let txs = 0
  // v2 rows, then v3 rows, then the pieces without a v2 row (see the invariants above).
  const flush = async () => {
    if (v2.length > 0) await client.insert({ table: "v2_pages", values: v2, format: "JSONEachRow" })
    if (v3.length > 0) await client.insert({ table: "v3_pages", values: v3, format: "JSONEachRow" })
    if (pieces.length > 0) await client.insert({ table: "tx_pages", values: pieces, format: "JSONEachRow" })
    count.transactions += txs
    v2 = []
    v3 = []
    pieces = []
    txs = 0
    options.onProgress?.({ ...count })
  }
  for (const d of todo) {
    const records =
      d.n === 0 ? [] : await store.transactionsByMcSeqno(d.s, { limit: 0xffffffff, offset: 0, sort: "asc" })
    // A block's rows never straddle two batches: flush before a block that would overflow the batch.
    if (txs > 0 && txs + records.length > limit) await flush()
    const p = kvPages(d.s, records.map(txPageRow), blocksOf.get(d.s) ?? [])
    v3.push(p.v3)
    v2.push(...p.v2)
    pieces.push(...p.pieces)
    txs += records.length
    count.blocks++
  }
  await flush()
  // the rows' known states embedded, as the consumer's rows have them (./embedV3States.ts)
  for (let i = 0; i < seqnos.length; i += 50) await embedV3StatesOf(client, seqnos.slice(i, i + 50))
  return seqnos
}

/** Returns the masterchain seqnos whose pages were rendered. */
export const backfillTxPages = async (
  client: ClickHouseClient,
  options: BackfillPagesOptions = {}
): Promise<Array<number>> => {
  const store = new ClickHouseTxStore(client)
  const limit = options.batchTxs ?? 20_000
  if (options.pageKv === true) {
    const rendered: Array<number> = []
    const count = { blocks: 0, transactions: 0 }
    await fillPageRows(
      client,
      "tx_pages_backfill",
      async (mcSeqnos, rebuild) => {
        const done = await renderKv(client, store, mcSeqnos, rebuild, limit, count, options)
        rendered.push(...done)
        return done.length
      },
      {
        ...(options.seqnos === undefined ? {} : { seqnos: options.seqnos }),
        ...(options.signal === undefined ? {} : { signal: options.signal }),
        batchBlocks: options.batchBlocks ?? 100
      }
    )
    return [...new Set(rendered)].sort((a, b) => a - b)
  }
  const seqnos = await blocksWithoutPages(client, options.rangeSize)
  let batch: Array<TxPageRow> = []
  let transactions = 0
  let blocks = 0
  const flush = async () => {
    if (batch.length === 0) return
    await client.insert({ table: "tx_pages", values: batch, format: "JSONEachRow" })
    transactions += batch.length
    batch = []
    options.onProgress?.({ blocks, transactions })
  }
  for (const seqno of seqnos) {
    const txs = await store.transactionsByMcSeqno(seqno, { limit: 0xffffffff, offset: 0, sort: "asc" })
    // A block's rows never straddle two statements: flush before a block that would overflow the batch.
    if (batch.length > 0 && batch.length + txs.length > limit) await flush()
    for (const tx of txs) batch.push(txPageRow(tx))
    blocks++
  }
  await flush()
  return seqnos
}
