/**
 * A block file's header read straight from its bytes: BlockInfo, the prev and master links, BlockExtra's seed and
 * creator, and a masterchain block's shard descriptions, without a Cell object or a hash per cell. It is what a
 * shard walk needs before the block is decoded whole elsewhere (src/source/liteserver/blockFiles.ts).
 * Invariant: scanBlockHeader(b) equals extractBlock(b).header less root_hash, file_hash and tx_count (those need
 * every cell hashed or every transaction listed); any input it does not read throws, and the caller then decodes the
 * block with extractBlock, whose errors are the ones reported.
 */
import type { BlockHeaderSummary, ExtBlockRef, ShardDescription } from "../block.js"
import { CellStore, outside } from "./cells.js"
import { Cursor } from "./reader.js"

export type ScannedHeader = Omit<BlockHeaderSummary, "root_hash" | "file_hash" | "tx_count">

const SHARD_MASK = (1n << 64n) - 1n
const toSigned = (u: bigint): string => BigInt.asIntN(64, u).toString()
const lowBit = (u: bigint): bigint => u & -u & SHARD_MASK
const shardChild = (u: bigint, left: boolean): bigint => {
  const x = lowBit(u) >> 1n
  return left ? u - x : u + x
}
const shardParent = (u: bigint): bigint => {
  const x = lowBit(u)
  return ((u - x) | (x << 1n)) & SHARD_MASK
}

// One store, reused block after block by scanBlockHeader: a scan is synchronous and keeps no reference to it.
const scanStore = new CellStore()

const open = (store: CellStore, c: number): Cursor => new Cursor(store).open(c)

const extBlkRef = (s: Cursor): ExtBlockRef => ({
  end_lt: s.uintString(64),
  seqno: s.uint(32),
  root_hash: s.hash256(),
  file_hash: s.hash256()
})

const shardDescr = (s: Cursor, workchain: number, shard: bigint): ShardDescription => {
  const tag = s.uint(4)
  if (tag !== 0xa && tag !== 0xb) outside(`unknown ShardDescr tag ${tag}`)
  const seqno = s.uint(32)
  const reg_mc_seqno = s.uint(32)
  const start_lt = s.uintString(64)
  const end_lt = s.uintString(64)
  const root_hash = s.hash256()
  const file_hash = s.hash256()
  const before_split = s.bit()
  const before_merge = s.bit()
  const want_split = s.bit()
  const want_merge = s.bit()
  const nx_cc_updated = s.bit()
  s.skip(3)
  const next_catchain_seqno = s.uint(32)
  s.skip(64)
  const min_ref_mc_seqno = s.uint(32)
  const gen_utime = s.uint(32)
  return {
    workchain,
    shard: toSigned(shard),
    seqno,
    reg_mc_seqno,
    start_lt,
    end_lt,
    root_hash,
    file_hash,
    before_split,
    before_merge,
    want_split,
    want_merge,
    nx_cc_updated,
    next_catchain_seqno,
    min_ref_mc_seqno,
    gen_utime
  }
}

const shardTree = (
  store: CellStore,
  c: number,
  workchain: number,
  shard: bigint,
  out: Array<ShardDescription>
): void => {
  const s = open(store, c)
  if (s.bit()) {
    const left = s.ref()
    const right = s.ref()
    shardTree(store, left, workchain, shardChild(shard, true), out)
    shardTree(store, right, workchain, shardChild(shard, false), out)
  } else out.push(shardDescr(s, workchain, shard))
}

/** Leaves of a Hashmap of `n`-bit keys (n <= 32) in ascending key order, as (key, cursor after the label). */
const walkDict = (
  store: CellStore,
  c: number,
  n: number,
  key: number,
  leaf: (key: number, s: Cursor) => void
): void => {
  const s = open(store, c)
  let len = 0
  let k = key
  if (!s.bit()) {
    while (s.bit()) len++
    if (len > n) outside("dict label")
    for (let i = 0; i < len; i++) k = k * 2 + (s.bit() ? 1 : 0)
  } else if (!s.bit()) {
    len = s.uint(Math.ceil(Math.log2(n + 1)))
    if (len > n) outside("dict label")
    for (let i = 0; i < len; i++) k = k * 2 + (s.bit() ? 1 : 0)
  } else {
    const b = s.bit() ? 1 : 0
    len = s.uint(Math.ceil(Math.log2(n + 1)))
    if (len > n) outside("dict label")
    for (let i = 0; i < len; i++) k = k * 2 + b
  }
  if (len === n) return leaf(k, s)
  const left = s.ref()
  const right = s.ref()
  walkDict(store, left, n - len - 1, k * 2, leaf)
  walkDict(store, right, n - len - 1, k * 2 + 1, leaf)
}

