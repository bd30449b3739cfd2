/**
 * A fake chain around one real shard block file, for the liteserver source to read it as it reads mainnet: two
 * built masterchain blocks, the first with the real block's predecessors as its shard tops, the second committing the
 * real block, which is served byte for byte (its id: its own root hash and the sha256 of the file).
 * Invariant: the second masterchain block (`first` = `last`) is a complete bundle of exactly the real block; the
 * first (`base`) only supplies the previous shard tops, as a chain's base does.
 */
import { createHash } from "node:crypto"
import { Either } from "effect"
import { extractBlock, toBlockRecord } from "../../../src/ton/block.js"
import { serializeBoc } from "../../../src/ton/boc.js"
import { decodeTransaction } from "../../../src/ton/decode.js"
import type { BlockIdExt, BlockRecord } from "../../../src/ton/record.js"
import { blockKey, children, contains, FULL_SHARD } from "../../../src/source/shard.js"
import { chainFromJson, type ChainBlock, type ChainTx } from "../ChainData.js"
import { buildBlock, type LiteChain, ZERO_REF } from "./blocks.js"

/** A stand-in header: only the id, lts and time matter to a reader of shard descriptions. */
const standIn = (id: BlockIdExt, mcSeqno: number, like: BlockRecord, lt: string): BlockRecord => ({
  id,
  mc_block_seqno: mcSeqno,
  global_id: like.global_id,
  version: 0,
  flags: 0,
  after_merge: false,
  after_split: false,
  before_split: false,
  want_merge: false,
  want_split: false,
  key_block: false,
  vert_seqno: like.vert_seqno,
  validator_list_hash_short: 0,
  gen_catchain_seqno: like.gen_catchain_seqno,
  min_ref_mc_seqno: like.min_ref_mc_seqno,
  prev_key_block_seqno: like.prev_key_block_seqno,
  gen_utime: like.gen_utime,
  start_lt: lt,
  end_lt: lt,
  prev_blocks: [],
  tx_count: 0
})

const ZERO_HASH = Buffer.alloc(32).toString("base64")

/**
 * The real shards plus stand-in tops for the rest of the workchain (a masterchain block describes every shard): the
 * same stand-ins in both masterchain blocks, so no reader walks into them.
 */
const covering = (tops: ReadonlyArray<BlockRecord>, others: ReadonlyArray<BlockRecord>, like: BlockRecord, mcSeqno: number) => {
  const out: Array<BlockRecord> = [...tops]
  const all = [...tops, ...others]
  const fill = (shard: string): void => {
    if (all.some((t) => t.id.shard === shard)) return
    if (all.some((t) => contains(shard, t.id.shard))) {
      for (const c of children(shard)) fill(c)
      return
    }
    const id = { workchain: like.id.workchain, shard, seqno: 1, root_hash: ZERO_HASH, file_hash: ZERO_HASH }
    out.push(standIn(id, mcSeqno, like, "0"))
  }
  fill(FULL_SHARD)
  return out
}

const ref = (r: BlockRecord) => ({ end_lt: r.end_lt, seqno: r.id.seqno, root_hash: r.id.root_hash, file_hash: r.id.file_hash })

/** The chain whose masterchain block `mcSeqno` commits the real shard block in `file`. */
export const realShardBlockChain = (file: Buffer, mcSeqno: number, name: string): LiteChain => {
  const x = Either.getOrThrow(extractBlock(file))
  const h = x.header
  if (h.workchain === -1) throw new Error(`${name} is a masterchain block; only shard blocks can be served this way`)
  const fileHash = createHash("sha256").update(file).digest("base64")
  const real = toBlockRecord(h, mcSeqno, fileHash)
  const txs: Array<ChainTx> = x.transactions.map((t) => {
    const r = Either.getOrThrow(decodeTransaction(t.boc, { block: real.id, mc_block_seqno: mcSeqno }))
    return { account: t.account, lt: t.lt, hash: t.hash, boc: t.boc, now: r.now, origin: name }
  })
  const prevTops = h.prev_blocks.map((p) =>
    standIn(
      { workchain: p.workchain, shard: p.shard, seqno: p.seqno, root_hash: p.root_hash, file_hash: p.file_hash },
      mcSeqno - 1,
      real,
      p.end_lt
    )
  )

  const files = new Map<string, Buffer>()
  const mcBlock = (seqno: number, prev: ReturnType<typeof ref> | null, tops: ReadonlyArray<BlockRecord>): ChainBlock => {
    const draft = standIn({ workchain: -1, shard: FULL_SHARD, seqno, root_hash: "", file_hash: "" }, seqno, real, real.end_lt)
    const cell = buildBlock({ ...draft, flags: 0 }, prev === null ? [ZERO_REF] : [prev], null, [], tops)
    const bytes = serializeBoc(cell)
    const id: BlockIdExt = {
      ...draft.id,
      root_hash: cell.hash().toString("base64"),
      file_hash: createHash("sha256").update(bytes).digest("base64")
    }
    files.set(blockKey(id), bytes)
    const x = Either.getOrThrow(extractBlock(bytes))
    return { record: toBlockRecord(x.header, seqno, id.file_hash), txs: [] }
  }
  const baseTops = covering(prevTops, [real], real, mcSeqno - 1)
  const tops = covering([real], prevTops, real, mcSeqno - 1)
  const base = mcBlock(mcSeqno - 1, null, baseTops)
  const top = mcBlock(mcSeqno, ref(base.record), tops)
  files.set(blockKey(real.id), file)
  return {
    chain: chainFromJson({
      name,
      network: h.global_id === -239 ? "mainnet" : "testnet",
      base: mcSeqno - 1,
      first: mcSeqno,
      last: mcSeqno,
      masterchain: [
        { seqno: mcSeqno - 1, block: base, shardTops: baseTops.map((t) => t.id), shardBlocks: [] },
        { seqno: mcSeqno, block: top, shardTops: tops.map((t) => t.id), shardBlocks: [{ record: real, txs }] }
      ]
    }),
    files
  }
}
