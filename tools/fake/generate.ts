/**
 * Deterministic generated chains for the fake toncenter: a masterchain whose blocks commit several shard blocks per
 * shard, shards that split and merge over time (1 to 16 of them), real transaction cells, and the recorded fixture
 * transactions re-homed into blocks whose shard contains their account. Invariant: the same options always produce
 * the same chain, byte for byte; large chains are cached on disk under a key of those options.
 */
import { createHash } from "node:crypto"
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs"
import os from "node:os"
import path from "node:path"
import type { Cell } from "@ton/core"
import { serializeBoc } from "../../src/ton/boc.js"
import type { BlockIdExt, BlockRecord } from "../../src/ton/record.js"
import { blockKey, children, containsAccount, FULL_SHARD, parent, prefixLength, toUnsigned } from "../../src/source/shard.js"
import type { ChainBlock, ChainData, ChainMasterchain, ChainTx } from "./ChainData.js"
import { chainFromJson, chainToJson, compareTx, sortBlocks } from "./ChainData.js"
import { installFastCellHash } from "../../src/ton/fastHash.js"
import { loadFixtureGroups } from "./fixtures.js"
import { buildTransaction, type GenAccount, makeAccount, makeRng, type PendingMessage, type TxKind } from "./txgen.js"

export interface GenerateOptions {
  readonly seed: number
  /** Masterchain blocks with a complete bundle. */
  readonly mcBlocks: number
  readonly firstSeqno?: number
  /** Mean generated transactions per shard block; 0 leaves only fixtures and tick-tock. */
  readonly txPerBlock?: number
  /** Upper bound on basechain shards (1..16). */
  readonly maxShards?: number
  readonly initialShards?: 1 | 2 | 4 | 8 | 16
  readonly splitChance?: number
  readonly mergeChance?: number
  /** Most shard blocks one shard produces per masterchain block. */
  readonly maxBlocksPerShard?: number
  /** Mix the recorded real transactions in (default true). */
  readonly fixtures?: boolean
  /** Extra generated transactions put into the first shard block after the first masterchain block (pagination). */
  readonly bigBlockTxs?: number
  readonly accounts?: number
  readonly network?: string
  /** BOC writer for generated cells (the node's cell order when available). */
  readonly boc?: (cell: Cell) => Buffer
  /** Cache on disk when at least this many transactions are expected (default 20000). */
  readonly cacheAboveTxs?: number
}

const GENERATOR_VERSION = 4
const ROUND_LT = 10_000_000_000n
const BLOCK_LT = 10_000_000n
const TX_LT = 10n

// the node's cell order, so generated BOCs look exactly like what toncenter serves
const defaultBoc = (cell: Cell): Buffer => serializeBoc(cell)

const digest = (s: string): string => createHash("sha256").update(s).digest("base64")

interface Draft {
  readonly workchain: number
  readonly shard: string
  readonly seqno: number
  readonly prev: ReadonlyArray<BlockIdExt>
  readonly after_split: boolean
  readonly after_merge: boolean
  before_split: boolean
  want_merge: boolean
  want_split: boolean
  readonly txs: Array<ChainTx>
}

/** Chains already built in this process: test files and jobs often ask for the same one more than once. */
const memo = new Map<string, ChainData>()

/** Drops the in-process cache (the on-disk one stays). */
export const forgetGeneratedChains = (): void => memo.clear()

export const generateChain = (opts: GenerateOptions): ChainData => {
  const { boc: _boc, cacheAboveTxs: _threshold, ...keyed } = opts
  const key = digest(JSON.stringify({ v: GENERATOR_VERSION, bocWriter: opts.boc?.name ?? "node-order", ...keyed }))
    .replace(/[^A-Za-z0-9]/g, "")
    .slice(0, 24)
  const known = memo.get(key)
  if (known) return known
  const chain = cachedOnDisk(key, opts)
  memo.set(key, chain)
  return chain
}

const cachedOnDisk = (key: string, opts: GenerateOptions): ChainData => {
  const expected = opts.mcBlocks * ((opts.txPerBlock ?? 8) * 3 + 2) + (opts.bigBlockTxs ?? 0)
  if (expected < (opts.cacheAboveTxs ?? 20_000)) return buildChain(opts)
  const dir = path.join(os.tmpdir(), "ton-fake-chains")
  const file = path.join(dir, `chain-${key}.json`)
  if (existsSync(file)) return chainFromJson(JSON.parse(readFileSync(file, "utf8")))
  const chain = buildChain(opts)
  mkdirSync(dir, { recursive: true })
  // a private temporary name, then an atomic rename: parallel processes never see a half-written cache file
  const tmp = `${file}.${process.pid}.${Date.now()}.tmp`
  writeFileSync(tmp, JSON.stringify(chainToJson(chain)))
  renameSync(tmp, file)
  return chain
}

