/**
 * Builds a masterchain bundle from toncenter: the masterchain header, its shard tops, every shard block between the
 * previous masterchain block's tops and these (walking prev links through splits and merges, or listed at once by
 * v3 `/blocks`), and all transactions of every block page by page, each request made once however many bundles are
 * in flight. Invariant: a block is included iff it is reachable from a current top without passing a block the
 * previous masterchain block already committed; output order depends only on the chain, never on timing.
 */
import { Address } from "@ton/core"
import { Deferred, Duration, Effect, Schedule } from "effect"
import type { AccountStateRecord, AccountStatus, BlockHeaderExtra, BlockIdExt, BlockRecord } from "../ton/record.js"
import { headerExtra } from "../ton/record.js"
import { headerFields } from "../ton/record.js"
import type { BlockHeaderJson, BlockIdExtJson, BlockTransactionJson, V3BlockJson } from "./schemas.js"
import { int64ToString } from "./schemas.js"
import { blockKey, compareBlockIds, FULL_SHARD, toSigned } from "./shard.js"
import type { BlockRef, ToncenterHttp } from "./ToncenterHttp.js"
import { makeToncenterHttp } from "./ToncenterHttp.js"
import type { RawMasterchainBundle, RawTransaction, ToncenterOptions, UpstreamService } from "./types.js"
import { UpstreamError } from "./types.js"
import { Lru } from "../trace/Lru.js"
import { sharedBy, walkShardBlocks } from "./walk.js"

const V3_BATCH = 100
/** Blocks asked per v3 `/blocks` page: a masterchain block commits one or two per shard, so one page. */
const V3_BLOCKS_PAGE = 256

const toBlockIdExt = (j: BlockIdExtJson): BlockIdExt => ({
  workchain: j.workchain,
  shard: int64ToString(j.shard),
  seqno: j.seqno,
  root_hash: j.root_hash,
  file_hash: j.file_hash
})

export const toBlockRecord = (h: BlockHeaderJson & BlockHeaderExtra, mcSeqno: number, txCount: number): BlockRecord => ({
  id: toBlockIdExt(h.id),
  mc_block_seqno: mcSeqno,
  // toncenter names two header fields differently and sends the lts as numbers or strings
  ...headerFields({
    ...h,
    key_block: h.is_key_block,
    gen_catchain_seqno: h.catchain_seqno,
    start_lt: int64ToString(h.start_lt),
    end_lt: int64ToString(h.end_lt)
  }),
  // v3 headers carry these; v2's getBlockHeader does not
  ...headerExtra(h),
  prev_blocks: h.prev_blocks.map(toBlockIdExt),
  tx_count: txCount
})

const v3Id = (b: V3BlockJson): BlockIdExt => ({
  workchain: b.workchain,
  shard: toSigned(BigInt("0x" + b.shard)),
  seqno: b.seqno,
  root_hash: b.root_hash,
  file_hash: b.file_hash
})

/** A v3 block in v2 getBlockHeader's form (v3 renames two fields and prints gen_utime as a string). */
const v3Header = (b: V3BlockJson, prevBlocks: ReadonlyArray<BlockIdExtJson>): BlockHeaderJson & BlockHeaderExtra => ({
  id: v3Id(b),
  global_id: b.global_id,
  version: b.version,
  flags: b.flags,
  after_merge: b.after_merge,
  after_split: b.after_split,
  before_split: b.before_split,
  want_merge: b.want_merge,
  want_split: b.want_split,
  validator_list_hash_short: b.validator_list_hash_short,
  catchain_seqno: b.gen_catchain_seqno,
  min_ref_mc_seqno: b.min_ref_mc_seqno,
  is_key_block: b.key_block,
  prev_key_block_seqno: b.prev_key_block_seqno,
  start_lt: int64ToString(b.start_lt),
  end_lt: int64ToString(b.end_lt),
  gen_utime: Number(b.gen_utime),
  vert_seqno: b.vert_seqno,
  prev_blocks: prevBlocks,
  ...headerExtra({
    vert_seqno_incr: b.vert_seqno_incr ?? undefined,
    master_ref_seqno: b.rand_seed === undefined || b.rand_seed === null ? undefined : (b.master_ref_seqno ?? null),
    rand_seed: b.rand_seed ?? undefined,
    created_by: b.created_by ?? undefined
  })
})

/** "wc:HEX" upper case from toncenter's `account` (either case) or, failing that, the friendly address. */
export const normalizeAccount = (tx: BlockTransactionJson): string | undefined => {
  if (tx.account !== undefined) {
    const m = /^(-?\d+):([0-9a-fA-F]{1,64})$/.exec(tx.account)
    if (m) return `${m[1]}:${m[2]!.toUpperCase().padStart(64, "0")}`
  }
  if (tx.address !== undefined && tx.address.account_address !== "") {
    try {
      const a = Address.parse(tx.address.account_address)
      return `${a.workChain}:${a.hash.toString("hex").toUpperCase()}`
    } catch {
      return undefined
    }
  }
  return undefined
}

