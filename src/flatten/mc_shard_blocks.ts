/**
 * MasterchainBundle -> `mc_shard_blocks` rows: one per block the masterchain block commits (itself included) and
 * one per shard top it references. A top committed by this very block is a single row carrying both facts.
 */
import type { BlockIdExt, MasterchainBundle } from "../ton/record.js"

export interface McShardBlockRow {
  readonly mc_seqno: number
  readonly workchain: number
  readonly shard: string
  readonly seqno: number
  readonly root_hash: string
  readonly file_hash: string
  readonly committed: boolean
  readonly shard_top_index: number | null
}

const idKey = (id: { workchain: number; shard: string; seqno: number }): string => `${id.workchain}:${id.shard}:${id.seqno}`

export const mcShardBlockRows = (b: MasterchainBundle): Array<McShardBlockRow> => {
  const rows = new Map<string, McShardBlockRow>()
  const put = (id: BlockIdExt, committed: boolean, topIndex: number | null) => {
    const key = idKey(id)
    const prev = rows.get(key)
    rows.set(key, {
      mc_seqno: b.mc_seqno,
      workchain: id.workchain,
      shard: id.shard,
      seqno: id.seqno,
      root_hash: id.root_hash,
      file_hash: id.file_hash,
      committed: committed || (prev?.committed ?? false),
      shard_top_index: topIndex ?? prev?.shard_top_index ?? null
    })
  }
  put(b.mc_block.id, true, null)
  for (const s of b.shard_blocks) put(s.id, true, null)
  b.shard_tops.forEach((t, i) => put(t, false, i))
  return [...rows.values()]
}
