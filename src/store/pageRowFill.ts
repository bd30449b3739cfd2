/**
 * The resumable walk both key-value page fills share (`v3_pages`, sql/0131; `v2_pages`, sql/0132): the rows of
 * masterchain blocks whose pieces were just rendered again are written anew first, then the done masterchain blocks
 * past the fill's recorded progress (its one-row progress table) are handed to the table's own `fill` in ascending
 * batches, the progress recorded after each. Invariant: progress is recorded only past batches whose rows were
 * written, so a stopped fill resumes where it stopped and a repeated one changes nothing.
 */
import type { ClickHouseClient } from "@clickhouse/client"
import { str } from "./sql.js"
import { readSettings } from "./Store.js"

/** A read as JSON rows, with the settings every read needs. */
export const rows = async <T>(client: ClickHouseClient, query: string): Promise<Array<T>> =>
  (await client.query({ query, format: "JSONEachRow", clickhouse_settings: readSettings })).json<T>()

/** Whether `table` holds a row whose `column` is `key`: a key-value table's filled marker (its row with that key). */
export const keyStored = async (
  client: ClickHouseClient,
  table: string,
  column: string,
  key: string
): Promise<boolean> => {
  const [r] = await rows<{ n: string }>(client, `SELECT count() AS n FROM ${table} WHERE ${column} = ${str(key)}`)
  return r !== undefined && r.n !== "0"
}

export interface PageRowFillOptions {
  /** Masterchain blocks whose pieces were just rendered again: their rows are written anew first. */
  readonly seqnos?: ReadonlyArray<number>
  /** Masterchain blocks per statement. */
  readonly batchBlocks?: number
  readonly onProgress?: (p: { readonly through: number; readonly rows: number }) => void
  /** Stops between batches once aborted (the progress is recorded, the next fill resumes there). */
  readonly signal?: AbortSignal
}

/**
 * Runs `fill` (which writes the rows of the given masterchain blocks: all of them when `rebuild`, else only those
 * without a row, and returns how many it wrote) over `seqnos`, then over every done masterchain block past the
 * progress kept in `progressTable` (`id = 0`, `through`; -1 before the first fill). Returns the rows written.
 */
export const fillPageRows = async (
  client: ClickHouseClient,
  progressTable: string,
  fill: (mcSeqnos: ReadonlyArray<number>, rebuild: boolean) => Promise<number>,
  options: PageRowFillOptions & { readonly batchBlocks: number }
): Promise<number> => {
  const per = Math.max(1, options.batchBlocks)
  let written = 0
  const again = [...new Set(options.seqnos ?? [])].sort((a, b) => a - b)
  for (let i = 0; i < again.length; i += per) written += await fill(again.slice(i, i + per), true)
  const [progress] = await rows<{ through: number }>(client, `SELECT through FROM ${progressTable} WHERE id = 0`)
  let through = progress === undefined ? -1 : Number(progress.through)
  while (options.signal?.aborted !== true) {
    const batch = (
      await rows<{ s: number }>(
        client,
        `SELECT DISTINCT mc_seqno AS s FROM mc_blocks_done WHERE mc_seqno > ${through} ORDER BY s LIMIT ${per}`
      )
    ).map((r) => Number(r.s))
    if (batch.length === 0) break
    written += await fill(batch, false)
    through = batch[batch.length - 1]!
    await client.insert({ table: progressTable, values: [{ id: 0, through }], format: "JSONEachRow" })
    options.onProgress?.({ through, rows: written })
  }
  return written
}
