/**
 * Start-up cleanup for the consumer: removes every row of masterchain blocks that have no completion marker (a
 * batch cut short by a crash), so re-inserting them starts from nothing. Content-addressed tables (message_contents,
 * account_states) are left alone: their rows are identical whoever writes them and unreachable unless referenced.
 */
import type { ClickHouseClient } from "@clickhouse/client"
import { MC_KEYED_TABLES } from "../flatten/bundle.js"

export interface DeleteIncompleteOptions {
  /** Only masterchain seqnos >= this are examined (bounds the scan on a large database). Default 0. */
  readonly fromSeqno?: number
}

/** Returns the masterchain seqnos whose rows were removed, ascending. */
export const deleteIncomplete = async (
  client: ClickHouseClient,
  options: DeleteIncompleteOptions = {}
): Promise<Array<number>> => {
  const from = options.fromSeqno ?? 0
  const found = new Set<number>()
  for (const { table, column } of MC_KEYED_TABLES) {
    const rs = await client.query({
      query: `SELECT DISTINCT ${column} AS s FROM ${table}
              WHERE ${column} >= {from:UInt32}
                AND ${column} NOT IN (SELECT mc_seqno FROM mc_blocks_done WHERE mc_seqno >= {from:UInt32})`,
      query_params: { from },
      format: "JSONEachRow"
    })
    for (const r of await rs.json<{ s: number }>()) found.add(Number(r.s))
  }
  const seqnos = [...found].sort((a, b) => a - b)
  if (seqnos.length === 0) return seqnos
  // Lightweight deletes wait for completion by default (lightweight_deletes_sync = 2), so callers may insert next.
  for (const { table, column } of MC_KEYED_TABLES) {
    await client.command({
      query: `DELETE FROM ${table} WHERE ${column} IN {l:Array(UInt32)}`,
      query_params: { l: seqnos },
      clickhouse_settings: { lightweight_deletes_sync: "2" }
    })
  }
  return seqnos
}
