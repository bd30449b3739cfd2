// The liteserver source with several bundles in flight, as the producer runs it: requests for the same block or the
// same masterchain id are shared, and a fetch that was interrupted (a producer attempt that failed elsewhere) leaves
// nothing behind that would fail the next fetch of the same blocks. The reader holds a block's bytes only until the
// bundle that commits it has them: what stays is the headers (and a first bundle's previous masterchain block).
import { Effect, Exit, Fiber, Scope } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { parseDirect } from "../../../src/source/liteserver/addresses.js"
import {
  makeLiteserverReader,
  makeLiteserverUpstream,
  type LiteserverUpstream
} from "../../../src/source/liteserver/Liteserver.js"
import { makeLitePool } from "../../../src/source/liteserver/Pool.js"
import { blockKey } from "../../../src/source/shard.js"
import { expectedBundle } from "../../../tools/fake/ChainData.js"
import { generateChain } from "../../../tools/fake/generate.js"
import { type LiteChain, withBlockFiles } from "../../../tools/fake/liteserver/blocks.js"
import { type FakeLiteserver, startFakeLiteserver } from "../../../tools/fake/liteserver/server.js"

const lite: LiteChain = withBlockFiles(
  generateChain({
    seed: 8,
    mcBlocks: 14,
    txPerBlock: 2,
    initialShards: 2,
    maxShards: 4,
    fixtures: false,
    network: "testnet"
  })
)

const open = async (ls: FakeLiteserver) => {
  const scope = await Effect.runPromise(Scope.make())
  const up: LiteserverUpstream = await Effect.runPromise(
    Scope.extend(
      makeLiteserverUpstream({ servers: parseDirect(ls.config)!, timeoutMs: 2_000, retryBaseMs: 20, retryMaxMs: 100 }),
      scope
    )
  )
  return { up, close: () => Effect.runPromise(Scope.close(scope, Exit.void)) }
}

describe("the liteserver source with bundles in flight side by side", { timeout: 120_000 }, () => {
  let ls: FakeLiteserver
  beforeAll(async () => {
    ls = await startFakeLiteserver({ chain: lite, latencyMs: 60 })
  })
  afterAll(async () => ls?.stop())

  it("asks each masterchain id and each block once however many bundles want it", async () => {
    const { up, close } = await open(ls)
    try {
      await Effect.runPromise(up.head)
      ls.clearRequests()
      const { first } = lite.chain
      const seqnos = Array.from({ length: 8 }, (_, i) => first + 1 + i)
      const got = await Effect.runPromise(Effect.forEach(seqnos, up.bundle, { concurrency: 8 }))
      expect(got.map((b) => b.transactions.map((t) => t.hash))).toEqual(
        seqnos.map((s) => expectedBundle(lite.chain, s).tx_hashes)
      )
      const asked = (method: string) => ls.requests.filter((r) => r.method === method).map((r) => r.block)
      const lookups = asked("lookupBlock")
      expect(new Set(lookups).size).toBe(lookups.length)
      // at most the ids of first .. first + 8 (some come with a later block's prev link instead)
      expect(lookups.length).toBeLessThanOrEqual(9)
      const blocks = asked("getBlock")
      expect(new Set(blocks).size).toBe(blocks.length)
    } finally {
      await close()
    }
  })

  it("a fetch interrupted mid-request leaves the next fetch of the same bundle to succeed", async () => {
    const { up, close } = await open(ls)
    try {
      await Effect.runPromise(up.head)
      const { first } = lite.chain
      // interrupted while its lookup, its masterchain block or its shard blocks are being asked
      const cases = [
        { seqno: first + 2, waitMs: 20 },
        { seqno: first + 5, waitMs: 90 },
        { seqno: first + 8, waitMs: 150 }
      ]
      for (const { seqno, waitMs } of cases) {
        const fiber = Effect.runFork(up.bundle(seqno))
        await new Promise((r) => setTimeout(r, waitMs))
        await Effect.runPromise(Fiber.interrupt(fiber))
      }
      for (const { seqno } of cases) {
        const b = await Effect.runPromise(up.bundle(seqno))
        expect(b.transactions.map((t) => t.hash)).toEqual(expectedBundle(lite.chain, seqno).tx_hashes)
      }
    } finally {
      await close()
    }
  })

  it("a block request whose only caller was interrupted goes on and answers the next caller: one getBlock", async () => {
    const pool = makeLitePool({ servers: parseDirect(ls.config)!, timeoutMs: 2_000, retryBaseMs: 20, retryMaxMs: 100 })
    try {
      const reader = makeLiteserverReader(pool, { blockFiles: true })
      const seqno = lite.chain.first + 3
      const id = await Effect.runPromise(reader.mcId(seqno))
      ls.clearRequests()
      // the answer takes the server's 60 ms: the caller goes away while the request is in flight
      const fiber = Effect.runFork(reader.block(id, seqno))
      await new Promise((r) => setTimeout(r, 20))
      await Effect.runPromise(Fiber.interrupt(fiber))
      const got = await Effect.runPromise(reader.block(id, seqno))
      expect([got.header.workchain, got.header.shard, got.header.seqno]).toEqual([id.workchain, id.shard, id.seqno])
      expect(ls.requests.filter((r) => r.method === "getBlock")).toHaveLength(1)
    } finally {
      pool.close()
    }
  })

  for (const blockFiles of [true, false]) {
    it(`keeps no block's bytes once its bundle has them, and asks again for a bundle taken before (block files: ${blockFiles})`, async () => {
      const pool = makeLitePool({ servers: parseDirect(ls.config)!, timeoutMs: 2_000, retryBaseMs: 20, retryMaxMs: 100 })
      try {
        const reader = makeLiteserverReader(pool, { blockFiles })
        const { first } = lite.chain
        const seqnos = Array.from({ length: 8 }, (_, i) => first + 1 + i)
        const asBundle = (s: number): Effect.Effect<{ readonly mc_seqno: number }, unknown> =>
          blockFiles ? reader.bundleFiles!(s) : reader.bundle(s)
        const got = await Effect.runPromise(Effect.forEach(seqnos, asBundle, { concurrency: 4 }))
        expect(got.map((b) => b.mc_seqno)).toEqual(seqnos)
        // the walk of `first + 1` read the header of `first`, whose bundle was never asked for: its bytes alone stay
        const before = await Effect.runPromise(reader.mcId(first))
        expect(reader.heldBlocks()).toBe(1)
        expect(reader.heldBlockBytes()).toBe(lite.files.get(blockKey(before))!.length)
        // a bundle asked again (an attempt that failed after the walk) gets its blocks anew, the same bytes
        ls.clearRequests()
        const again = await Effect.runPromise(asBundle(first + 3))
        expect(again).toEqual(got[2])
        const expectedBlocks = 1 + expectedBundle(lite.chain, first + 3).shard_blocks.length
        expect(ls.requests.filter((r) => r.method === "getBlock")).toHaveLength(expectedBlocks)
        expect(reader.heldBlocks()).toBe(1)
      } finally {
        pool.close()
      }
    })
  }
})