/** The header of a block file (bytes checked against the block's file hash); throws on anything it does not read. */
export const scanBlockHeader = (bytes: Uint8Array): ScannedHeader => {
  scanStore.parse(bytes, true)
  return readBlockHeader(scanStore)
}

/**
 * The header of the block a store holds (parsed with `anyCells`), for a reader that goes on to read more of the same
 * cells (src/ton/fast/decode.ts: decodeBlockFast); throws on anything it does not read. Hashes no cell.
 */
export const readBlockHeader = (store: CellStore): ScannedHeader => {
  const s = open(store, store.root)
  if (s.uint(32) !== 0x11ef55aa) outside("missing block#11ef55aa tag")
  const global_id = s.int(32)
  const info = open(store, s.ref())
  s.ref() // value_flow
  s.ref() // state_update
  const extra = open(store, s.ref())

  if (info.uint(32) !== 0x9bc7a987) outside("missing block_info#9bc7a987 tag")
  const version = info.uint(32)
  const notMaster = info.bit()
  const after_merge = info.bit()
  const before_split = info.bit()
  const after_split = info.bit()
  const want_split = info.bit()
  const want_merge = info.bit()
  const key_block = info.bit()
  const vert_seqno_incr = info.bit()
  const flags = info.uint(8)
  const seqno = info.uint(32)
  const vert_seqno = info.uint(32)
  if (info.uint(2) !== 0) outside("bad ShardIdent tag")
  const pfxBits = info.uint(6)
  const workchain = info.int(32)
  const shard = BigInt(info.uintString(64)) | (1n << BigInt(63 - pfxBits))
  const gen_utime = info.uint(32)
  const start_lt = info.uintString(64)
  const end_lt = info.uintString(64)
  const validator_list_hash_short = info.int(32)
  const gen_catchain_seqno = info.uint(32)
  const min_ref_mc_seqno = info.uint(32)
  const prev_key_block_seqno = info.uint(32)
  let gen_software: ScannedHeader["gen_software"] = null
  if ((flags & 1) !== 0) {
    if (info.uint(8) !== 0xc4) outside("bad GlobalVersion tag")
    gen_software = { version: info.uint(32), capabilities: info.uintString(64) }
  }
  const master_ref = notMaster ? extBlkRef(open(store, info.ref())) : null
  const prev = open(store, info.ref())
  const prevRefs = after_merge
    ? [extBlkRef(open(store, prev.ref())), extBlkRef(open(store, prev.ref()))]
    : [extBlkRef(prev)]
  const prevShards = after_merge
    ? [shardChild(shard, true), shardChild(shard, false)]
    : after_split
      ? [shardParent(shard)]
      : [shard]
  const prev_blocks = prevRefs.map((r, i) => ({
    workchain,
    shard: toSigned(prevShards[i]!),
    seqno: r.seqno,
    root_hash: r.root_hash,
    file_hash: r.file_hash,
    end_lt: r.end_lt
  }))

  if (extra.uint(32) !== 0x4a33f6fd) outside("missing block_extra#4a33f6fd tag")
  extra.ref() // in_msg_descr
  extra.ref() // out_msg_descr
  extra.ref() // account_blocks
  const rand_seed = extra.hash256()
  const created_by = extra.hash256()
  const custom = extra.bit() ? extra.ref() : -1

  let shards: Array<ShardDescription> | null = null
  if (!notMaster && custom >= 0) {
    const mc = open(store, custom)
    if (mc.uint(16) !== 0xcca5) outside("missing masterchain_block_extra#cca5 tag")
    mc.bit() // key_block
    shards = []
    const out = shards
    if (mc.bit()) {
      walkDict(store, mc.ref(), 32, 0, (wc, leaf) => {
        shardTree(store, leaf.ref(), wc | 0, 1n << 63n, out)
      })
    }
  }

  return {
    workchain,
    shard: toSigned(shard),
    seqno,
    global_id,
    version,
    flags,
    after_merge,
    after_split,
    before_split,
    want_merge,
    want_split,
    key_block,
    vert_seqno_incr,
    vert_seqno,
    rand_seed,
    created_by,
    gen_utime,
    start_lt,
    end_lt,
    validator_list_hash_short,
    gen_catchain_seqno,
    min_ref_mc_seqno,
    prev_key_block_seqno,
    gen_software,
    master_ref,
    prev_blocks,
    shards
  }
}
