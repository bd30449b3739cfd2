/**
 * Arranges an lt-ordered stream of transactions into masterchain blocks that each commit 1-16 shard blocks, with
 * several blocks per shard per masterchain block, shard splits (before_split, then two after_split children) and
 * merges (want_merge, then one after_merge block with two prev links), in the shape of the upstream bundle.
 * Invariants: an account's transactions land in the one shard covering its address at that time and in lt order, so
 * per-account and per-message causality survive; seqnos follow TON's rules (children of a split continue the parent's
 * seqno, a merged block follows the larger one); every value is a function of the seed and the input stream.
 */
import { createHash } from "node:crypto"
import { compareBlockIds } from "../../src/source/shard.js"
import type { BlockIdExt, BlockRecord } from "../../src/ton/record.js"
import { Rng } from "./rng.js"
import type { GenBundle, GenBundleTx, GenTx } from "./types.js"

const MC_SHARD = "-9223372036854775808"
const MAX_SHARD_BLOCKS = 16
const MAX_PREFIX = 4

export interface ArrangeOptions {
  readonly seed: string
  /** Mean number of transactions per masterchain block (masterchain and shard transactions together). */
  readonly txPerMc: number
  readonly firstMcSeqno?: number
  readonly globalId?: number
}

interface ShardState {
  /** Prefix bits and their count: the shard covers accounts whose first `len` bits equal `prefix`. */
  readonly prefix: number
  readonly len: number
  seqno: number
  /** The last block of this shard (or, for a fresh child or merged shard, its predecessors). */
  prev: Array<BlockIdExt>
  afterSplit: boolean
  afterMerge: boolean
}

const shardId = (prefix: number, len: number): bigint =>
  (BigInt(prefix) << BigInt(64 - len)) | (1n << BigInt(63 - len))

const signed64 = (x: bigint): string => BigInt.asIntN(64, x).toString()

const covers = (s: ShardState, account: bigint): boolean =>
  s.len === 0 || Number(account >> BigInt(256 - s.len)) === s.prefix

const fakeHash = (...parts: ReadonlyArray<string | number>): string =>
  createHash("sha256").update(parts.join("/")).digest("base64")

const bundleTx = (block: BlockIdExt, t: GenTx): GenBundleTx => ({
  block,
  account: t.account,
  lt: t.lt,
  hash: t.hash,
  boc: t.boc,
  now: t.now,
  origin: t.origin
})

/**
 * Stateful arranger: push transactions in global lt order, take finished bundles. Transactions of workchain -1 go to
 * the masterchain block itself, the rest to the shard covering their account.
 */
export class Arranger {
  private readonly rng: Rng
  private readonly globalId: number
  private mcSeqno: number
  private mcPrev: BlockIdExt | null = null
  private lastGenUtime = 0
  private lastEndLt = 0n
  private shards: Array<ShardState>
  private current: Array<GenTx> = []
  private genesisDone = false
  private currentTarget: number
  private readonly out: Array<GenBundle> = []

  constructor(private readonly opts: ArrangeOptions) {
    this.rng = new Rng(opts.seed, "arrange")
    this.globalId = opts.globalId ?? -239
    this.mcSeqno = opts.firstMcSeqno ?? 50_000_000
    const base = 60_000_000
    this.shards = [0, 1, 2, 3].map((p) => ({
      prefix: p,
      len: 2,
      seqno: base + p * 11,
      prev: [],
      afterSplit: false,
      afterMerge: false
    }))
    this.currentTarget = this.nextTarget()
  }

  private nextTarget(): number {
    // Bursty sizes around the mean: most blocks are small, some carry a highload wallet's hundreds of messages.
    const m = this.opts.txPerMc
    return Math.max(1, Math.round(this.rng.chance(0.8) ? this.rng.int(Math.ceil(m / 3), m) : this.rng.int(m, m * 4)))
  }

  push(tx: GenTx): void {
    this.current.push(tx)
    if (this.current.length >= this.currentTarget) this.flush()
  }

