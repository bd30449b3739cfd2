/**
 * Block files for a fake chain: every block of a ChainData built as a TON block cell (block.tlb: BlockInfo with its
 * prev and master refs, ValueFlow, BlockExtra with the account blocks holding the real transaction cells, and for a
 * masterchain block McBlockExtra with its shard descriptions), serialized in the node's cell order. Building changes
 * block ids (a root hash is the hash of the built cell, a file hash the sha256 of the file), so the result is a new
 * ChainData that both fake upstreams serve. Invariant: for every block of a complete bundle, extractBlock of its
 * file gives back its record (ids, header fields including v3's rand_seed, created_by, master_ref_seqno and
 * vert_seqno_incr, prev links, transactions in order, byte for byte).
 *
 * Simplifications no reader of ours relies on: HashmapAug forks carry no augmentation, the state update is an
 * ordinary cell with zero hashes, and key blocks carry no config. Blocks without a predecessor (the chain's start)
 * get an all-zero prev reference. The chain's account states (a generated chain's `states`) are not carried over: a
 * liteserver serving these files answers every account as not existing unless given `accounts`.
 */
import { createHash } from "node:crypto"
import { beginCell, type Builder, Cell, Dictionary, type DictionaryValue } from "@ton/core"
import { serializeBoc } from "../../../src/ton/boc.js"
import type { BlockIdExt, BlockRecord } from "../../../src/ton/record.js"
import { blockKey, children, FULL_SHARD, prefixLength, toUnsigned } from "../../../src/source/shard.js"
import type { ChainBlock, ChainData, ChainTx } from "../ChainData.js"
import { chainFromJson } from "../ChainData.js"

export interface LiteChain {
  /** The chain with the built blocks' ids everywhere (records, prev links, shard tops) and node-order tx BOCs. */
  readonly chain: ChainData
  /** Block file by blockKey. */
  readonly files: ReadonlyMap<string, Buffer>
}

const zeroCc = (b: Builder): Builder => b.storeCoins(0).storeBit(false)

/** A HashmapAug value: the (zero) augmentation, then the value itself. */
const augValue = <V>(store: (v: V, b: Builder) => void): DictionaryValue<V> => ({
  serialize: (v, b) => {
    zeroCc(b)
    store(v, b)
  },
  parse: () => {
    throw new Error("write only")
  }
})

const txValue = augValue<Cell>((c, b) => {
  b.storeRef(c)
})

const hashUpdate = beginCell().storeUint(0x72, 8).storeUint(0, 256).storeUint(0, 256).endCell()

interface AccountBlock {
  readonly account: Buffer
  readonly txs: ReadonlyArray<{ readonly lt: bigint; readonly cell: Cell }>
}

const accountBlockValue = augValue<AccountBlock>((ab, b) => {
  b.storeUint(0x5, 4).storeBuffer(ab.account, 32)
  const d = Dictionary.empty(Dictionary.Keys.BigUint(64), txValue)
  for (const t of ab.txs) d.set(t.lt, t.cell)
  d.storeDirect(b)
  b.storeRef(hashUpdate)
})

const extBlkRef = (b: Builder, r: { end_lt: string; seqno: number; root_hash: string; file_hash: string }): Builder =>
  b
    .storeUint(BigInt(r.end_lt), 64)
    .storeUint(r.seqno, 32)
    .storeBuffer(Buffer.from(r.root_hash, "base64"), 32)
    .storeBuffer(Buffer.from(r.file_hash, "base64"), 32)

export const ZERO_REF = {
  end_lt: "0",
  seqno: 0,
  root_hash: Buffer.alloc(32).toString("base64"),
  file_hash: Buffer.alloc(32).toString("base64")
}

const ccCell = (n: number): Cell => {
  const b = beginCell()
  for (let i = 0; i < n; i++) zeroCc(b)
  return b.endCell()
}

const valueFlow = beginCell()
  .storeUint(0xb8e48dfb, 32)
  .storeRef(ccCell(4))
  .storeCoins(0)
  .storeBit(false)
  .storeRef(ccCell(4))
  .endCell()

interface Built {
  readonly id: BlockIdExt
  readonly end_lt: string
}

const shardDescr = (b: Builder, top: BlockRecord): Builder =>
  b
    .storeUint(0xb, 4)
    .storeUint(top.id.seqno, 32)
    .storeUint(top.mc_block_seqno, 32)
    .storeUint(BigInt(top.start_lt), 64)
    .storeUint(BigInt(top.end_lt), 64)
    .storeBuffer(Buffer.from(top.id.root_hash, "base64"), 32)
    .storeBuffer(Buffer.from(top.id.file_hash, "base64"), 32)
    .storeBit(top.before_split)
    .storeBit(false) // before_merge
    .storeBit(top.want_split)
    .storeBit(top.want_merge)
    .storeBit(false) // nx_cc_updated
    .storeUint(0, 3)
    .storeUint(top.gen_catchain_seqno, 32)
    .storeUint(0, 64) // next_validator_shard
    .storeUint(top.min_ref_mc_seqno, 32)
    .storeUint(top.gen_utime, 32)
    .storeBit(false) // fsm_none
    .storeRef(ccCell(2))

