/**
 * Start-up (and retry) cleanup for the consumer: removes every row of masterchain blocks that have no completion
 * marker (a batch cut short), so re-inserting them starts from nothing. Unfinished blocks are found in the anchor
 * table alone (`mc_shard_blocks`, written before every other masterchain-keyed table) and deleted from the others
 * first, the anchor last, so an interrupted cleanup is found again by the next one. Content-addressed tables
 * (message_contents, account_states) are left alone: identical whoever writes them, unreachable unless referenced.
 */
import type { ClickHouseClient } from "@clickhouse/client"
import { MC_KEYED_TABLES } from "../flatten/bundle.js"

export interface DeleteIncompleteOptions {
  /** Only masterchain seqnos >= this are examined (bounds the scan). Default 0. */
  readonly fromSeqno?: number
  /** Seqnos compared per query: bounds the memory of the anti-join on a long history. Default 1,000,000. */
  readonly rangeSize?: number
}

const [ANCHOR, ...DEPENDENTS] = MC_KEYED_TABLES

const rows = async <T>(client: ClickHouseClient, query: string, query_params: Record<string, unknown>) =>
  (await client.query({ query, query_params, format: "JSONEachRow" })).json<T>()

/** Masterchain seqnos with rows but no completion marker, ascending. */
export const findIncomplete = async (
  client: ClickHouseClient,
  options: DeleteIncompleteOptions = {}
): Promise<Array<number>> => {
  const { table, column } = ANCHOR!
  const step = options.rangeSize ?? 1_000_000
  // Only ranges that hold rows at all: a history with gaps (parallel backfills) costs nothing for the gaps.
  const ranges = await rows<{ r: number | string }>(
    client,
    `SELECT DISTINCT intDiv(${column}, {step:UInt32}) AS r FROM ${table} WHERE ${column} >= {from:UInt32} ORDER BY r`,
    { from: options.fromSeqno ?? 0, step }
  )
  const found: Array<number> = []
  for (const { r } of ranges) {
    const lo = Math.max(Number(r) * step, options.fromSeqno ?? 0)
    const hi = Number(r) * step + step - 1
    const page = await rows<{ s: number | string }>(
      client,
      `SELECT DISTINCT ${column} AS s FROM ${table}
       WHERE ${column} BETWEEN {lo:UInt32} AND {hi:UInt32}
         AND ${column} NOT IN (SELECT mc_seqno FROM mc_blocks_done WHERE mc_seqno BETWEEN {lo:UInt32} AND {hi:UInt32})
       ORDER BY s`,
      { lo, hi }
    )
    for (const x of page) found.push(Number(x.s))
  }
  return found
}

/** Returns the masterchain seqnos whose rows were removed, ascending. */
export const deleteIncomplete = async (
  client: ClickHouseClient,
  options: DeleteIncompleteOptions = {}
): Promise<Array<number>> => {
  const seqnos = await findIncomplete(client, options)
  if (seqnos.length === 0) return seqnos
  // Lightweight deletes wait for completion (lightweight_deletes_sync = 2), so callers may insert right after.
  for (const { table, column } of [...DEPENDENTS].reverse().concat(ANCHOR!)) {
    await client.command({
      query: `DELETE FROM ${table} WHERE ${column} IN {l:Array(UInt32)}`,
      query_params: { l: seqnos },
      clickhouse_settings: { lightweight_deletes_sync: "2" }
    })
  }
  return seqnos
}
