/**
 * A masterchain block's `blocks` and `mc_shard_blocks` rows -> its one `mc_shards_kv` row (sql/0150): the v3 `Block`
 * objects `/api/v3/masterchainBlockShards` lists (Go's JSON, one a line, in its order) and the v2 `ton.blockIdExt`
 * objects `/api/v2/shards` lists (Python's JSON, joined by commas, in shard-hash order). The row is made from rows as
 * the read path reads them and with the read path's own functions (assembleBlock, blocksOfMc, renderV3Block;
 * assembleShardTop, renderV2BlockIdExt), so a page cut from it is the answer the MergeTree tables give.
 * Invariant: the blocks are those the masterchain block commits (`committed` rows) whose `blocks` row names it as
 * their masterchain block, plus the masterchain block itself; the tops those with a `shard_top_index`, in its order.
 * No row without the masterchain block's own `blocks` row (the read path answers 404 then).
 */
import { blocksOfMc, renderV3Block } from "../api/assemble/v3.js"
import { goJson, pythonJson } from "../api/json.js"
import { assembleBlock, assembleShardTop } from "../store/assemble.js"
import { renderV2BlockIdExt } from "../ton/v2.js"
import type { BlockRow } from "./blocks.js"
import type { McShardBlockRow } from "./mc_shard_blocks.js"

export interface McShardsKvRow {
  readonly mc_seqno: number
  /** The v3 Block objects, one a line (compact JSON holds no raw newline). */
  readonly blocks: string
  /** The v2 shard tops' objects joined by commas (the inside of the `shards` array). */
  readonly tops: string
}

export type McShardsBlock = BlockRow
export type McShardsRef = Pick<McShardBlockRow, "workchain" | "shard" | "seqno" | "root_hash" | "file_hash" | "committed" | "shard_top_index">

const MC_SHARD = -(2n ** 63n)

/** A block id as one key, the shard as a signed 64-bit decimal whatever text it came in. */
const idKey = (workchain: number, shard: string, seqno: number): string =>
  `${Number(workchain)}:${BigInt.asIntN(64, BigInt(shard))}:${Number(seqno)}`

/**
 * The row of masterchain block `mcSeqno` from its `blocks` rows (any superset: others are ignored) and its
 * `mc_shard_blocks` rows (its own only); null when its own `blocks` row is not among them.
 */
export const mcShardsKvRow = (
  mcSeqno: number,
  blocks: ReadonlyArray<McShardsBlock>,
  refs: ReadonlyArray<McShardsRef>
): McShardsKvRow | null => {
  const mc = blocks.find(
    (b) => Number(b.workchain) === -1 && BigInt(b.shard) === MC_SHARD && Number(b.seqno) === mcSeqno
  )
  if (mc === undefined) return null
  const committed = new Set(refs.filter((r) => r.committed).map((r) => idKey(r.workchain, r.shard, r.seqno)))
  const shardBlocks = blocks.filter(
    (b) => Number(b.mc_block_seqno) === mcSeqno && committed.has(idKey(b.workchain, b.shard, b.seqno))
  )
  const rendered = blocksOfMc(assembleBlock(mc), shardBlocks.map(assembleBlock)).map((b) => goJson(renderV3Block(b)))
  const tops = refs
    .filter((r) => r.shard_top_index !== null)
    .sort((a, b) => Number(a.shard_top_index) - Number(b.shard_top_index))
    // the shard as the engine returns its Int64: a signed decimal
    .map((r) => pythonJson(renderV2BlockIdExt(assembleShardTop({ ...r, shard: BigInt.asIntN(64, BigInt(r.shard)).toString() }))))
  return { mc_seqno: mcSeqno, blocks: rendered.join("\n"), tops: tops.join(",") }
}
