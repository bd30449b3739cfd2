/**
 * Fills `tx_pages` (sql/0100) for masterchain blocks stored before it existed: every done block that has
 * transactions but no pieces is read back through the record path (ClickHouseTxStore), rendered by `txPageRow` and
 * inserted, a few blocks per statement. Idempotent and safe beside a running consumer: the consumer writes a block's
 * pieces before its completion marker, so a done block without pieces can only be history, and a block's pieces are
 * inserted by one statement (one part), so a reader sees all of them or none (and then answers from records).
 */
import type { ClickHouseClient } from "@clickhouse/client"
import { readSettings, ClickHouseTxStore } from "./Store.js"
import { txPageRow, type TxPageRow } from "./pages.js"

export interface BackfillPagesOptions {
  /** Masterchain seqnos compared per lookup (bounds the anti-join's memory). Default 1,000,000. */
  readonly rangeSize?: number
  /** Transactions per insert statement (whole blocks; at least one block). Default 20,000. */
  readonly batchTxs?: number
  readonly onProgress?: (p: { readonly blocks: number; readonly transactions: number }) => void
}

const rows = async <T>(client: ClickHouseClient, query: string): Promise<Array<T>> =>
  (await client.query({ query, format: "JSONEachRow", clickhouse_settings: readSettings })).json<T>()

/** Done masterchain seqnos with transactions but no `tx_pages` rows, ascending. */
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

/** Returns the masterchain seqnos whose pieces were written. */
export const backfillTxPages = async (
  client: ClickHouseClient,
  options: BackfillPagesOptions = {}
): Promise<Array<number>> => {
  const seqnos = await blocksWithoutPages(client, options.rangeSize)
  const store = new ClickHouseTxStore(client)
  const limit = options.batchTxs ?? 20_000
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
