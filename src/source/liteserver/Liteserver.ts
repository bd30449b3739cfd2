/**
 * Builds masterchain bundles from liteservers: the masterchain block (its header and, in McBlockExtra, the shard
 * descriptions that commit shard blocks), then every shard block between the previous masterchain block's shard tops
 * and these, each fetched whole with liteServer.getBlock and read with extractBlock. Per masterchain block that is one
 * request for it plus one per new shard block (a lookupBlock more when its id is not known from the head or a prev
 * link). Invariant: the bundle equals the toncenter source's for the same chain (the same shard walk, the same
 * records), and every block used is the one asked for: the answer's id, the root hash of its BOC and the sha256 of
 * the file all match the requested id. Account states come from the blocks' own state updates when asked for
 * (states.ts), at no request cost.
 */
import { ConfigError, Effect, Either } from "effect"
import { Functions } from "ton-lite-client/dist/schema.js"
import { type ExtractedBlock, extractBlock, toBlockRecord } from "../../ton/block.js"
import type { BlockIdExt } from "../../ton/record.js"
import { blockKey, compareBlockIds, FULL_SHARD } from "../shard.js"
import { scanBlockHeader, type ScannedHeader } from "../../ton/fast/blockHeader.js"
import type { RawMasterchainBundle, UpstreamService } from "../types.js"
import { UpstreamError } from "../types.js"
import { Lru } from "../../trace/Lru.js"
import { walkShardBlocks } from "../walk.js"
import { loadLiteserverAddresses } from "./addresses.js"
import { addressText } from "./LiteConnection.js"
import { type LitePool, type LitePoolOptions, makeLitePool } from "./Pool.js"
import { makeAccountLookup } from "./accountLookup.js"
import { type AccountStatesMode, bundleStates, NO_STATES } from "./states.js"
import {
  type BlockFile,
  blockFile,
  type BlockFilesBundle,
  completeBlockFiles,
  ownBlockFile,
  transactionsOf
} from "./blockFiles.js"

interface TlId {
  readonly workchain: number
  readonly shard: string
  readonly seqno: number
  readonly rootHash: Buffer
  readonly fileHash: Buffer
}

const toTl = (id: BlockIdExt) => ({
  kind: "tonNode.blockIdExt" as const,
  workchain: id.workchain,
  shard: id.shard,
  seqno: id.seqno,
  rootHash: Buffer.from(id.root_hash, "base64"),
  fileHash: Buffer.from(id.file_hash, "base64")
})

const fromTl = (id: TlId): BlockIdExt => ({
  workchain: id.workchain,
  shard: BigInt.asIntN(64, BigInt(id.shard)).toString(),
  seqno: id.seqno,
  root_hash: id.rootHash.toString("base64"),
  file_hash: id.fileHash.toString("base64")
})

const sameId = (a: BlockIdExt, b: BlockIdExt) =>
  a.workchain === b.workchain &&
  a.shard === b.shard &&
  a.seqno === b.seqno &&
  a.root_hash === b.root_hash &&
  a.file_hash === b.file_hash

const idText = (id: BlockIdExt) => `${blockKey(id)}:${id.root_hash}`

const malformed = (message: string) => new UpstreamError({ reason: "malformed", message })

/**
 * A block as the walk holds it: its header (the shard walk and the next bundle's previous masterchain block need no
 * more). What the block's bundle reads of it, whole, is held apart (Whole) until that bundle takes it.
 */
interface FetchedBlock {
  readonly header: ScannedHeader
}

/** The block read whole (no block files) or its file (block files), and its size in bytes (the file's). */
type Whole = { readonly bytes: number } & ({ readonly x: ExtractedBlock } | { readonly file: BlockFile })

/**
 * The header read from the file alone, or undefined when the header reader does not take it (it is read whole). The
 * file is kept in bytes of its own: the answer's bytes are a view into the whole ADNL packet, which a kept view would
 * keep alive, and which a message to a decode worker would copy whole.
 */
const scanned = (file: BlockFile): { fetched: FetchedBlock; whole: Whole } | undefined => {
  try {
    const header = scanBlockHeader(file.data)
    return { fetched: { header }, whole: { bytes: file.data.length, file: ownBlockFile(file) } }
  } catch {
    return undefined
  }
}

export interface ReaderOptions {
  /**
   * "block": account states and code hashes from each block's state update; "block+lookup": also one
   * getAccountState per account the messages mention that no block reported; "off" (the default): none.
   */
  readonly accountStates?: AccountStatesMode
  /**
   * Read only each block's header here and hand the bundle on as block files (bundleFiles), for decode workers to
   * read whole; `bundle` then reads them here. Not with "block+lookup", whose lookups need the transactions here.
   */
  readonly blockFiles?: boolean
}

