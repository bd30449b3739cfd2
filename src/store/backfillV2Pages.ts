/**
 * Fills and clears `v2_pages` (sql/0132), the key-value copy of each block's v2 page derived from `tx_pages` and
 * `blocks`, for stores written before it and around re-renders of `tx_pages`. Rows are made by the consumer's own
 * function (`v2PageRows`) from the stored pieces, so a filled row equals the row the consumer would have written.
 * Invariants: a row is only ever written whole (an upsert by block key, so repeating a fill changes nothing); a block
 * whose masterchain block's pieces are missing (dropped for a re-render) gets no row, so the read path answers it from
 * `tx_pages` as before; whoever drops or re-renders pieces deletes the blocks' rows first (`deleteV2Pages`) and fills
 * them again after (on a single node the page render writes them straight from the row tables, ./backfillPages.ts),
 * so a stale row is never served. Since sql/0137 a single node keeps `tx_pages` rows only for blocks without a v2 row,
 * so this fill matters for stores written before 0132 (which hold every piece). Not used on a cluster (the
 * table is per node there).
 */
import type { ClickHouseClient } from "@clickhouse/client"
import { type V2PageBlock, type V2PagePiece, type V2PageRow, v2PageKey, v2PageRows } from "../flatten/v2_pages.js"
import { fillPageRows, rows, type PageRowFillOptions } from "./pageRowFill.js"
import { strArray, uint32Array } from "./sql.js"

/** The row key of `blocks` rows as SQL (v2PageKey's text: the shard's Int64 prints as a signed decimal). */
const BLOCK_KEY_SQL = "concat(toString(workchain), ':', toString(shard), ':', toString(seqno))"

/** Deletes the `v2_pages` rows of every block of these masterchain blocks (found through their `blocks` rows). */
export const deleteV2Pages = async (client: ClickHouseClient, mcSeqnos: ReadonlyArray<number>): Promise<void> => {
  if (mcSeqnos.length === 0) return
  await client.command({
    query: `DELETE FROM v2_pages WHERE block IN
            (SELECT ${BLOCK_KEY_SQL} FROM blocks WHERE mc_block_seqno IN ${uint32Array([...new Set(mcSeqnos)])})`
  })
}

/**
 * Writes the rows of the blocks of these masterchain blocks from their stored pieces: every block (`rebuild`), or
 * only those without a row. Returns how many rows were written.
 */
const fill = async (client: ClickHouseClient, mcSeqnos: ReadonlyArray<number>, rebuild: boolean): Promise<number> => {
  if (mcSeqnos.length === 0) return 0
  let blocks = await rows<V2PageBlock & { readonly tx_count: number }>(
    client,
    `SELECT workchain, toString(shard) AS shard, seqno, toString(root_hash) AS root_hash,
            toString(file_hash) AS file_hash, mc_block_seqno, tx_count
     FROM blocks FINAL WHERE mc_block_seqno IN ${uint32Array(mcSeqnos)}`
  )
  if (!rebuild && blocks.length > 0) {
    const have = new Set(
      (
        await rows<{ block: string }>(
          client,
          `SELECT block FROM v2_pages WHERE block IN ${strArray(blocks.map((b) => v2PageKey(b.workchain, b.shard, b.seqno)))}`
        )
      ).map((r) => r.block)
    )
    blocks = blocks.filter((b) => !have.has(v2PageKey(b.workchain, b.shard, b.seqno)))
  }
  if (blocks.length === 0) return 0
  const pieces = await rows<V2PagePiece>(
    client,
    `SELECT block_workchain, toString(block_shard) AS block_shard, block_seqno, account, toString(lt) AS lt, v2
     FROM tx_pages FINAL WHERE mc_block_seqno IN ${uint32Array([...new Set(blocks.map((b) => Number(b.mc_block_seqno)))])}`
  )
  const withPieces = new Set(
    pieces.map((p) => v2PageKey(Number(p.block_workchain), String(p.block_shard), Number(p.block_seqno)))
  )
  // A block with transactions but no pieces: its masterchain block's pieces are not rendered (yet); no row for it.
  const ready = blocks.filter(
    (b) => Number(b.tx_count) === 0 || withPieces.has(v2PageKey(b.workchain, b.shard, b.seqno))
  )
  const values: Array<V2PageRow> = v2PageRows(ready, pieces)
  if (values.length > 0) await client.insert({ table: "v2_pages", values, format: "JSONEachRow" })
  return values.length
}

export interface BackfillV2PagesOptions extends PageRowFillOptions {
  /** Masterchain blocks per statement. Default 200. */
  readonly batchBlocks?: number
}

/**
 * Writes the rows of `seqnos` anew, then fills the rows missing for done masterchain blocks past the stored progress
 * (`v2_pages_backfill`), in ascending batches, recording the progress after each: resumable, and at a start after
 * the first fill it looks only at the blocks stored since (which the consumer has written rows for). Safe beside a
 * running consumer. Returns the number of rows written.
 */
export const backfillV2Pages = async (
  client: ClickHouseClient,
  options: BackfillV2PagesOptions = {}
): Promise<number> =>
  fillPageRows(client, "v2_pages_backfill", (mcSeqnos, rebuild) => fill(client, mcSeqnos, rebuild), {
    ...options,
    batchBlocks: options.batchBlocks ?? 200
  })