const statusOf = (s: string | null | undefined): AccountStatus | null =>
  s === "active" || s === "uninit" || s === "frozen" || s === "nonexist" ? s : null

export const makeBundleReader = (
  http: ToncenterHttp,
  opts: { readonly pageSize: number; readonly v3: boolean; readonly v3Blocks?: boolean }
) => {
  const headers = new Lru<string, Deferred.Deferred<BlockHeaderJson, UpstreamError>>(4096)
  const shardsCache = new Lru<string, Deferred.Deferred<ReadonlyArray<BlockIdExt>, UpstreamError>>(64)
  const v3Blocks = new Lru<string, Deferred.Deferred<ReadonlyArray<V3BlockJson>, UpstreamError>>(64)

  const header = (ref: BlockRef) =>
    sharedBy(headers, `${blockKey(ref)}:${ref.root_hash ?? ""}`, http.blockHeader(ref)).pipe(
      Effect.filterOrFail(
        (h) => ref.root_hash === undefined || h.id.root_hash === ref.root_hash,
        (h) =>
          new UpstreamError({
            reason: "malformed",
            message: `asked block ${blockKey(ref)} ${ref.root_hash}, got root hash ${h.id.root_hash}`
          })
      )
    )

  const fetchTops = (mcSeqno: number) => Effect.map(http.shards(mcSeqno), (r) => r.shards.map(toBlockIdExt))
  const shardTops = (mcSeqno: number) => sharedBy(shardsCache, String(mcSeqno), fetchTops(mcSeqno))

  /** All transactions of one block, following toncenter's (account, lt) cursor until the block is exhausted. */
  const blockTransactions = (id: BlockIdExt): Effect.Effect<ReadonlyArray<RawTransaction>, UpstreamError> =>
    Effect.gen(function* () {
      const out: Array<RawTransaction> = []
      const seen = new Set<string>()
      let afterLt: string | undefined
      let afterHash: string | undefined
      for (;;) {
        const page = yield* http.blockTransactionsExt(id, { count: opts.pageSize, afterLt, afterHash })
        if (page.id.root_hash !== id.root_hash || page.id.seqno !== id.seqno) {
          const message = `transactions of another block than ${blockKey(id)}`
          return yield* new UpstreamError({ reason: "malformed", message })
        }
        let fresh = 0
        for (const tx of page.transactions) {
          const account = normalizeAccount(tx)
          if (account === undefined) {
            const message = `transaction without account in ${blockKey(id)}`
            return yield* new UpstreamError({ reason: "malformed", message })
          }
          const hash = tx.transaction_id.hash
          if (seen.has(hash)) continue
          seen.add(hash)
          fresh += 1
          out.push({ block: id, account, lt: int64ToString(tx.transaction_id.lt), hash, boc: tx.data })
        }
        const last = out[out.length - 1]
        // an exhausted page or one that brought nothing new ends the loop: a cursor that does not move would spin
        if (!page.incomplete || fresh === 0 || last === undefined) break
        afterLt = last.lt
        afterHash = last.account.slice(last.account.indexOf(":") + 1)
      }
      out.sort((a, b) => (a.account < b.account ? -1 : a.account > b.account ? 1 : cmpLt(a.lt, b.lt)))
      return out
    })

  const enrich = (accounts: ReadonlyArray<string>) =>
    Effect.gen(function* () {
      const states: Array<AccountStateRecord> = []
      const codeHashes: Record<string, string | null> = {}
      const batches: Array<ReadonlyArray<string>> = []
      for (let i = 0; i < accounts.length; i += V3_BATCH) batches.push(accounts.slice(i, i + V3_BATCH))
      const results = yield* Effect.forEach(batches, (b) => http.accountStates(b), { concurrency: "unbounded" })
      for (const r of results) {
        for (const a of r.accounts) {
          const m = /^(-?\d+):([0-9a-fA-F]{64})$/.exec(a.address)
          if (!m) continue
          const account = `${m[1]}:${m[2]!.toUpperCase()}`
          codeHashes[account] = a.code_hash ?? null
          if (a.account_state_hash) {
            states.push({
              hash: a.account_state_hash,
              account,
              balance: a.balance === null || a.balance === undefined ? null : int64ToString(a.balance),
              // the canonical record: extra currencies are null exactly when the balance is (toncenter prints {})
              extra_currencies: a.balance === null || a.balance === undefined ? null : {},
              account_status: statusOf(a.status),
              frozen_hash: a.frozen_hash ?? null,
              data_hash: a.data_hash ?? null,
              code_hash: a.code_hash ?? null
            })
          }
        }
      }
      states.sort((x, y) => (x.account < y.account ? -1 : x.account > y.account ? 1 : 0))
      return { states, codeHashes }
    })

  const bundle = (mcSeqno: number): Effect.Effect<RawMasterchainBundle, UpstreamError> =>
    Effect.gen(function* () {
      const [mcHeader, tops, prevTops] = yield* Effect.all(
        [header({ workchain: -1, shard: FULL_SHARD, seqno: mcSeqno }), shardTops(mcSeqno), shardTops(mcSeqno - 1)],
        { concurrency: "unbounded" }
      )
      const walked = yield* walkShardBlocks({
        mcSeqno,
        tops,
        prevTops,
        fetch: header,
        prevs: (h) => h.prev_blocks.map(toBlockIdExt)
      })
      const shardHeaders = walked.map((w) => w.block)
      return yield* assemble(mcSeqno, mcHeader, shardHeaders, tops, () => true)
    }).pipe(Effect.withSpan("upstream.bundle", { attributes: { mcSeqno } }))

  /** The bundle from its headers and tops: every block's transactions (of those that may have any), then states. */
  const assemble = (
    mcSeqno: number,
    mcHeader: BlockHeaderJson,
    shardHeaders: ReadonlyArray<BlockHeaderJson>,
    tops: ReadonlyArray<BlockIdExt>,
    mayHaveTransactions: (h: BlockHeaderJson) => boolean
  ) =>
    Effect.gen(function* () {
      const headersInOrder = [mcHeader, ...shardHeaders]
      const txs = yield* Effect.forEach(
        headersInOrder,
        (h) => (mayHaveTransactions(h) ? blockTransactions(toBlockIdExt(h.id)) : Effect.succeed([])),
        { concurrency: "unbounded" }
      )
      const transactions = txs.flat()
      const { states, codeHashes } = opts.v3
        ? yield* enrich([...new Set(transactions.map((t) => t.account))].sort())
        : { states: [], codeHashes: {} }
      return {
        mc_seqno: mcSeqno,
        mc_block: toBlockRecord(mcHeader, mcSeqno, txs[0]!.length),
        shard_blocks: shardHeaders.map((h, i) => toBlockRecord(h, mcSeqno, txs[i + 1]!.length)),
        shard_tops: tops,
        transactions,
        account_states: states,
        code_hashes: codeHashes
      } satisfies RawMasterchainBundle
    })

  /** Every block a masterchain seqno commits (and itself) from toncenter v3, all pages; empty means not indexed yet. */
  const blocksV3 = (mcSeqno: number) =>
    sharedBy(
      v3Blocks,
      String(mcSeqno),
      Effect.gen(function* () {
        const out: Array<V3BlockJson> = []
        for (let offset = 0; ; offset += V3_BLOCKS_PAGE) {
          const page = yield* http.blocksV3(mcSeqno, { limit: V3_BLOCKS_PAGE, offset })
          out.push(...page.blocks)
          if (page.blocks.length < V3_BLOCKS_PAGE) break
        }
        if (!out.some((b) => b.workchain === -1 && b.seqno === mcSeqno)) {
          const message = `toncenter v3 has no blocks of masterchain block ${mcSeqno} yet`
          return yield* new UpstreamError({ reason: "not_found", message })
        }
        return out as ReadonlyArray<V3BlockJson>
      })
    )

  /**
   * The same bundle from toncenter v3 `/blocks` (every header of a masterchain block in one request) instead of one
   * getBlockHeader per block. v3 lists prev blocks without hashes: they are taken from the blocks they name, which are
   * this masterchain block's own blocks, the previous one's tops or the previous masterchain block. Shard tops follow
   * from the previous tops while no shard splits or merges (no `shards` request); otherwise they are asked.
   */
  const bundleV3 = (mcSeqno: number): Effect.Effect<RawMasterchainBundle, UpstreamError> =>
    Effect.gen(function* () {
      const tops = yield* sharedBy(shardsCache, String(mcSeqno), topsAfter(mcSeqno))
      const [own, prevTops, prev] = yield* Effect.all(
        [blocksV3(mcSeqno), shardTops(mcSeqno - 1), blocksV3(mcSeqno - 1)],
        { concurrency: "unbounded" }
      )
      const known = new Map<string, BlockIdExt>()
      for (const b of [...own, ...prev.filter((b) => b.workchain === -1)]) known.set(blockKey(v3Id(b)), v3Id(b))
      for (const t of prevTops) known.set(blockKey(t), t)
      const headers: Array<BlockHeaderJson> = []
      for (const b of own) {
        const prevBlocks: Array<BlockIdExtJson> = []
        for (const p of b.prev_blocks) {
          const id = known.get(blockKey({ workchain: p.workchain, shard: toSigned(BigInt("0x" + p.shard)), seqno: p.seqno }))
          if (id === undefined) {
            // the index is still filling in this masterchain block: asking again later is the remedy
            const message = `v3 block ${blockKey(v3Id(b))} of ${mcSeqno} names prev ${p.workchain}:${p.shard}:${p.seqno}, not known`
            return yield* new UpstreamError({ reason: "not_found", message })
          }
          prevBlocks.push(id)
        }
        headers.push(v3Header(b, prevBlocks))
      }
      const mcHeader = headers.find((h) => h.id.workchain === -1 && h.id.seqno === mcSeqno)!
      const shardHeaders = headers
        .filter((h) => h !== mcHeader)
        .sort((a, b) => compareBlockIds(toBlockIdExt(a.id), toBlockIdExt(b.id)))
      const txCount = new Map(own.map((b) => [blockKey(v3Id(b)), b.tx_count]))
      return yield* assemble(mcSeqno, mcHeader, shardHeaders, tops, (h) => {
        const n = txCount.get(blockKey(toBlockIdExt(h.id)))
        return n === null || n === undefined || n > 0
      })
    }).pipe(Effect.withSpan("upstream.bundle", { attributes: { mcSeqno, headers: "v3" } }))

  /** A masterchain block's shard tops from the previous ones and its own blocks; asked when the shards changed. */
  const topsAfter = (mcSeqno: number): Effect.Effect<ReadonlyArray<BlockIdExt>, UpstreamError> =>
    Effect.gen(function* () {
      const [own, prevTops] = yield* Effect.all([blocksV3(mcSeqno), shardTops(mcSeqno - 1)], {
        concurrency: "unbounded"
      })
      const latest = new Map<string, BlockIdExt>()
      let reshaped = false
      for (const b of own) {
        if (b.workchain === -1) continue
        if (b.after_split || b.after_merge || b.before_split) reshaped = true
        const id = v3Id(b)
        const k = `${id.workchain}:${id.shard}`
        if ((latest.get(k)?.seqno ?? -1) < id.seqno) latest.set(k, id)
      }
      const shardsBefore = new Set(prevTops.map((t) => `${t.workchain}:${t.shard}`))
      if (reshaped || [...latest.keys()].some((k) => !shardsBefore.has(k))) return yield* fetchTops(mcSeqno)
      return prevTops.map((t) => latest.get(`${t.workchain}:${t.shard}`) ?? t)
    })

  return { bundle: opts.v3Blocks === true ? bundleV3 : bundle, header, shardTops, blockTransactions }
}

