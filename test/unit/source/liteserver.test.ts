import { Effect, Exit, Scope } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { makeLiteserverUpstream, type LiteserverUpstream } from "../../../src/source/liteserver/Liteserver.js"
import { parseDirect } from "../../../src/source/liteserver/addresses.js"
import { makeToncenterUpstream } from "../../../src/source/Toncenter.js"
import type { RawMasterchainBundle, UpstreamService } from "../../../src/source/Upstream.js"
import { chainStats, expectedBundle } from "../../../tools/fake/ChainData.js"
import { generateChain } from "../../../tools/fake/generate.js"
import { type LiteChain, withBlockFiles } from "../../../tools/fake/liteserver/blocks.js"
import { type FakeLiteserver, startFakeLiteserver } from "../../../tools/fake/liteserver/server.js"
import { type FakeToncenter, fixturesChain, startFakeToncenter } from "../../../tools/fake/server.js"

const collect = async (up: UpstreamService, from: number, to: number): Promise<Array<RawMasterchainBundle>> => {
  const out: Array<RawMasterchainBundle> = []
  // as the producer does: the head first, so that misses below it are known to be a lagging server's
  await Effect.runPromise(up.head)
  for (let s = from; s <= to; s++) out.push(await Effect.runPromise(up.bundle(s)))
  return out
}

interface Scoped {
  readonly scope: Scope.CloseableScope
  readonly up: LiteserverUpstream
}

const liteUpstream = async (
  servers: ReadonlyArray<FakeLiteserver>,
  extra: { timeoutMs?: number; rps?: number; retries?: number } = {}
): Promise<Scoped> => {
  const scope = await Effect.runPromise(Scope.make())
  const addresses = parseDirect(servers.map((s) => s.config).join(","))!
  const up = await Effect.runPromise(
    Scope.extend(
      makeLiteserverUpstream({
        servers: addresses,
        timeoutMs: 1_000,
        retryBaseMs: 20,
        retryMaxMs: 200,
        retries: 12,
        ...extra
      }),
      scope
    )
  )
  return { scope, up }
}

const close = (s: Scoped | undefined) => (s ? Effect.runPromise(Scope.close(s.scope, Exit.void)) : Promise.resolve())

const sameAsToncenter = (lite: LiteChain, name: string) =>
  describe(`the liteserver source over ${name}`, { timeout: 240_000 }, () => {
    let ls: FakeLiteserver
    let tc: FakeToncenter
    let scoped: Scoped
    beforeAll(async () => {
      ls = await startFakeLiteserver({ chain: lite })
      tc = await startFakeToncenter({ chain: lite.chain })
      scoped = await liteUpstream([ls])
    }, 300_000)
    afterAll(async () => {
      await close(scoped)
      await ls?.stop()
      await tc?.stop()
    })

    it("yields the toncenter source's bundles, record for record and byte for byte", async () => {
      const { first, last } = lite.chain
      const fromToncenter = await collect(
        // v3 block headers: they carry rand_seed, created_by, master_ref_seqno and vert_seqno_incr as the blocks do
        await Effect.runPromise(makeToncenterUpstream({ url: tc.url, v3BlocksUrl: tc.url, rps: 0, concurrency: 6 })),
        first,
        last
      )
      ls.clearRequests()
      const fromLite = await collect(scoped.up, first, last)
      expect(fromLite).toEqual(fromToncenter)
      for (const b of fromLite) {
        const want = expectedBundle(lite.chain, b.mc_seqno)
        expect(b.transactions.map((t) => t.hash)).toEqual(want.tx_hashes)
        expect(b.shard_blocks).toEqual(want.shard_blocks)
      }
      // one getBlock per block the bundles commit and one for the masterchain block before the first; a backfill
      // looks each masterchain id up except the head's, which getMasterchainInfo gave
      const committed = fromLite.reduce((n, b) => n + 1 + b.shard_blocks.length, 0)
      const byMethod = (m: string) => ls.requests.filter((r) => r.method === m).length
      expect(byMethod("getBlock")).toBe(committed + 1)
      expect(byMethod("lookupBlock")).toBe(fromLite.length - 1)
    })

    it("follows the head: masterchain ids come from getMasterchainInfo, so a block costs 1 + its new shard blocks", async () => {
      const fresh = await liteUpstream([ls])
      try {
        ls.clearRequests()
        const { first } = lite.chain
        await Effect.runPromise(fresh.up.bundle(first))
        const before = ls.requests.length
        let shardBlocks = 0
        for (let s = first + 1; s <= Math.min(first + 6, lite.chain.last); s++) {
          // a follower learns each new masterchain id from the head it polls
          ls.setLag(lite.chain.last - s)
          expect(await Effect.runPromise(fresh.up.head)).toBe(s)
          shardBlocks += (await Effect.runPromise(fresh.up.bundle(s))).shard_blocks.length
        }
        ls.setLag(0)
        const polls = ls.requests.slice(before).filter((r) => r.method === "getMasterchainInfo").length
        const blockRequests = ls.requests.length - before - polls
        expect(blockRequests).toBe(Math.min(6, lite.chain.last - first) + shardBlocks)
      } finally {
        await close(fresh)
      }
    })
  })