export const makeLiteserverReader = (pool: LitePool, readerOpts: ReaderOptions = {}) => {
  const blocks = new Lru<string, Promise<FetchedBlock>>(4096)
  // Each fetched block's bytes, from its answer until the bundle that commits it takes them: a bundle's walk takes
  // its own blocks' once, so what stays here is the blocks of bundles still being walked (and a first bundle's
  // previous masterchain block). Headers stay cached in `blocks` for the bundles that only look at them; the bytes do
  // not (with every 4096 blocks' kept there, a backfill's producer held ~100 MB of files already sent on).
  const unclaimed = new Lru<string, Whole>(4096, { maxWeight: Number.MAX_SAFE_INTEGER, weigh: (w) => w.bytes })
  const mcIds = new Lru<string, BlockIdExt>(1024)
  // the block a validated answer decoded to, handed from the check to the caller without decoding twice
  const extracted = new WeakMap<object, { fetched: FetchedBlock; whole: Whole }>()
  const mode = readerOpts.accountStates ?? "off"
  // the lookups read the bundle's transactions here, so a reader that makes them reads every block here too
  const deferred = readerOpts.blockFiles === true && mode !== "block+lookup"
  let knownHead = -1
  const lookup = makeAccountLookup(pool)

  /**
   * A block checked against the id it was asked by: read whole here, or, with block files, its header read from the
   * file and the file kept for whoever decodes the bundle. One promise per block, shared by every bundle that asks for
   * it while it is in flight or cached; a failed one is dropped, so the next caller asks again. A caller that is
   * interrupted stops waiting; the request goes on for the others (and the cache). `again` asks even when cached:
   * for a bundle whose block was taken by an earlier attempt at it.
   */
  const fetchBlock = (id: BlockIdExt, mcSeqno: number, again = false): Promise<FetchedBlock> => {
    const key = idText(id)
    const hit = again ? undefined : blocks.get(key)
    if (hit !== undefined) return hit
    const fetched = pool
      .ask(
        Functions.liteServer_getBlock,
        { kind: "liteServer.getBlock", id: toTl(id) },
        { needsSeqno: mcSeqno, retryNotFound: mcSeqno <= knownHead },
        (answer, server) => {
          const got = fromTl(answer.id)
          if (!sameId(got, id)) return malformed(`${server} answered block ${idText(got)} for ${idText(id)}`)
          // the one check of the file's bytes: whoever reads the file later trusts it
          const file = blockFile(id, answer.data)
          if (Either.isLeft(file)) return malformed(`${server}: ${file.left.message}`)
          const read = deferred ? scanned(file.right) : undefined
          if (read !== undefined) {
            const h = read.fetched.header
            if (h.workchain !== id.workchain || h.shard !== id.shard || h.seqno !== id.seqno) {
              return malformed(`${server}: block ${blockKey(id)} says it is ${h.workchain}:${h.shard}:${h.seqno}`)
            }
            extracted.set(answer, read)
            return undefined
          }
          const x = extractBlock(answer.data)
          if (Either.isLeft(x)) return malformed(`${server}: block ${blockKey(id)}: ${x.left.message}`)
          const h = x.right.header
          if (h.root_hash !== id.root_hash) return malformed(`${server}: root hash of ${blockKey(id)} is ${h.root_hash}`)
          if (h.workchain !== id.workchain || h.shard !== id.shard || h.seqno !== id.seqno) {
            return malformed(`${server}: block ${blockKey(id)} says it is ${h.workchain}:${h.shard}:${h.seqno}`)
          }
          const bytes = answer.data.length
          // a file the header reader does not take is still handed on whole: its reader reads it as here
          extracted.set(answer, {
            fetched: { header: h },
            whole: deferred ? { bytes, file: ownBlockFile(file.right) } : { bytes, x: x.right }
          })
          return undefined
        }
      )
      .then(({ answer }) => {
        const x = extracted.get(answer)!
        extracted.delete(answer)
        unclaimed.set(key, x.whole)
        return x.fetched
      })
    blocks.set(key, fetched)
    fetched.catch(() => blocks.delete(key, fetched))
    return fetched
  }

  const block = (id: BlockIdExt, mcSeqno: number, again = false): Effect.Effect<FetchedBlock, UpstreamError> =>
    Effect.tryPromise({
      try: () => fetchBlock(id, mcSeqno, again),
      catch: (e) => (e instanceof UpstreamError ? e : malformed(`block ${blockKey(id)}: ${String(e)}`))
    })

  /**
   * The bytes of a block the bundle commits, taken: the reader keeps them no longer. A block an earlier attempt at
   * the same bundle took is asked again.
   */
  const whole = (id: BlockIdExt, mcSeqno: number): Effect.Effect<Whole, UpstreamError> =>
    Effect.suspend(() => {
      const key = idText(id)
      const w = unclaimed.get(key)
      if (w !== undefined) {
        unclaimed.delete(key, w)
        return Effect.succeed(w)
      }
      return Effect.flatMap(block(id, mcSeqno, true), () => whole(id, mcSeqno))
    })

  /** The bundle's blocks' bytes, taken in order. */
  const wholes = (ids: ReadonlyArray<BlockIdExt>, mcSeqno: number) =>
    Effect.forEach(ids, (id) => whole(id, mcSeqno))

  const noteMc = (id: BlockIdExt) => mcIds.set(String(id.seqno), id)

  /** The full id of a masterchain block: known from the head or a later block's prev link, else looked up. */
  const mcId = (seqno: number): Effect.Effect<BlockIdExt, UpstreamError> =>
    Effect.suspend(() => {
      const hit = mcIds.get(String(seqno))
      if (hit !== undefined) return Effect.succeed(hit)
      return Effect.flatMap(
        pool.query(
          Functions.liteServer_lookupBlock,
          {
            kind: "liteServer.lookupBlock",
            mode: 1,
            id: {
              kind: "tonNode.blockId",
              workchain: -1,
              shard: FULL_SHARD,
              seqno
            },
            lt: null,
            utime: null
          },
          { needsSeqno: seqno, retryNotFound: seqno <= knownHead },
          (answer, server) => {
            const id = fromTl(answer.id)
            return id.workchain === -1 && id.shard === FULL_SHARD && id.seqno === seqno
              ? undefined
              : malformed(`${server} looked up ${blockKey(id)} for masterchain ${seqno}`)
          }
        ),
        ({ answer }) => {
          const id = fromTl(answer.id)
          noteMc(id)
          return Effect.succeed(id)
        }
      )
    })

  const head = Effect.map(
    pool.query(Functions.liteServer_getMasterchainInfo, {
      kind: "liteServer.masterchainInfo"
    } as never),
    ({ answer, serverIndex }) => {
      const last = fromTl((answer as { last: TlId }).last)
      noteMc(last)
      pool.noteHead(serverIndex, last.seqno)
      knownHead = Math.max(knownHead, last.seqno)
      return last.seqno
    }
  )

  const mcBlock = (seqno: number) =>
    Effect.gen(function* () {
      const id = yield* mcId(seqno)
      const x = yield* block(id, seqno)
      if (x.header.shards === null) return yield* malformed(`masterchain block ${seqno} has no shard descriptions`)
      const prev = x.header.prev_blocks[0]
      // the five fields alone: a prev link carries end_lt too, which would follow the id into the bundle
      if (prev !== undefined && prev.seqno === seqno - 1) noteMc(idOf(prev))
      return { id, x }
    })

  /** The five fields of an id (headers' prev links and shard descriptions carry more). */
  const idOf = (p: BlockIdExt): BlockIdExt => ({
    workchain: p.workchain,
    shard: p.shard,
    seqno: p.seqno,
    root_hash: p.root_hash,
    file_hash: p.file_hash
  })

  const topsOf = (x: FetchedBlock): ReadonlyArray<BlockIdExt> => x.header.shards!.map(idOf)

  /** The masterchain block and the shard blocks it commits, in the bundle's order, and its shard tops (sorted). */
  const walk = (mcSeqno: number) =>
    Effect.gen(function* () {
      const mc = yield* mcBlock(mcSeqno)
      const prevMc = yield* mcBlock(mcSeqno - 1)
      const tops = topsOf(mc.x)
      const prevTops = topsOf(prevMc.x)
      const shardBlocks = (yield* walkShardBlocks({
        mcSeqno,
        tops,
        prevTops,
        fetch: (id) => block(id, mcSeqno),
        prevs: (x) => x.header.prev_blocks.map(idOf)
      })).map((w) => ({ id: w.id, x: w.block }))
      return { mc, blocks: [mc, ...shardBlocks], shard_tops: [...tops].sort(compareBlockIds) }
    })

  /** The bundle as its block files, for a decoder that reads them (the reader must have been made with blockFiles). */
  const bundleFiles = (mcSeqno: number): Effect.Effect<BlockFilesBundle, UpstreamError> =>
    Effect.gen(function* () {
      if (!deferred) return yield* Effect.dieMessage("bundleFiles needs a reader made with blockFiles and no lookups")
      const w = yield* walk(mcSeqno)
      const taken = yield* wholes(w.blocks.map((b) => b.id), mcSeqno)
      return {
        mc_seqno: mcSeqno,
        blocks: taken.map((t) => ("file" in t ? t.file : undefined)!),
        shard_tops: w.shard_tops,
        states: mode === "block" ? "block" : "off"
      } satisfies BlockFilesBundle
    }).pipe(Effect.withSpan("upstream.bundle", { attributes: { mcSeqno, source: "liteserver" } }))

  const bundle = (mcSeqno: number): Effect.Effect<RawMasterchainBundle, UpstreamError> =>
    deferred
      ? Effect.flatMap(bundleFiles(mcSeqno), (files) => completeBlockFiles(files))
      : Effect.gen(function* () {
          const w = yield* walk(mcSeqno)
          const xs = (yield* wholes(w.blocks.map((b) => b.id), mcSeqno)).map((t) => ("x" in t ? t.x : undefined)!)
          const transactions = w.blocks.flatMap((b, i) => transactionsOf(b.id, xs[i]!))
          const fromBlocks = mode === "off" ? NO_STATES : bundleStates(xs)
          const states =
            mode === "block+lookup" ? yield* lookup.fill(w.mc.id, mcSeqno, fromBlocks, transactions) : fromBlocks
          return {
            mc_seqno: mcSeqno,
            mc_block: toBlockRecord(xs[0]!.header, mcSeqno, w.mc.id.file_hash),
            shard_blocks: w.blocks.slice(1).map((b, i) => toBlockRecord(xs[i + 1]!.header, mcSeqno, b.id.file_hash)),
            shard_tops: w.shard_tops,
            transactions,
            ...states
          } satisfies RawMasterchainBundle
        }).pipe(
          Effect.withSpan("upstream.bundle", {
            attributes: { mcSeqno, source: "liteserver" }
          })
        )

  return {
    head,
    bundle,
    bundleFiles: deferred ? bundleFiles : undefined,
    block,
    mcId,
    accountLookups: lookup.lookups,
    heldBlocks: () => unclaimed.size,
    heldBlockBytes: () => unclaimed.weight
  }
}