/** BinTree ShardDescr of one workchain: a fork wherever the tops are deeper than the subtree's shard. */
const shardTree = (shard: string, tops: ReadonlyMap<string, BlockRecord>): Cell => {
  const top = tops.get(shard)
  if (top !== undefined) return shardDescr(beginCell().storeBit(false), top).endCell()
  const [l, r] = children(shard)
  return beginCell().storeBit(true).storeRef(shardTree(l, tops)).storeRef(shardTree(r, tops)).endCell()
}

/** BlockExtra's rand_seed (derived from the block's place) and created_by (zero) of a built block. */
const randSeed = (id: BlockIdExt): Buffer => createHash("sha256").update(`rand:${blockKey(id)}`).digest()
const CREATED_BY = Buffer.alloc(32)

export const buildBlock = (
  rec: BlockRecord,
  prev: ReadonlyArray<{
    end_lt: string
    seqno: number
    root_hash: string
    file_hash: string
  }>,
  masterRef: {
    end_lt: string
    seqno: number
    root_hash: string
    file_hash: string
  } | null,
  txs: ReadonlyArray<ChainTx>,
  tops: ReadonlyArray<BlockRecord> | null
): Cell => {
  const shard = toUnsigned(rec.id.shard)
  const pfx = prefixLength(rec.id.shard)
  const info = beginCell()
    .storeUint(0x9bc7a987, 32)
    .storeUint(rec.version, 32)
    .storeBit(rec.id.workchain !== -1)
    .storeBit(rec.after_merge)
    .storeBit(rec.before_split)
    .storeBit(rec.after_split)
    .storeBit(rec.want_split)
    .storeBit(rec.want_merge)
    .storeBit(rec.key_block)
    .storeBit(false) // vert_seqno_incr
    .storeUint(rec.flags, 8)
    .storeUint(rec.id.seqno, 32)
    .storeUint(rec.vert_seqno, 32)
    .storeUint(0, 2)
    .storeUint(pfx, 6)
    .storeInt(rec.id.workchain, 32)
    .storeUint(shard & ~(shard & -shard) & ((1n << 64n) - 1n), 64)
    .storeUint(rec.gen_utime, 32)
    .storeUint(BigInt(rec.start_lt), 64)
    .storeUint(BigInt(rec.end_lt), 64)
    .storeUint(rec.validator_list_hash_short >>> 0, 32)
    .storeUint(rec.gen_catchain_seqno, 32)
    .storeUint(rec.min_ref_mc_seqno, 32)
    .storeUint(rec.prev_key_block_seqno, 32)
  if ((rec.flags & 1) !== 0) info.storeUint(0xc4, 8).storeUint(rec.version, 32).storeUint(0, 64)
  if (rec.id.workchain !== -1) info.storeRef(extBlkRef(beginCell(), masterRef ?? ZERO_REF).endCell())
  const prevCell = rec.after_merge
    ? beginCell()
        .storeRef(extBlkRef(beginCell(), prev[0] ?? ZERO_REF).endCell())
        .storeRef(extBlkRef(beginCell(), prev[1] ?? ZERO_REF).endCell())
        .endCell()
    : extBlkRef(beginCell(), prev[0] ?? ZERO_REF).endCell()
  info.storeRef(prevCell)

  const accounts = new Map<string, Array<{ lt: bigint; cell: Cell }>>()
  for (const t of txs) {
    const hex = t.account.slice(t.account.indexOf(":") + 1)
    const list = accounts.get(hex) ?? []
    list.push({ lt: BigInt(t.lt), cell: Cell.fromBase64(t.boc) })
    accounts.set(hex, list)
  }
  const accountDict = Dictionary.empty(Dictionary.Keys.BigUint(256), accountBlockValue)
  for (const [hex, list] of accounts)
    accountDict.set(BigInt("0x" + hex), {
      account: Buffer.from(hex, "hex"),
      txs: list
    })
  const accountBlocks = beginCell().storeDict(accountDict)
  zeroCc(accountBlocks)
  const emptyAug = (n: number) => {
    const b = beginCell().storeBit(false)
    for (let i = 0; i < n; i++) zeroCc(b)
    return b.endCell()
  }
  const extra = beginCell()
    .storeUint(0x4a33f6fd, 32)
    .storeRef(emptyAug(2)) // in_msg_descr: ImportFees
    .storeRef(emptyAug(1)) // out_msg_descr: CurrencyCollection
    .storeRef(accountBlocks.endCell())
    .storeBuffer(randSeed(rec.id), 32)
    .storeBuffer(CREATED_BY, 32)
  if (tops !== null) {
    const byWc = new Map<number, Map<string, BlockRecord>>()
    for (const t of tops) {
      const m = byWc.get(t.id.workchain) ?? new Map<string, BlockRecord>()
      m.set(t.id.shard, t)
      byWc.set(t.id.workchain, m)
    }
    const hashes = Dictionary.empty(Dictionary.Keys.Uint(32), Dictionary.Values.Cell())
    for (const [wc, m] of byWc) hashes.set(wc >>> 0, shardTree(FULL_SHARD, m))
    const mc = beginCell().storeUint(0xcca5, 16).storeBit(false).storeDict(hashes)
    mc.storeBit(false).storeCoins(0).storeBit(false).storeCoins(0).storeBit(false) // shard_fees: empty, extra
    mc.storeRef(beginCell().storeBit(false).storeBit(false).storeBit(false).endCell())
    extra.storeMaybeRef(mc.endCell())
  } else {
    extra.storeMaybeRef(null)
  }
  return beginCell()
    .storeUint(0x11ef55aa, 32)
    .storeInt(rec.global_id, 32)
    .storeRef(info.endCell())
    .storeRef(valueFlow)
    .storeRef(beginCell().storeUint(0, 8).storeUint(0, 256).storeUint(0, 256).endCell())
    .storeRef(extra.endCell())
    .endCell()
}

