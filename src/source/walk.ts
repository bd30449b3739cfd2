/**
 * What both sources do the same way: share one request per key among the bundles in flight, and walk from a
 * masterchain block's shard tops back through prev links (across splits and merges) to the blocks the previous
 * masterchain block already committed. Invariant: the walk yields each block a masterchain block commits exactly once,
 * sorted by (workchain, shard, seqno), whatever order the answers arrive in; a shared request that failed or was
 * interrupted is not kept, so the next caller asks again.
 */
import { Cause, Deferred, Effect, Exit, FiberId } from "effect"
import type { BlockIdExt } from "../ton/record.js"
import type { Lru } from "../trace/Lru.js"
import { blockKey, compareBlockIds, overlaps } from "./shard.js"
import { UpstreamError } from "./types.js"

/** More blocks than this between two masterchain blocks means the links are inconsistent, not a busy chain. */
export const MAX_WALK = 20_000

/**
 * One request per key: callers asking while it is in flight wait for the same answer (bundles are fetched several at
 * a time, and neighbours ask for the same shard tops and blocks), later callers get it from the cache. A failure is
 * not kept: the next caller asks again; callers of an interrupted request ask again themselves.
 */
export const sharedBy = <A>(
  cache: Lru<string, Deferred.Deferred<A, UpstreamError>>,
  key: string,
  eff: Effect.Effect<A, UpstreamError>
): Effect.Effect<A, UpstreamError> =>
  Effect.suspend(() => {
    const hit = cache.get(key)
    if (hit !== undefined) {
      return Deferred.await(hit).pipe(
        Effect.catchAllCause((cause) =>
          Cause.isInterruptedOnly(cause) ? sharedBy(cache, key, eff) : Effect.failCause(cause)
        )
      )
    }
    const d = Deferred.unsafeMake<A, UpstreamError>(FiberId.none)
    cache.set(key, d)
    return eff.pipe(
      Effect.onExit((exit) =>
        Effect.zipRight(
          Exit.isSuccess(exit) ? Effect.void : Effect.sync(() => cache.delete(key, d)),
          Deferred.done(d, exit)
        )
      )
    )
  })

export interface ShardWalk<H> {
  readonly mcSeqno: number
  /** The masterchain block's shard tops. */
  readonly tops: ReadonlyArray<BlockIdExt>
  /** The previous masterchain block's shard tops: the walk stops at them. */
  readonly prevTops: ReadonlyArray<BlockIdExt>
  /** One block (its header at least), asked by its full id; a level of the walk asks its blocks concurrently. */
  readonly fetch: (id: BlockIdExt) => Effect.Effect<H, UpstreamError>
  /** The prev links of a fetched block, as full ids. */
  readonly prevs: (h: H) => ReadonlyArray<BlockIdExt>
}

/**
 * The shard blocks a masterchain block commits: from its tops back through prev links, stopping at blocks at or
 * below a previous top of an overlapping shard (those an earlier masterchain block committed). Sorted by id.
 */
export const walkShardBlocks = <H>(
  w: ShardWalk<H>
): Effect.Effect<ReadonlyArray<{ readonly id: BlockIdExt; readonly block: H }>, UpstreamError> =>
  Effect.gen(function* () {
    const committedBefore = (id: BlockIdExt) =>
      w.prevTops.some((t) => t.workchain === id.workchain && overlaps(t.shard, id.shard) && id.seqno <= t.seqno)
    const found = new Map<string, { readonly id: BlockIdExt; readonly block: H }>()
    let frontier = w.tops.filter((t) => !committedBefore(t))
    while (frontier.length > 0) {
      const got = yield* Effect.forEach(frontier, (id) => Effect.map(w.fetch(id), (block) => ({ id, block })), {
        concurrency: "unbounded"
      })
      const next = new Map<string, BlockIdExt>()
      for (const g of got) found.set(blockKey(g.id), g)
      for (const g of got) {
        for (const p of w.prevs(g.block)) {
          const k = blockKey(p)
          if (!committedBefore(p) && !found.has(k)) next.set(k, p)
        }
      }
      if (found.size > MAX_WALK) {
        const message = `shard walk of ${w.mcSeqno} exceeds ${MAX_WALK} blocks`
        return yield* new UpstreamError({ reason: "malformed", message })
      }
      frontier = [...next.values()]
    }
    return [...found.values()].sort((a, b) => compareBlockIds(a.id, b.id))
  })