/** Builds the chain from scratch, bypassing both caches. */
export const buildChain = (opts: GenerateOptions): ChainData => {
  installFastCellHash()
  const rng = makeRng(opts.seed)
  const boc = opts.boc ?? defaultBoc
  const first = opts.firstSeqno ?? 1000
  const base = first - 1
  const last = first + opts.mcBlocks - 1
  const txPerBlock = opts.txPerBlock ?? 8
  const maxShards = Math.min(16, Math.max(1, opts.maxShards ?? 16))
  const maxDepth = Math.ceil(Math.log2(maxShards))
  const splitChance = opts.splitChance ?? 0.15
  const mergeChance = opts.mergeChance ?? 0.1
  const maxPerShard = Math.max(1, opts.maxBlocksPerShard ?? 3)
  const network = opts.network ?? "fake"
  const globalId = network === "mainnet" ? -239 : network === "testnet" ? -3 : -217
  const baseTime = 1_700_000_000

  const idOf = (workchain: number, shard: string, seqno: number): BlockIdExt => ({
    workchain,
    shard,
    seqno,
    root_hash: digest(`fake|${opts.seed}|root|${workchain}|${shard}|${seqno}`),
    file_hash: digest(`fake|${opts.seed}|file|${workchain}|${shard}|${seqno}`)
  })

  // accounts live in 16 buckets by their top 4 bits, so a shard of any depth <= 4 finds its own quickly
  const accountCount = Math.max(16, opts.accounts ?? 1024)
  const buckets: Array<Array<GenAccount>> = Array.from({ length: 16 }, () => [])
  for (let i = 0; i < accountCount; i++) {
    const hash = rng.bytes(32)
    const b = i % 16
    hash[0] = (b << 4) | (hash[0]! & 0x0f)
    buckets[b]!.push(makeAccount(0, hash, rng, rng.chance(0.7)))
  }
  const allAccounts = buckets.flat()
  const mcAccounts = [0, 1, 2].map(() => makeAccount(-1, rng.bytes(32), rng, true))
  const pending: Array<Array<PendingMessage>> = Array.from({ length: 16 }, () => [])
  const bucketsOf = (shard: string): Array<number> => {
    const out: Array<number> = []
    for (let b = 0; b < 16; b++) {
      const hex = b.toString(16) + "0".repeat(63)
      if (containsAccount(shard, hex)) out.push(b)
    }
    return out
  }

  const fixtureGroups = opts.fixtures === false ? [] : loadFixtureGroups()
  const seen = new Set<string>()
  const mcFixtures = fixtureGroups.filter((g) => g.workchain === -1)
  let carry: Array<ChainTx> = []
  const shardFixtures = fixtureGroups.filter((g) => g.workchain === 0)

  // current shard tops of workchain 0, keyed by shard
  const tops = new Map<string, { id: BlockIdExt; draft: Draft | undefined; splitDue: boolean }>()
  const masterchain = new Map<number, ChainMasterchain>()
  const blocks = new Map<string, ChainBlock>()
  let prevMc: BlockIdExt | undefined
  let bigDue = (opts.bigBlockTxs ?? 0) > 0

  const initial = opts.initialShards ?? 1
  let initialShards = [FULL_SHARD]
  while (initialShards.length < initial) initialShards = initialShards.flatMap((s) => [...children(s)])

  for (let m = base; m <= last; m++) {
    const drafts: Array<Draft> = []
    const roundLt = BigInt(m) * ROUND_LT
    const now = baseTime + (m - base) * 5
    const mk = (shard: string, seqno: number, prev: ReadonlyArray<BlockIdExt>, extra: Partial<Draft> = {}): Draft => {
      const d: Draft = {
        workchain: 0,
        shard,
        seqno,
        prev,
        after_split: false,
        after_merge: false,
        before_split: false,
        want_merge: false,
        want_split: false,
        txs: [],
        ...extra
      }
      drafts.push(d)
      return d
    }
    const extend = (shard: string, k: number) => {
      for (let i = 0; i < k; i++) {
        const t = tops.get(shard)!
        const d = mk(shard, t.id.seqno + 1, [t.id])
        tops.set(shard, { id: idOf(0, shard, d.seqno), draft: d, splitDue: false })
      }
    }

    if (m === base) {
      for (const s of initialShards) {
        const d = mk(s, 1, [])
        tops.set(s, { id: idOf(0, s, 1), draft: d, splitDue: false })
      }
    } else {
      const handled = new Set<string>()
      for (const shard of [...tops.keys()].sort((a, b) => (toUnsigned(a) < toUnsigned(b) ? -1 : 1))) {
        if (handled.has(shard) || !tops.has(shard)) continue
        const t = tops.get(shard)!
        const depth = prefixLength(shard)
        if (t.splitDue) {
          // the parent announced the split in an earlier round: its children start now
          handled.add(shard)
          tops.delete(shard)
          for (const c of children(shard)) {
            const d = mk(c, t.id.seqno + 1, [t.id], { after_split: true })
            tops.set(c, { id: idOf(0, c, d.seqno), draft: d, splitDue: false })
            handled.add(c)
            extend(c, rng.int(0, maxPerShard - 1))
          }
          continue
        }
        const sibling = depth > 0 ? siblingOf(shard) : undefined
        const canMerge =
          sibling !== undefined && tops.has(sibling) && !handled.has(sibling) && !tops.get(sibling)!.splitDue
        if (canMerge && rng.chance(mergeChance)) {
          const [left, right] = toUnsigned(shard) < toUnsigned(sibling) ? [shard, sibling] : [sibling, shard]
          extend(left, rng.int(0, maxPerShard - 1))
          extend(right, rng.int(0, maxPerShard - 1))
          const l = tops.get(left)!
          const r = tops.get(right)!
          if (l.draft) l.draft.want_merge = true
          if (r.draft) r.draft.want_merge = true
          const p = parent(shard)
          tops.delete(left)
          tops.delete(right)
          const d = mk(p, Math.max(l.id.seqno, r.id.seqno) + 1, [l.id, r.id], { after_merge: true })
          tops.set(p, { id: idOf(0, p, d.seqno), draft: d, splitDue: false })
          handled.add(left).add(right).add(p)
          continue
        }
        handled.add(shard)
        if (depth < maxDepth && tops.size < maxShards && rng.chance(splitChance)) {
          extend(shard, rng.int(0, maxPerShard - 1))
          const top = tops.get(shard)!
          const d = mk(shard, top.id.seqno + 1, [top.id], { before_split: true, want_split: true })
          tops.set(shard, { id: idOf(0, shard, d.seqno), draft: d, splitDue: true })
          if (rng.chance(0.5)) {
            // split completes inside this round: children are committed together with the announcing block
            const parentTop = tops.get(shard)!
            tops.delete(shard)
            for (const c of children(shard)) {
              const cd = mk(c, parentTop.id.seqno + 1, [parentTop.id], { after_split: true })
              tops.set(c, { id: idOf(0, c, cd.seqno), draft: cd, splitDue: false })
              handled.add(c)
            }
          }
          continue
        }
        extend(shard, rng.chance(0.15) ? 0 : rng.int(1, maxPerShard))
      }
    }
    for (const t of tops.values()) t.draft = undefined

    // transactions: fixtures first (into the first new block of a shard that holds the account), then generated
    const mcTxs: Array<ChainTx> = []
    if (m >= first) {
      const mcGroup = mcFixtures[m - first]
      if (mcGroup) for (const tx of mcGroup.txs) if (!seen.has(tx.hash)) (seen.add(tx.hash), mcTxs.push(tx))
      const group = shardFixtures[m - first]
      const todo = [...carry, ...(group ? group.txs : [])]
      carry = []
      for (const tx of todo) {
        if (seen.has(tx.hash)) continue
        const hex = tx.account.slice(tx.account.indexOf(":") + 1)
        const home = drafts.find((d) => containsAccount(d.shard, hex))
        if (home === undefined) carry.push(tx)
        else (seen.add(tx.hash), home.txs.push(tx))
      }
    }

    const mcStart = roundLt
    const blockStart = (i: number): bigint => roundLt + BigInt(i + 1) * BLOCK_LT
    const generate = (d: Draft, start: bigint, count: number) => {
      const bs = bucketsOf(d.shard)
      const local = bs.flatMap((b) => buckets[b]!)
      for (let i = 0; i < count; i++) {
        const lt = start + BigInt(i + 1) * TX_LT
        let inbound: PendingMessage | undefined
        let account: GenAccount
        const b = bs[rng.int(0, bs.length - 1)]!
        const queue = pending[b]!
        if (queue.length > 0 && queue[0]!.round < m && rng.chance(0.6)) {
          inbound = queue.shift()!
          account = inbound.dest
        } else {
          account = local[rng.int(0, local.length - 1)]!
        }
        const kind: TxKind = inbound
          ? rng.chance(0.12)
            ? "aborted"
            : "internal"
          : rng.chance(0.75)
            ? "wallet"
            : rng.chance(0.5)
              ? "internal"
              : "aborted"
        const built = buildTransaction({ rng, account, lt, now, kind, inbound, peers: allAccounts, round: m, boc })
        d.txs.push(built.tx)
        for (const s of built.sent) {
          const q = pending[Number.parseInt(s.dest.raw[2]!, 16)]!
          q.push(s)
          if (q.length > 2000) q.shift()
        }
      }
    }
    drafts.forEach((d, i) => {
      const n = m === base ? 0 : txPerBlock === 0 ? 0 : rng.int(0, 2 * txPerBlock)
      const big = bigDue && m > first && i === 0 ? (opts.bigBlockTxs ?? 0) : 0
      if (big > 0) bigDue = false
      generate(d, blockStart(i), n + big)
    })
    const mcCount = m === base || txPerBlock === 0 ? 0 : 2
    for (let i = 0; i < mcCount; i++) {
      const built = buildTransaction({
        rng,
        account: mcAccounts[i]!,
        lt: mcStart + BigInt(i + 1) * TX_LT,
        now,
        kind: "ticktock",
        peers: [],
        round: m,
        boc
      })
      mcTxs.push(built.tx)
    }

    const record = (d: Draft, id: BlockIdExt, start: bigint, txs: ReadonlyArray<ChainTx>): BlockRecord => ({
      id,
      mc_block_seqno: m,
      global_id: globalId,
      version: 0,
      flags: 1,
      after_merge: d.after_merge,
      after_split: d.after_split,
      before_split: d.before_split,
      want_merge: d.want_merge,
      want_split: d.want_split,
      key_block: false,
      vert_seqno: 1,
      validator_list_hash_short: (opts.seed * 7919 + m) | 0,
      gen_catchain_seqno: 10_000 + Math.floor(m / 100),
      min_ref_mc_seqno: d.workchain === -1 ? Math.max(base, m - 1) : m - 1,
      prev_key_block_seqno: base,
      gen_utime: now,
      ...ltRange(start, start + BigInt(txs.length + 1) * TX_LT + 1n, txs),
      prev_blocks: d.prev,
      tx_count: txs.length
    })

    const shardBlocks = sortBlocks(
      drafts.map((d, i) => {
        const txs = d.txs.sort(compareTx)
        const b: ChainBlock = { record: record(d, idOf(0, d.shard, d.seqno), blockStart(i), txs), txs }
        blocks.set(blockKey(b.record.id), b)
        return b
      })
    )
    const mcId = idOf(-1, FULL_SHARD, m)
    const mcDraft: Draft = {
      workchain: -1,
      shard: FULL_SHARD,
      seqno: m,
      prev: prevMc ? [prevMc] : [],
      after_split: false,
      after_merge: false,
      before_split: false,
      want_merge: true,
      want_split: false,
      txs: mcTxs.sort(compareTx)
    }
    const mcBlock: ChainBlock = { record: record(mcDraft, mcId, mcStart, mcDraft.txs), txs: mcDraft.txs }
    blocks.set(blockKey(mcId), mcBlock)
    const shardTops = [...tops.values()].map((t) => t.id).sort((a, b) => (BigInt(a.shard) < BigInt(b.shard) ? -1 : 1))
    masterchain.set(m, { seqno: m, block: mcBlock, shardTops, shardBlocks })
    prevMc = mcId
  }
  const name = `generated(seed=${opts.seed},mc=${opts.mcBlocks},tx=${txPerBlock})`
  return { name, network, base, first, last, masterchain, blocks }
}

/** A block's lt range, widened to cover re-homed recorded transactions whose lts come from their original block. */
const ltRange = (start: bigint, end: bigint, txs: ReadonlyArray<ChainTx>) => {
  let lo = start
  let hi = end
  for (const t of txs) {
    const lt = BigInt(t.lt)
    if (lt <= lo) lo = lt - 1n
    if (lt >= hi) hi = lt + 1n
  }
  return { start_lt: lo.toString(), end_lt: hi.toString() }
}

const siblingOf = (shard: string): string => {
  const [l, r] = children(parent(shard))
  return l === shard ? r : l
}