export interface LiteserverUpstream extends UpstreamService {
  /** Lite API requests sent so far (every attempt counts). */
  readonly requests: () => number
  /** getAccountState answers used so far (LITESERVER_ACCOUNT_STATES=block+lookup). */
  readonly accountLookups: () => number
  readonly pool: LitePool
}

/** A liteserver upstream over a pool that lives as long as the scope. */
export const makeLiteserverUpstream = (opts: LitePoolOptions & ReaderOptions) =>
  Effect.gen(function* () {
    const pool = yield* Effect.acquireRelease(
      Effect.sync(() => makeLitePool(opts)),
      (p) => Effect.sync(() => p.close())
    )
    const reader = makeLiteserverReader(pool, {
      accountStates: opts.accountStates ?? "off",
      blockFiles: opts.blockFiles ?? false
    })
    return {
      head: reader.head,
      bundle: reader.bundle,
      ...(reader.bundleFiles === undefined ? {} : { bundleFiles: reader.bundleFiles }),
      requests: pool.requests,
      accountLookups: reader.accountLookups,
      pool
    } satisfies LiteserverUpstream
  })

export interface LiteserverSettings {
  /** LITESERVER_CONFIG: a global config's path or URL, or host:port:key[,...]. */
  readonly config: string
  readonly rps: number
  readonly timeoutMs: number
  readonly retries: number
  /** LITESERVER_ACCOUNT_STATES */
  readonly accountStates: AccountStatesMode
}

