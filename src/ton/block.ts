/**
 * Extraction from a block BOC: the header summary (BlockInfo, and shard descriptions of a masterchain block) and
 * every transaction with its BOC, read with @ton/core slices and dictionaries following block.tlb.
 * Invariant: transactions come in (account id, lt) ascending order, the order of toncenter's block listings, and
 * each `boc` is the node's serialization of the transaction cell (its hash is the on-chain transaction hash).
 */
import { createHash } from "node:crypto"
import { Cell, Dictionary, loadCurrencyCollection, type DictionaryValue, type Slice } from "@ton/core"
import { Either } from "effect"
import { rawFromHash } from "./address.js"
import { errorText, parseBoc, parseBocBytes, serializeBocBase64 } from "./boc.js"
import { DecodeError } from "./errors.js"
import type { BlockHeaderFields, BlockIdExt, BlockRecord, BocB64, HashB64, Int64String, RawAddress } from "./record.js"
import { headerExtra, headerFields } from "./record.js"
import { type BlockStates, blockStates } from "./stateUpdate.js"

export interface ExtBlockRef {
  readonly end_lt: Int64String
  readonly seqno: number
  readonly root_hash: HashB64
  readonly file_hash: HashB64
}

export interface ShardDescription {
  readonly workchain: number
  /** Signed 64-bit decimal, like toncenter v2. */
  readonly shard: Int64String
  readonly seqno: number
  readonly reg_mc_seqno: number
  readonly start_lt: Int64String
  readonly end_lt: Int64String
  readonly root_hash: HashB64
  readonly file_hash: HashB64
  readonly before_split: boolean
  readonly before_merge: boolean
  readonly want_split: boolean
  readonly want_merge: boolean
  readonly nx_cc_updated: boolean
  readonly next_catchain_seqno: number
  readonly min_ref_mc_seqno: number
  readonly gen_utime: number
}

export interface BlockHeaderSummary extends BlockHeaderFields {
  readonly workchain: number
  readonly shard: Int64String
  readonly seqno: number
  /** Hash of the block's root cell. */
  readonly root_hash: HashB64
  /** sha256 of the input bytes: the block's file_hash only when the input is the original block file. */
  readonly file_hash: HashB64
  readonly vert_seqno_incr: boolean
  /** BlockExtra's rand_seed and created_by (the collator's key), base64. */
  readonly rand_seed: HashB64
  readonly created_by: HashB64
  readonly gen_software: { readonly version: number; readonly capabilities: Int64String } | null
  /** The masterchain block a shard block refers to; null for masterchain blocks. */
  readonly master_ref: ExtBlockRef | null
  /** Previous blocks as full ids (two after a merge). */
  readonly prev_blocks: ReadonlyArray<BlockIdExt & { readonly end_lt: Int64String }>
  /** Shard descriptions of a masterchain block (ShardHashes of McBlockExtra); null for shard blocks. */
  readonly shards: ReadonlyArray<ShardDescription> | null
  readonly tx_count: number
}

export interface ExtractedTransaction {
  readonly account: RawAddress
  readonly lt: Int64String
  readonly hash: HashB64
  readonly boc: BocB64
}

export interface ExtractedBlock {
  readonly header: BlockHeaderSummary
  readonly transactions: ReadonlyArray<ExtractedTransaction>
  /** States of the accounts with transactions here, before and after the block, from its state_update. */
  readonly states: BlockStates
}

const b64 = (buf: Buffer): string => buf.toString("base64")

const SHARD_MASK = (1n << 64n) - 1n
const toSigned = (u: bigint): Int64String => BigInt.asIntN(64, u).toString()
const lowBit = (u: bigint): bigint => u & -u & SHARD_MASK
const shardChild = (u: bigint, left: boolean): bigint => {
  const x = lowBit(u) >> 1n
  return left ? u - x : u + x
}
const shardParent = (u: bigint): bigint => {
  const x = lowBit(u)
  return ((u - x) | (x << 1n)) & SHARD_MASK
}

const loadExtBlkRef = (s: Slice): ExtBlockRef => ({
  end_lt: s.loadUintBig(64).toString(),
  seqno: s.loadUint(32),
  root_hash: b64(s.loadBuffer(32)),
  file_hash: b64(s.loadBuffer(32))
})

