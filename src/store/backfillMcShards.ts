/**
 * Fills and clears `mc_shards_kv` (sql/0150), the key-value row of each masterchain block's blocks and shard tops
 * ready to serve, derived from `blocks` and `mc_shard_blocks`, for stores written before it. Rows are made by the
 * consumer's own function (`mcShardsKvRow`) from the stored rows, read as the API's fallback reads them (`FINAL`, the
 * same settings), so a filled row equals the row the consumer would have written and the answer that fallback gives.
 * Invariants: a row is only ever written whole (an upsert by key, so repeating a fill changes nothing); a done block
 * without its own `blocks` row gets no row (the read path answers it from the MergeTree tables: a 404); the cleanup of
 * unfinished blocks deletes their rows (`deleteMcShards`) with their other rows. Not used on a cluster (the table is
 * per node there).
 */
import type { ClickHouseClient } from "@clickhouse/client"
import type { BlockRow } from "../flatten/blocks.js"
import type { McShardBlockRow } from "../flatten/mc_shard_blocks.js"
import { type McShardsKvRow, mcShardsKvRow } from "../flatten/mc_shards_kv.js"
import { fillPageRows, rows, type PageRowFillOptions } from "./pageRowFill.js"
import { uint32Array } from "./sql.js"

/** Deletes the `mc_shards_kv` rows of these masterchain blocks. */
export const deleteMcShards = async (client: ClickHouseClient, mcSeqnos: ReadonlyArray<number>): Promise<void> => {
  if (mcSeqnos.length === 0) return
  await client.command({
    query: `DELETE FROM mc_shards_kv WHERE mc_seqno IN ${uint32Array([...new Set(mcSeqnos)])}`
  })
}

/** Appends `value` to the list of `key` in `lists`. */
const addTo = <T>(lists: Map<number, Array<T>>, key: number, value: T): void => {
  const list = lists.get(key)
  if (list === undefined) lists.set(key, [value])
  else list.push(value)
}

/**
 * Writes the rows of these done masterchain blocks from their stored `blocks` and `mc_shard_blocks` rows: every one
 * (`rebuild`), or only those without a row. Returns how many rows were written.
 */
const fill = async (client: ClickHouseClient, mcSeqnos: ReadonlyArray<number>, rebuild: boolean): Promise<number> => {
  let want = [...new Set(mcSeqnos)]
  if (!rebuild && want.length > 0) {
    const have = new Set(
      (
        await rows<{ s: number }>(client, `SELECT mc_seqno AS s FROM mc_shards_kv WHERE mc_seqno IN ${uint32Array(want)}`)
      ).map((r) => Number(r.s))
    )
    want = want.filter((s) => !have.has(s))
  }
  if (want.length === 0) return 0
  const keys = uint32Array(want)
  // each block committed by one of them, and the masterchain blocks themselves (the API reads those by id alone)
  const blocks = await rows<BlockRow>(
    client,
    `SELECT * FROM blocks FINAL
     WHERE mc_block_seqno IN ${keys} OR (workchain = -1 AND shard = -9223372036854775808 AND seqno IN ${keys})`
  )
  const refs = await rows<McShardBlockRow>(client, `SELECT * FROM mc_shard_blocks FINAL WHERE mc_seqno IN ${keys}`)
  const refsOf = new Map<number, Array<McShardBlockRow>>()
  for (const r of refs) addTo(refsOf, Number(r.mc_seqno), r)
  const blocksOf = new Map<number, Array<BlockRow>>()
  for (const b of blocks) {
    addTo(blocksOf, Number(b.mc_block_seqno), b)
    // a masterchain block naming another masterchain block as its own (never, on a chain): kept for its seqno too
    if (Number(b.workchain) === -1 && Number(b.seqno) !== Number(b.mc_block_seqno)) addTo(blocksOf, Number(b.seqno), b)
  }
  const values: Array<McShardsKvRow> = []
  for (const s of want) {
    const row = mcShardsKvRow(s, blocksOf.get(s) ?? [], refsOf.get(s) ?? [])
    if (row !== null) values.push(row)
  }
  if (values.length > 0) await client.insert({ table: "mc_shards_kv", values, format: "JSONEachRow" })
  return values.length
}

export interface BackfillMcShardsOptions extends PageRowFillOptions {
  /** Masterchain blocks per statement. Default 500. */
  readonly batchBlocks?: number
}

/**
 * Writes the rows of `seqnos` anew, then fills the rows missing for done masterchain blocks past the stored progress
 * (`mc_shards_kv_backfill`), in ascending batches, recording the progress after each: resumable, and at a start after
 * the first fill it looks only at the blocks stored since (which the consumer has written rows for). Safe beside a
 * running consumer (it writes the same rows). Returns the number of rows written.
 */
export const backfillMcShards = async (
  client: ClickHouseClient,
  options: BackfillMcShardsOptions = {}
): Promise<number> =>
  fillPageRows(client, "mc_shards_kv_backfill", (mcSeqnos, rebuild) => fill(client, mcSeqnos, rebuild), {
    ...options,
    batchBlocks: options.batchBlocks ?? 500
  })