sameAsToncenter(withBlockFiles(fixturesChain()), "the fixtures chain")

const generated = generateChain({
  seed: 42,
  mcBlocks: 24,
  txPerBlock: 3,
  maxShards: 8,
  splitChance: 0.35,
  mergeChance: 0.3
})
sameAsToncenter(withBlockFiles(generated), "a generated chain with splits and merges")

describe("the liteserver source under faults", { timeout: 240_000 }, () => {
  const lite = withBlockFiles(generated)
  let servers: Array<FakeLiteserver> = []
  let truth: Array<RawMasterchainBundle>
  beforeAll(async () => {
    const ls = await startFakeLiteserver({ chain: lite })
    const s = await liteUpstream([ls])
    truth = await collect(s.up, lite.chain.first, lite.chain.last)
    await close(s)
    await ls.stop()
    expect(chainStats(lite.chain).merges).toBeGreaterThan(0)
  }, 300_000)
  afterAll(async () => {
    for (const s of servers) await s.stop()
  })

  const survive = async (plans: ReadonlyArray<Parameters<typeof startFakeLiteserver>[0]>) => {
    servers = await Promise.all(plans.map((p) => startFakeLiteserver(p)))
    const s = await liteUpstream(servers, { timeoutMs: 300 })
    try {
      const got = await collect(s.up, lite.chain.first, lite.chain.last)
      expect(got).toEqual(truth)
      return s.up
    } finally {
      await close(s)
      for (const x of servers) await x.stop()
      servers = []
    }
  }

  it("one server: timeouts, dropped connections, errors and wrong blocks are retried without gaps", async () => {
    await survive([
      {
        chain: lite,
        faults: [
          { method: "getBlock", kind: "timeout", every: 7 },
          { method: "getBlock", kind: "drop", every: 11 },
          { method: "getBlock", kind: "error", code: 500, every: 5 },
          { method: "getBlock", kind: "wrong_block", every: 13 },
          {
            method: "lookupBlock",
            kind: "error",
            code: 651,
            from: 1,
            count: 2
          }
        ]
      }
    ])
  })

  it("fails over from a dead server and routes around a lagging one", async () => {
    const up = await survive([
      { chain: lite, faults: [{ kind: "drop" }] },
      { chain: lite, lag: 10 },
      {
        chain: lite,
        faults: [{ method: "getBlock", kind: "slow", delayMs: 20, every: 3 }]
      }
    ])
    const stats = up.pool.servers()
    expect(stats[2]!.requests).toBeGreaterThan(stats[0]!.requests)
  })

  it("does not retry a block beyond every head it has seen", async () => {
    const ls = await startFakeLiteserver({
      chain: lite,
      reveal: { initial: 3 }
    })
    servers = [ls]
    const s = await liteUpstream([ls])
    try {
      expect(await Effect.runPromise(s.up.head)).toBe(lite.chain.first + 2)
      const exit = await Effect.runPromiseExit(s.up.bundle(lite.chain.first + 5))
      expect(Exit.isFailure(exit)).toBe(true)
      expect(JSON.stringify(exit)).toContain("not_found")
      expect(ls.requests.filter((r) => r.method === "lookupBlock").length).toBe(1)
    } finally {
      await close(s)
    }
  })
})