  /** Close the open masterchain block (if it has transactions). */
  flush(): void {
    if (this.current.length === 0) return
    if (!this.genesisDone) {
      // A genesis masterchain block commits one empty block per initial shard: the shard tops the first bundle with
      // transactions links back to, as a source walking prev links from tops to the previous tops needs.
      this.genesisDone = true
      this.lastGenUtime = this.current.reduce((m, t) => Math.min(m, t.now), Infinity) - 2
      this.out.push(this.makeBundle([], true))
    }
    this.out.push(this.makeBundle(this.current))
    this.current = []
    this.currentTarget = this.nextTarget()
  }

  take(): Array<GenBundle> {
    return this.out.splice(0, this.out.length)
  }

  private record(
    id: BlockIdExt,
    txs: ReadonlyArray<GenTx>,
    genUtime: number,
    prev: ReadonlyArray<BlockIdExt>,
    flags: { afterMerge?: boolean; afterSplit?: boolean; beforeSplit?: boolean; wantMerge?: boolean; wantSplit?: boolean },
    ltFloor: bigint
  ): BlockRecord {
    let start = ltFloor
    let end = ltFloor + 1n
    if (txs.length > 0) {
      start = BigInt(txs[0]!.lt)
      end = start
      for (const t of txs) {
        const lt = BigInt(t.lt)
        if (lt < start) start = lt
        if (lt > end) end = lt
      }
      end += 1n
    }
    return {
      id,
      mc_block_seqno: this.mcSeqno,
      global_id: this.globalId,
      version: 0,
      flags: 1,
      after_merge: flags.afterMerge ?? false,
      after_split: flags.afterSplit ?? false,
      before_split: flags.beforeSplit ?? false,
      want_merge: flags.wantMerge ?? false,
      want_split: flags.wantSplit ?? false,
      key_block: false,
      vert_seqno: 1,
      validator_list_hash_short: this.rng.next() | 0,
      gen_catchain_seqno: 50_000 + Math.floor(this.mcSeqno / 1000),
      min_ref_mc_seqno: this.mcSeqno - 1,
      prev_key_block_seqno: this.mcSeqno - (this.mcSeqno % 10_000),
      gen_utime: genUtime,
      start_lt: start.toString(),
      end_lt: end.toString(),
      prev_blocks: prev,
      tx_count: txs.length
    }
  }

