/**
 * Start-up (and retry) cleanup for the consumer: removes every row of masterchain blocks that have no completion
 * marker (a batch cut short), so re-inserting them starts from nothing. Unfinished blocks are found in the anchor
 * table alone (`mc_shard_blocks`, written before every other masterchain-keyed table) and deleted from the others
 * first, the anchor last, so an interrupted cleanup is found again by the next one. Content-addressed tables
 * (message_contents, account_states) are left alone: identical whoever writes them, unreachable unless referenced.
 * With several sinks in one consumer group each cleans only the masterchain blocks of the bundle-topic partitions it
 * owns (`scope`), and a marker that a former owner wrote while the rows were being deleted is taken back with them.
 */
import type { ClickHouseClient } from "@clickhouse/client"
import { localName } from "../clickhouse/cluster.js"
import { MC_KEYED_TABLES } from "../flatten/bundle.js"
import { deleteV3Pages } from "../store/backfillV3Pages.js"
import { deleteV2Pages } from "../store/backfillV2Pages.js"
import { deleteMcShards } from "../store/backfillMcShards.js"

export interface DeleteIncompleteOptions {
  /** Only masterchain seqnos >= this are examined (bounds the scan). Default 0. */
  readonly fromSeqno?: number
  /** Seqnos compared per query: bounds the memory of the anti-join on a long history. Default 1,000,000. */
  readonly rangeSize?: number
  /** Only blocks of these partitions of the bundle topic (block s is in partition s mod `count`). */
  readonly scope?: PartitionScope
  /** CLICKHOUSE_CLUSTER: deletes then run on each shard's local table (a distributed table takes no DELETE). */
  readonly cluster?: string
}

/** The partitions of the bundle topic a sink owns now, out of `count`. */
export interface PartitionScope {
  readonly count: number
  readonly owned: ReadonlyArray<number>
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
  const scope = options.scope
  if (scope !== undefined && scope.owned.length === 0) return []
  const inScope = scope === undefined ? "" : ` AND ${column} % {pc:UInt32} IN {po:Array(UInt32)}`
  const scopeParams = scope === undefined ? {} : { pc: scope.count, po: scope.owned }
  // Only ranges that hold rows at all: a history with gaps (parallel backfills) costs nothing for the gaps.
  const ranges = await rows<{ r: number | string }>(
    client,
    `SELECT DISTINCT intDiv(${column}, {step:UInt32}) AS r FROM ${table} WHERE ${column} >= {from:UInt32}${inScope} ORDER BY r`,
    { from: options.fromSeqno ?? 0, step, ...scopeParams }
  )
  const found: Array<number> = []
  for (const { r } of ranges) {
    const lo = Math.max(Number(r) * step, options.fromSeqno ?? 0)
    const hi = Number(r) * step + step - 1
    const page = await rows<{ s: number | string }>(
      client,
      `SELECT DISTINCT ${column} AS s FROM ${table}
       WHERE ${column} BETWEEN {lo:UInt32} AND {hi:UInt32}${inScope}
         AND ${column} NOT IN (SELECT mc_seqno FROM mc_blocks_done WHERE mc_seqno BETWEEN {lo:UInt32} AND {hi:UInt32})
       ORDER BY s`,
      { lo, hi, ...scopeParams }
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
  await deleteRows(client, seqnos, options.cluster)
  // A former owner of these blocks (a sink that lost its partitions to a rebalance while writing) may have put a
  // marker down between the search and the deletes: that block is now marked but gutted. Take the marker back and
  // delete again, so the new owner, whose committed offset is before the block, writes it whole.
  const marked = await rows<{ s: number | string }>(
    client,
    "SELECT DISTINCT mc_seqno AS s FROM mc_blocks_done WHERE mc_seqno IN {l:Array(UInt32)}",
    { l: seqnos }
  )
  if (marked.length > 0) {
    const gutted = marked.map((r) => Number(r.s))
    await client.command({
      query: `DELETE FROM ${target("mc_blocks_done", options.cluster)} WHERE mc_seqno IN {l:Array(UInt32)}`,
      query_params: { l: gutted },
      clickhouse_settings: { lightweight_deletes_sync: "2" }
    })
    await deleteRows(client, gutted, options.cluster)
  }
  return seqnos
}

const target = (table: string, cluster: string | undefined) =>
  cluster ? `${localName(table)} ON CLUSTER ${cluster}` : table

const deleteRows = async (client: ClickHouseClient, seqnos: ReadonlyArray<number>, cluster?: string): Promise<void> => {
  // The key-value rows first (sql/0131, sql/0132, sql/0150; none on a cluster); v2 rows are found through the
  // `blocks` rows deleted below.
  if (cluster === undefined) {
    await deleteV3Pages(client, seqnos)
    await deleteV2Pages(client, seqnos)
    await deleteMcShards(client, seqnos)
  }
  // Lightweight deletes wait for completion (lightweight_deletes_sync = 2), so callers may insert right after.
  for (const { table, column } of [...DEPENDENTS].reverse().concat(ANCHOR!)) {
    await client.command({
      query: `DELETE FROM ${target(table, cluster)} WHERE ${column} IN {l:Array(UInt32)}`,
      query_params: { l: seqnos },
      clickhouse_settings: { lightweight_deletes_sync: "2" }
    })
  }
}