const cache = new WeakMap<ChainData, LiteChain>()

/** Builds every block of the chain (masterchain seqno order, shard blocks by seqno inside each) and re-ids the chain. */
export const withBlockFiles = (chain: ChainData): LiteChain => {
  const hit = cache.get(chain)
  if (hit !== undefined) return hit
  const built = new Map<string, Built>()
  const records = new Map<string, BlockRecord>()
  const files = new Map<string, Buffer>()
  const mapId = (id: BlockIdExt): BlockIdExt => built.get(blockKey(id))?.id ?? id
  const refOf = (id: BlockIdExt) => {
    const b = built.get(blockKey(id))
    const r = records.get(blockKey(id))
    return {
      end_lt: b?.end_lt ?? r?.end_lt ?? "0",
      seqno: id.seqno,
      root_hash: mapId(id).root_hash,
      file_hash: mapId(id).file_hash
    }
  }
  const nodeTxs = (txs: ReadonlyArray<ChainTx>): ReadonlyArray<ChainTx> =>
    txs.map((t) => ({
      ...t,
      boc: serializeBoc(Cell.fromBase64(t.boc)).toString("base64")
    }))

  const add = (
    b: ChainBlock,
    masterRef: ReturnType<typeof refOf> | null,
    tops: ReadonlyArray<BlockRecord> | null
  ): ChainBlock => {
    const prev = b.record.prev_blocks.map(refOf)
    const txs = nodeTxs(b.txs)
    const cell = buildBlock(b.record, prev, masterRef, txs, tops)
    const file = serializeBoc(cell)
    const id: BlockIdExt = {
      ...b.record.id,
      root_hash: cell.hash().toString("base64"),
      file_hash: createHash("sha256").update(file).digest("base64")
    }
    const key = blockKey(id)
    built.set(key, { id, end_lt: b.record.end_lt })
    files.set(key, file)
    // the built block's header fields beyond v2's, as a reader of the block (or toncenter v3) sees them
    const record: BlockRecord = {
      ...b.record,
      id,
      prev_blocks: b.record.prev_blocks.map(mapId),
      vert_seqno_incr: false,
      master_ref_seqno: id.workchain === -1 ? null : (masterRef ?? ZERO_REF).seqno,
      rand_seed: randSeed(b.record.id).toString("base64"),
      created_by: CREATED_BY.toString("base64")
    }
    records.set(key, record)
    return { record, txs }
  }

  const masterchain: Array<{
    seqno: number
    block: ChainBlock
    shardTops: Array<BlockIdExt>
    shardBlocks: Array<ChainBlock>
  }> = []
  let prevMc: ReturnType<typeof refOf> | null = null
  for (const seqno of [...chain.masterchain.keys()].sort((a, b) => a - b)) {
    const mc = chain.masterchain.get(seqno)!
    const inOrder = [...mc.shardBlocks].sort((a, b) => a.record.id.seqno - b.record.id.seqno)
    const newShard = new Map<string, ChainBlock>()
    for (const b of inOrder) newShard.set(blockKey(b.record.id), add(b, prevMc, null))
    const tops = mc.shardTops.map((t) => {
      const r = records.get(blockKey(t))
      if (r === undefined) throw new Error(`shard top ${blockKey(t)} of ${seqno} is not a block of the chain`)
      return r
    })
    const block = add(mc.block, null, tops)
    masterchain.push({
      seqno,
      block,
      shardTops: mc.shardTops.map(mapId),
      shardBlocks: mc.shardBlocks.map((b) => newShard.get(blockKey(b.record.id))!)
    })
    prevMc = refOf(mc.block.record.id)
  }
  const out: LiteChain = {
    chain: chainFromJson({
      name: chain.name,
      network: chain.network,
      base: chain.base,
      first: chain.first,
      last: chain.last,
      masterchain
    }),
    files
  }
  cache.set(chain, out)
  return out
}
