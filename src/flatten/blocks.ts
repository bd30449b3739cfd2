/**
 * BlockRecord -> `blocks` row. The row carries every BlockRecord field under the column names of sql/0010, with
 * 64-bit quantities as decimal strings and 32-bit ones as numbers, which is also how ClickHouse returns them.
 */
import type { BlockRecord } from "../ton/record.js"

export interface PrevBlockCell {
  readonly workchain: number
  readonly shard: string
  readonly seqno: number
  readonly root_hash: string
  readonly file_hash: string
}

export interface BlockRow {
  readonly workchain: number
  readonly shard: string
  readonly seqno: number
  readonly root_hash: string
  readonly file_hash: string
  readonly mc_block_seqno: number
  readonly global_id: number
  readonly version: number
  readonly flags: number
  readonly after_merge: boolean
  readonly after_split: boolean
  readonly before_split: boolean
  readonly want_merge: boolean
  readonly want_split: boolean
  readonly key_block: boolean
  readonly vert_seqno: number
  readonly validator_list_hash_short: number
  readonly gen_catchain_seqno: number
  readonly min_ref_mc_seqno: number
  readonly prev_key_block_seqno: number
  readonly gen_utime: number
  readonly start_lt: string
  readonly end_lt: string
  readonly prev_blocks: ReadonlyArray<PrevBlockCell>
  readonly tx_count: number
}

export const blockRow = (b: BlockRecord): BlockRow => ({
  workchain: b.id.workchain,
  shard: b.id.shard,
  seqno: b.id.seqno,
  root_hash: b.id.root_hash,
  file_hash: b.id.file_hash,
  mc_block_seqno: b.mc_block_seqno,
  global_id: b.global_id,
  version: b.version,
  flags: b.flags,
  after_merge: b.after_merge,
  after_split: b.after_split,
  before_split: b.before_split,
  want_merge: b.want_merge,
  want_split: b.want_split,
  key_block: b.key_block,
  vert_seqno: b.vert_seqno,
  validator_list_hash_short: b.validator_list_hash_short,
  gen_catchain_seqno: b.gen_catchain_seqno,
  min_ref_mc_seqno: b.min_ref_mc_seqno,
  prev_key_block_seqno: b.prev_key_block_seqno,
  gen_utime: b.gen_utime,
  start_lt: b.start_lt,
  end_lt: b.end_lt,
  prev_blocks: b.prev_blocks.map((p) => ({
    workchain: p.workchain,
    shard: p.shard,
    seqno: p.seqno,
    root_hash: p.root_hash,
    file_hash: p.file_hash
  })),
  tx_count: b.tx_count
})
