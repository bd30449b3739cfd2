/**
 * BlockRecord -> `blocks` row. The row carries every BlockRecord field under the column names of sql/0010, with
 * 64-bit quantities as decimal strings and 32-bit ones as numbers, which is also how ClickHouse returns them. The v3-only
 * header fields (sql/0110) are null when the source did not know them.
 */
import type { BlockHeaderFields, BlockRecord } from "../ton/record.js"
import { headerFields } from "../ton/record.js"

export interface PrevBlockCell {
  readonly workchain: number
  readonly shard: string
  readonly seqno: number
  readonly root_hash: string
  readonly file_hash: string
}

export interface BlockRow extends BlockHeaderFields {
  readonly workchain: number
  readonly shard: string
  readonly seqno: number
  readonly root_hash: string
  readonly file_hash: string
  readonly mc_block_seqno: number
  readonly prev_blocks: ReadonlyArray<PrevBlockCell>
  readonly tx_count: number
  readonly vert_seqno_incr: boolean | null
  readonly master_ref_seqno: number | null
  readonly rand_seed: string | null
  readonly created_by: string | null
}

export const blockRow = (b: BlockRecord): BlockRow => ({
  workchain: b.id.workchain,
  shard: b.id.shard,
  seqno: b.id.seqno,
  root_hash: b.id.root_hash,
  file_hash: b.id.file_hash,
  mc_block_seqno: b.mc_block_seqno,
  ...headerFields(b),
  prev_blocks: b.prev_blocks.map((p) => ({
    workchain: p.workchain,
    shard: p.shard,
    seqno: p.seqno,
    root_hash: p.root_hash,
    file_hash: p.file_hash
  })),
  tx_count: b.tx_count,
  vert_seqno_incr: b.vert_seqno_incr ?? null,
  master_ref_seqno: b.master_ref_seqno ?? null,
  rand_seed: b.rand_seed ?? null,
  created_by: b.created_by ?? null
})
