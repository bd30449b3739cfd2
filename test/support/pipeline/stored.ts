// What ClickHouse holds after ingestion, read the way a test compares runs: sorted lists, so "identical" means
// nothing lost and nothing duplicated (duplicates would show up as repeated entries, not be merged away).
import type { ClickHouseClient } from "@clickhouse/client"

const column = async (client: ClickHouseClient, query: string): Promise<Array<string>> => {
  const rs = await client.query({ query, format: "JSONEachRow" })
  return (await rs.json<{ v: string | number }>()).map((r) => String(r.v))
}

export interface Stored {
  readonly done: ReadonlyArray<string>
  readonly blocks: ReadonlyArray<string>
  readonly txHashes: ReadonlyArray<string>
  /** hash|trace_id|mc seqno of every transaction: trace ids must agree between runs too. */
  readonly txs: ReadonlyArray<string>
  /** tx_hash|direction|msg_index|hash of every message row. */
  readonly messages: ReadonlyArray<string>
}

export const readStored = async (client: ClickHouseClient): Promise<Stored> => ({
  done: await column(client, "SELECT toString(mc_seqno) AS v FROM mc_blocks_done ORDER BY mc_seqno"),
  blocks: await column(
    client,
    "SELECT concat(toString(workchain), ':', toString(shard), ':', toString(seqno), ':', root_hash) AS v FROM blocks ORDER BY v"
  ),
  txHashes: await column(client, "SELECT toString(hash) AS v FROM transactions ORDER BY v"),
  txs: await column(
    client,
    "SELECT concat(toString(hash), '|', ifNull(toString(trace_id), '-'), '|', toString(mc_block_seqno)) AS v FROM transactions ORDER BY v"
  ),
  messages: await column(
    client,
    "SELECT concat(toString(tx_hash), '|', toString(direction), '|', toString(msg_index), '|', toString(hash)) AS v FROM messages ORDER BY v"
  )
})

/** Polls until `pred` holds on the number of completion markers, or fails after `ms`. */
export const waitForDone = async (client: ClickHouseClient, count: number, ms = 90_000): Promise<void> => {
  const deadline = Date.now() + ms
  while (Date.now() < deadline) {
    const [n] = await column(client, "SELECT toString(count()) AS v FROM mc_blocks_done")
    if (Number(n) >= count) return
    await new Promise((r) => setTimeout(r, 250))
  }
  const [n] = await column(client, "SELECT toString(count()) AS v FROM mc_blocks_done")
  throw new Error(`only ${n} of ${count} masterchain blocks stored after ${ms} ms`)
}