/** ShardDescr (both the old inline-fees and the new referenced-fees layouts); fees themselves are not needed. */
const loadShardDescr = (s: Slice, workchain: number, shard: bigint): ShardDescription => {
  const tag = s.loadUint(4)
  if (tag !== 0xa && tag !== 0xb) throw new Error(`unknown ShardDescr tag ${tag}`)
  const seqno = s.loadUint(32)
  const reg_mc_seqno = s.loadUint(32)
  const start_lt = s.loadUintBig(64).toString()
  const end_lt = s.loadUintBig(64).toString()
  const root_hash = b64(s.loadBuffer(32))
  const file_hash = b64(s.loadBuffer(32))
  const before_split = s.loadBit()
  const before_merge = s.loadBit()
  const want_split = s.loadBit()
  const want_merge = s.loadBit()
  const nx_cc_updated = s.loadBit()
  s.loadUint(3)
  const next_catchain_seqno = s.loadUint(32)
  s.loadUintBig(64)
  const min_ref_mc_seqno = s.loadUint(32)
  const gen_utime = s.loadUint(32)
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

/** BinTree ShardDescr: the path of forks from the root gives each leaf's shard prefix. */
const walkShardTree = (cell: Cell, workchain: number, shard: bigint, out: Array<ShardDescription>): void => {
  const s = cell.beginParse()
  if (s.loadBit()) {
    walkShardTree(s.loadRef(), workchain, shardChild(shard, true), out)
    walkShardTree(s.loadRef(), workchain, shardChild(shard, false), out)
  } else {
    out.push(loadShardDescr(s, workchain, shard))
  }
}

const ShardTreeValue: DictionaryValue<Cell> = {
  serialize: () => {
    throw new Error("read only")
  },
  parse: (s) => s.loadRef()
}

/** HashmapAug leaves carry the augmentation (a CurrencyCollection) before the value. */
const augmented = <V>(parse: (s: Slice) => V): DictionaryValue<V> => ({
  serialize: () => {
    throw new Error("read only")
  },
  parse: (s) => {
    loadCurrencyCollection(s)
    return parse(s)
  }
})

interface AccountBlock {
  readonly account: Buffer
  readonly txs: Dictionary<bigint, Cell>
}

const AccountBlockValue = augmented<AccountBlock>((s) => {
  if (s.loadUint(4) !== 0x5) throw new Error("bad AccountBlock tag")
  const account = s.loadBuffer(32)
  const txs = Dictionary.loadDirect(Dictionary.Keys.BigUint(64), augmented((t) => t.loadRef()), s)
  return { account, txs }
})

const cmp = (a: bigint, b: bigint): number => (a < b ? -1 : a > b ? 1 : 0)

/** Extracts the header summary and the transactions of a block given as bytes or base64. */
export const extractBlock = (boc: Uint8Array | string): Either.Either<ExtractedBlock, DecodeError> => {
  const bytes = typeof boc === "string" ? null : boc
  const parsed = bytes === null ? parseBoc(boc as string) : parseBocBytes(bytes)
  if (Either.isLeft(parsed)) return Either.left(parsed.left)
  const root = parsed.right
  const input = bytes ?? Buffer.from(boc as string, "base64")
  const rootHash = b64(root.hash())
  try {
    return Either.right(readBlock(root, rootHash, b64(createHash("sha256").update(input).digest())))
  } catch (e) {
    return Either.left(new DecodeError({ reason: "not_a_block", message: errorText(e), hash: rootHash }))
  }
}

const readBlock = (root: Cell, root_hash: HashB64, file_hash: HashB64): ExtractedBlock => {
  const s = root.beginParse()
  if (s.loadUint(32) !== 0x11ef55aa) throw new Error("missing block#11ef55aa tag")
  const global_id = s.loadInt(32)
  const info = s.loadRef().beginParse()
  s.loadRef() // value_flow
  const stateUpdate = s.loadRef()
  const extra = s.loadRef().beginParse()

  if (info.loadUint(32) !== 0x9bc7a987) throw new Error("missing block_info#9bc7a987 tag")
  const version = info.loadUint(32)
  const notMaster = info.loadBit()
  const after_merge = info.loadBit()
  const before_split = info.loadBit()
  const after_split = info.loadBit()
  const want_split = info.loadBit()
  const want_merge = info.loadBit()
  const key_block = info.loadBit()
  const vert_seqno_incr = info.loadBit()
  const flags = info.loadUint(8)
  const seqno = info.loadUint(32)
  const vert_seqno = info.loadUint(32)
  if (info.loadUint(2) !== 0) throw new Error("bad ShardIdent tag")
  const pfxBits = info.loadUint(6)
  const workchain = info.loadInt(32)
  // ShardIdent stores the prefix and its length; the shard id appends the marker bit after the prefix.
  const shard = info.loadUintBig(64) | (1n << BigInt(63 - pfxBits))
  const gen_utime = info.loadUint(32)
  const start_lt = info.loadUintBig(64).toString()
  const end_lt = info.loadUintBig(64).toString()
  // tonlib prints this uint32 as a signed int32 (getBlockHeader shows negative values).
  const validator_list_hash_short = info.loadInt(32)
  const gen_catchain_seqno = info.loadUint(32)
  const min_ref_mc_seqno = info.loadUint(32)
  const prev_key_block_seqno = info.loadUint(32)
  let gen_software: BlockHeaderSummary["gen_software"] = null
  if ((flags & 1) !== 0) {
    if (info.loadUint(8) !== 0xc4) throw new Error("bad GlobalVersion tag")
    gen_software = { version: info.loadUint(32), capabilities: info.loadUintBig(64).toString() }
  }
  const master_ref = notMaster ? loadExtBlkRef(info.loadRef().beginParse()) : null
  const prevCell = info.loadRef()
  const prevSlice = prevCell.beginParse()
  const prevRefs = after_merge
    ? [loadExtBlkRef(prevSlice.loadRef().beginParse()), loadExtBlkRef(prevSlice.loadRef().beginParse())]
    : [loadExtBlkRef(prevSlice)]
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

  if (extra.loadUint(32) !== 0x4a33f6fd) throw new Error("missing block_extra#4a33f6fd tag")
  extra.loadRef() // in_msg_descr
  extra.loadRef() // out_msg_descr
  const accountBlocks = extra.loadRef().beginParse()
  const rand_seed = b64(extra.loadBuffer(32))
  const created_by = b64(extra.loadBuffer(32))
  const custom = extra.loadMaybeRef()

  const accounts = accountBlocks.loadDict(Dictionary.Keys.BigUint(256), AccountBlockValue)
  const transactions: Array<ExtractedTransaction> = []
  const changed = new Set<string>()
  for (const key of [...accounts.keys()].sort(cmp)) {
    const ab = accounts.get(key)!
    changed.add(ab.account.toString("hex").toUpperCase())
    const account = rawFromHash(workchain, ab.account)
    for (const lt of [...ab.txs.keys()].sort(cmp)) {
      const tx = ab.txs.get(lt)!
      transactions.push({ account, lt: lt.toString(), hash: b64(tx.hash()), boc: serializeBocBase64(tx) })
    }
  }

  let shards: Array<ShardDescription> | null = null
  if (!notMaster && custom !== null) {
    const mc = custom.beginParse()
    if (mc.loadUint(16) !== 0xcca5) throw new Error("missing masterchain_block_extra#cca5 tag")
    mc.loadBit() // key_block
    const hashes = mc.loadDict(Dictionary.Keys.Uint(32), ShardTreeValue)
    shards = []
    for (const wc of [...hashes.keys()].sort((a, b) => a - b)) {
      walkShardTree(hashes.get(wc)!, wc | 0, 1n << 63n, shards)
    }
  }

  return {
    header: {
      workchain,
      shard: toSigned(shard),
      seqno,
      root_hash,
      file_hash,
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
      shards,
      tx_count: transactions.length
    },
    transactions,
    states: blockStates(stateUpdate, workchain, changed)
  }
}

/**
 * The pipeline's BlockRecord from an extracted header. `file_hash` should come from upstream (toncenter's block id)
 * unless the input was the original block file, whose sha256 the header already carries.
 */
export const toBlockRecord = (
  h: BlockHeaderSummary,
  mc_block_seqno: number,
  file_hash: HashB64 = h.file_hash
): BlockRecord => ({
  id: { workchain: h.workchain, shard: h.shard, seqno: h.seqno, root_hash: h.root_hash, file_hash },
  mc_block_seqno,
  ...headerFields(h),
  ...headerExtra({
    vert_seqno_incr: h.vert_seqno_incr,
    master_ref_seqno: h.master_ref === null ? null : h.master_ref.seqno,
    rand_seed: h.rand_seed,
    created_by: h.created_by
  }),
  prev_blocks: h.prev_blocks.map((p) => ({
    workchain: p.workchain,
    shard: p.shard,
    seqno: p.seqno,
    root_hash: p.root_hash,
    file_hash: p.file_hash
  })),
  tx_count: h.tx_count
})