/** The upstream from the LITESERVER_* settings; an unusable LITESERVER_CONFIG is a configuration error. */
export const liteserverFromSettings = (s: LiteserverSettings) =>
  Effect.gen(function* () {
    const servers = yield* Effect.tryPromise({
      try: () => loadLiteserverAddresses(s.config),
      catch: (e) =>
        ConfigError.InvalidData(
          ["LITESERVER_CONFIG"],
          `LITESERVER_CONFIG: ${e instanceof Error ? e.message : String(e)}`
        )
    })
    yield* Effect.logInfo(`reading blocks from ${servers.length} liteserver(s): ${servers.map(addressText).join(", ")}`)
    yield* Effect.logInfo(
      s.accountStates === "off"
        ? "account states off (LITESERVER_ACCOUNT_STATES=off): v3 states are hash-only"
        : s.accountStates === "block"
          ? "account states from each block's state update (0 extra requests per masterchain block)"
          : "account states from each block's state update, and one getAccountState per account its messages mention that no block reported"
    )
    return yield* makeLiteserverUpstream({
      servers,
      rps: s.rps,
      timeoutMs: s.timeoutMs,
      retries: s.retries,
      accountStates: s.accountStates,
      // the producer's decode workers read the blocks whole; this thread reads only their headers
      blockFiles: true
    })
  })