  private makeBundle(txs: ReadonlyArray<GenTx>, genesis = false): GenBundle {
    const seqno = this.mcSeqno
    let genUtime = this.lastGenUtime + 1
    for (const t of txs) if (t.now > genUtime) genUtime = t.now

    // Decide this block's split or merge; it takes effect in the next masterchain block.
    const splitCandidates = this.shards.filter((s) => s.len < MAX_PREFIX)
    const mergeCandidates = this.shards.filter(
      (s) => s.len > 1 && s.prefix % 2 === 0 && this.shards.some((o) => o.len === s.len && o.prefix === s.prefix + 1)
    )
    let splitting: ShardState | null = null
    let merging: [ShardState, ShardState] | null = null
    const roll = this.rng.next() % 100
    if (genesis) {
      // no layout change in the genesis block
    } else if (roll < 3 && splitCandidates.length > 0 && this.shards.length < 12) {
      splitting = this.rng.pick(splitCandidates)
    } else if (roll < 6 && mergeCandidates.length > 0 && this.shards.length > 2) {
      const left = this.rng.pick(mergeCandidates)
      merging = [left, this.shards.find((o) => o.len === left.len && o.prefix === left.prefix + 1)!]
    }

    // Blocks per shard: mostly one, often two or three, never more than 16 in total.
    const perShard = this.shards.map(() => (genesis ? 1 : [1, 1, 1, 2, 2, 3][this.rng.next() % 6]!))
    let total = perShard.reduce((a, b) => a + b, 0)
    for (let i = 0; total > MAX_SHARD_BLOCKS; i = (i + 1) % perShard.length) {
      if (perShard[i]! > 1) {
        perShard[i]! -= 1
        total -= 1
      }
    }

    const mcTxs: Array<GenTx> = []
    const byShard = this.shards.map(() => [] as Array<GenTx>)
    for (const t of txs) {
      if (t.workchain === -1) {
        mcTxs.push(t)
        continue
      }
      const account = BigInt("0x" + t.account.slice(t.account.indexOf(":") + 1))
      const i = this.shards.findIndex((s) => covers(s, account))
      byShard[i]!.push(t)
    }

    const shardBlocks: Array<BlockRecord> = []
    const shardTops: Array<BlockIdExt> = []
    const blockTxs: Array<{ id: BlockIdExt; txs: Array<GenTx> }> = []
    this.shards.forEach((s, i) => {
      const list = byShard[i]!
      const n = perShard[i]!
      const per = Math.ceil(list.length / n)
      for (let j = 0; j < n; j++) {
        s.seqno += 1
        const shard = signed64(shardId(s.prefix, s.len))
        const id: BlockIdExt = {
          workchain: 0,
          shard,
          seqno: s.seqno,
          root_hash: fakeHash(this.opts.seed, "root", 0, shard, s.seqno),
          file_hash: fakeHash(this.opts.seed, "file", 0, shard, s.seqno)
        }
        const part = list.slice(j * per, (j + 1) * per)
        const last = j === n - 1
        const rec = this.record(
          id,
          part,
          genUtime,
          s.prev,
          {
            afterSplit: s.afterSplit,
            afterMerge: s.afterMerge,
            beforeSplit: last && splitting === s,
            wantSplit: last && splitting === s,
            wantMerge: last && merging !== null && (merging[0] === s || merging[1] === s)
          },
          this.lastEndLt
        )
        shardBlocks.push(rec)
        blockTxs.push({ id, txs: part })
        s.prev = [id]
        s.afterSplit = false
        s.afterMerge = false
        if (last) shardTops.push(id)
      }
    })

    const mcId: BlockIdExt = {
      workchain: -1,
      shard: MC_SHARD,
      seqno,
      root_hash: fakeHash(this.opts.seed, "root", -1, seqno),
      file_hash: fakeHash(this.opts.seed, "file", -1, seqno)
    }
    const mcBlock = this.record(mcId, mcTxs, genUtime, this.mcPrev ? [this.mcPrev] : [], {}, this.lastEndLt)
    for (const b of shardBlocks) if (BigInt(b.end_lt) > this.lastEndLt) this.lastEndLt = BigInt(b.end_lt)
    if (BigInt(mcBlock.end_lt) > this.lastEndLt) this.lastEndLt = BigInt(mcBlock.end_lt)

    // Apply the layout change for the next masterchain block.
    if (splitting) {
      const s = splitting
      const children: Array<ShardState> = [0, 1].map((bit) => ({
        prefix: s.prefix * 2 + bit,
        len: s.len + 1,
        seqno: s.seqno,
        prev: s.prev,
        afterSplit: true,
        afterMerge: false
      }))
      this.shards.splice(this.shards.indexOf(s), 1, ...children)
    } else if (merging) {
      const [l, r] = merging
      const merged: ShardState = {
        prefix: l.prefix >> 1,
        len: l.len - 1,
        seqno: Math.max(l.seqno, r.seqno),
        prev: [...l.prev, ...r.prev],
        afterSplit: false,
        afterMerge: true
      }
      this.shards.splice(this.shards.indexOf(l), 2, merged)
    }

    this.mcPrev = mcId
    this.mcSeqno += 1
    this.lastGenUtime = genUtime

    // The project-wide block order: workchain, shard as a signed 64-bit number, seqno.
    shardBlocks.sort((a, b) => compareBlockIds(a.id, b.id))
    blockTxs.sort((a, b) => compareBlockIds(a.id, b.id))
    shardTops.sort(compareBlockIds)
    const order = (a: GenTx, b: GenTx) =>
      a.account < b.account ? -1 : a.account > b.account ? 1 : BigInt(a.lt) < BigInt(b.lt) ? -1 : 1
    const transactions = [
      ...[...mcTxs].sort(order).map((t) => bundleTx(mcId, t)),
      ...blockTxs.flatMap(({ id, txs: part }) => [...part].sort(order).map((t) => bundleTx(id, t)))
    ]
    return {
      mc_seqno: seqno,
      mc_block: mcBlock,
      shard_blocks: shardBlocks,
      shard_tops: shardTops,
      transactions,
      account_states: [],
      code_hashes: {}
    }
  }
}
