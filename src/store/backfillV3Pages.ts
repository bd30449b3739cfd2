/**
 * Fills and clears `v3_pages` (sql/0131), the key-value copy of each masterchain block's v3 page derived from
 * `tx_pages`, for stores written before it and around re-renders of `tx_pages`. Rows are made by the consumer's own
 * function (`v3PageRow`) from the stored pieces, so a filled row equals the row the consumer would have written.
 * Invariants: a row is only ever written whole (an upsert by key, so repeating a fill changes nothing); a done block
 * whose pieces are missing (not rendered yet, or dropped for a re-render) gets no row, so the read path answers it
 * from `tx_pages` or the row tables as before; whoever drops or renders again a block's pieces deletes its row first
 * (`deleteV3Pages`) and writes it again after (on a single node the page render writes it straight from the row
 * tables, ./backfillPages.ts), so a stale row is never served. Since sql/0137 a single node keeps `tx_pages` rows only
 * for blocks without a v2 row, so this fill matters for stores written before 0131 (which hold every piece). Not
 * used on a cluster (the table is per node there).
 */
import type { ClickHouseClient } from "@clickhouse/client"
import { type V3PagePiece, type V3PageRow, v3PageRow } from "../flatten/v3_pages.js"
import { fillPageRows, rows, type PageRowFillOptions } from "./pageRowFill.js"
import { uint32Array } from "./sql.js"

/** Deletes the `v3_pages` rows of these masterchain blocks. */
export const deleteV3Pages = async (client: ClickHouseClient, mcSeqnos: ReadonlyArray<number>): Promise<void> => {
  if (mcSeqnos.length === 0) return
  await client.command({
    query: `DELETE FROM v3_pages WHERE mc_block_seqno IN ${uint32Array([...new Set(mcSeqnos)])}`
  })
}

/**
 * Writes the rows of these done masterchain blocks from their stored pieces: every one (`rebuild`), or only those
 * without a row. A block is written only when its pieces are all there (as many as its marker's transactions).
 * Returns how many rows were written.
 */
const fill = async (client: ClickHouseClient, mcSeqnos: ReadonlyArray<number>, rebuild: boolean): Promise<number> => {
  if (mcSeqnos.length === 0) return 0
  let done = (
    await rows<{ s: number; n: number }>(
      client,
      `SELECT mc_seqno AS s, max(tx_count) AS n FROM mc_blocks_done WHERE mc_seqno IN ${uint32Array(mcSeqnos)} GROUP BY s`
    )
  ).map((r) => ({ s: Number(r.s), n: Number(r.n) }))
  if (!rebuild && done.length > 0) {
    const have = new Set(
      (
        await rows<{ s: number }>(
          client,
          `SELECT mc_block_seqno AS s FROM v3_pages WHERE mc_block_seqno IN ${uint32Array(done.map((d) => d.s))}`
        )
      ).map((r) => Number(r.s))
    )
    done = done.filter((d) => !have.has(d.s))
  }
  const withTxs = done.filter((d) => d.n > 0).map((d) => d.s)
  const pieces = new Map<number, Array<V3PagePiece>>()
  if (withTxs.length > 0) {
    for (const p of await rows<V3PagePiece & { mc_block_seqno: number }>(
      client,
      `SELECT mc_block_seqno, account, toString(lt) AS lt, toString(state_before) AS state_before,
              toString(state_after) AS state_after, book, v3
       FROM tx_pages FINAL WHERE mc_block_seqno IN ${uint32Array(withTxs)}`
    )) {
      const s = Number(p.mc_block_seqno)
      const list = pieces.get(s)
      if (list === undefined) pieces.set(s, [p])
      else list.push(p)
    }
  }
  const values: Array<V3PageRow> = []
  for (const d of done) {
    const list = pieces.get(d.s) ?? []
    // pieces not rendered (yet): no row, the block is answered as before
    if (list.length === d.n) values.push(v3PageRow(d.s, list))
  }
  if (values.length > 0) await client.insert({ table: "v3_pages", values, format: "JSONEachRow" })
  return values.length
}

export interface BackfillV3PagesOptions extends PageRowFillOptions {
  /** Masterchain blocks per statement. Default 100. */
  readonly batchBlocks?: number
}

/**
 * Writes the rows of `seqnos` anew, then fills the rows missing for done masterchain blocks past the stored progress
 * (`v3_pages_backfill`), in ascending batches, recording the progress after each: resumable, and at a start after
 * the first fill it looks only at the blocks stored since (which the consumer has written rows for). Safe beside a
 * running consumer (which writes a block's row before its marker). Returns the number of rows written.
 */
export const backfillV3Pages = async (
  client: ClickHouseClient,
  options: BackfillV3PagesOptions = {}
): Promise<number> =>
  fillPageRows(client, "v3_pages_backfill", (mcSeqnos, rebuild) => fill(client, mcSeqnos, rebuild), {
    ...options,
    batchBlocks: options.batchBlocks ?? 100
  })