const cmpLt = (a: string, b: string): number => {
  const x = BigInt(a)
  const y = BigInt(b)
  return x < y ? -1 : x > y ? 1 : 0
}

export const makeToncenterUpstream = (opts: ToncenterOptions): Effect.Effect<UpstreamService> =>
  Effect.gen(function* () {
    const http = yield* makeToncenterHttp(opts)
    // toncenter's C++ server takes up to 10000 per request (the Python one any count, paging the liteserver by 256
    // itself): one request per block for all but the rarest blocks
    const pageSize = Math.min(10_000, Math.max(1, opts.pageSize ?? 1024))
    const v3 = opts.v3Url !== undefined && opts.v3Url !== ""
    const v3Blocks = opts.v3BlocksUrl !== undefined && opts.v3BlocksUrl !== ""
    const reader = makeBundleReader(http, { pageSize, v3, v3Blocks })
    let knownHead = -1
    // toncenter balances over several liteservers, so a block at or below a head already seen can still be missing
    // on the one that answers: such misses are retried; a seqno above every head seen fails fast instead
    const lagging = Schedule.exponential(Duration.millis(opts.retryBaseMs ?? 250), 2).pipe(
      Schedule.jittered,
      Schedule.intersect(Schedule.recurs(opts.retries ?? 8)),
      Schedule.whileInput((e: UpstreamError) => e.reason === "not_found")
    )
    return {
      head: Effect.map(http.masterchainInfo, (info) => {
        knownHead = Math.max(knownHead, info.last.seqno)
        return info.last.seqno
      }),
      bundle: (mcSeqno) =>
        Effect.suspend(() =>
          mcSeqno <= knownHead ? Effect.retry(reader.bundle(mcSeqno), lagging) : reader.bundle(mcSeqno)
        )
    } satisfies UpstreamService
  })
