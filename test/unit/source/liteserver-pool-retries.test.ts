// The liteserver pool's retries, as a plain loop: a query that keeps failing gives up after `retries` retries with
// the reason of its last attempt, one that fails with a reason that is not retried gives up at once, and a query whose
// caller is interrupted while it waits to retry sends nothing more, and closing the pool ends a query nobody waits
// for (a shared block fetch whose callers were interrupted) at once instead of after its backoff.
import { Effect, Exit, Fiber } from "effect"
import { Functions } from "ton-lite-client/dist/schema.js"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { parseDirect } from "../../../src/source/liteserver/addresses.js"
import { type LitePool, makeLitePool } from "../../../src/source/liteserver/Pool.js"
import { UpstreamError } from "../../../src/source/types.js"
import { generateChain } from "../../../tools/fake/generate.js"
import { withBlockFiles } from "../../../tools/fake/liteserver/blocks.js"
import { type FakeLiteserver, startFakeLiteserver } from "../../../tools/fake/liteserver/server.js"

const lite = withBlockFiles(
  generateChain({ seed: 5, mcBlocks: 4, txPerBlock: 1, initialShards: 1, maxShards: 1, fixtures: false, network: "testnet" })
)

const info = { kind: "liteServer.masterchainInfo" } as never
const asked = (ls: FakeLiteserver) => ls.requests.filter((r) => r.method === "getMasterchainInfo").length

describe("the liteserver pool's retries", { timeout: 60_000 }, () => {
  let ls: FakeLiteserver
  beforeAll(async () => {
    ls = await startFakeLiteserver({ chain: lite })
  })
  afterAll(async () => ls?.stop())

  const pool = (retries: number, retryBaseMs: number) =>
    makeLitePool({ servers: parseDirect(ls.config)!, timeoutMs: 2_000, retries, retryBaseMs, retryMaxMs: retryBaseMs })

  /** `body` with a pool of `retries` retries `retryBaseMs` apart while getMasterchainInfo fails with `code`. */
  const failing = async (code: number, retries: number, retryBaseMs: number, body: (p: LitePool) => Promise<void>) => {
    ls.setFaults([{ method: "getMasterchainInfo", kind: "error", code }])
    ls.clearRequests()
    const p = pool(retries, retryBaseMs)
    try {
      await body(p)
    } finally {
      p.close()
      ls.setFaults([])
    }
  }

  it("gives up after `retries` retries with the last attempt's reason; answers once the fault passes", () =>
    failing(500, 3, 5, async (p) => {
      const exit = await Effect.runPromiseExit(p.query(Functions.liteServer_getMasterchainInfo, info))
      expect(Exit.isFailure(exit) && exit.cause._tag === "Fail" && exit.cause.error).toBeInstanceOf(UpstreamError)
      expect(Exit.isFailure(exit) && exit.cause._tag === "Fail" && exit.cause.error.reason).toBe("server_error")
      expect(asked(ls)).toBe(4)
      ls.setFaults([{ method: "getMasterchainInfo", kind: "error", code: 500, from: 1, count: 2 }])
      ls.clearRequests()
      const got = await Effect.runPromise(p.query(Functions.liteServer_getMasterchainInfo, info))
      expect(got.serverIndex).toBe(0)
      expect(asked(ls)).toBe(3)
    }))

  it("does not retry a reason that is not retried (not found, unless asked to)", () =>
    failing(651, 5, 5, async (p) => {
      const exit = await Effect.runPromiseExit(p.query(Functions.liteServer_getMasterchainInfo, info))
      expect(Exit.isFailure(exit) && exit.cause._tag === "Fail" && exit.cause.error.reason).toBe("not_found")
      expect(asked(ls)).toBe(1)
      ls.clearRequests()
      const again = await Effect.runPromiseExit(
        p.query(Functions.liteServer_getMasterchainInfo, info, { retryNotFound: true })
      )
      expect(Exit.isFailure(again)).toBe(true)
      expect(asked(ls)).toBe(6)
    }))

  it("an interrupted query sends no more attempts", () =>
    failing(500, 8, 200, async (p) => {
      const fiber = Effect.runFork(p.query(Functions.liteServer_getMasterchainInfo, info))
      await new Promise((r) => setTimeout(r, 100))
      expect(asked(ls)).toBe(1)
      await Effect.runPromise(Fiber.interrupt(fiber))
      await new Promise((r) => setTimeout(r, 600))
      expect(asked(ls)).toBe(1)
    }))

  it("closing the pool ends a query still retrying, without waiting out its backoff", () =>
    failing(500, 8, 5_000, async (p) => {
      const pending = p.ask(Functions.liteServer_getMasterchainInfo, info)
      const settled = pending.then(
        () => "answered",
        (e: unknown) => (e instanceof UpstreamError ? e.message : String(e))
      )
      await new Promise((r) => setTimeout(r, 300))
      expect(asked(ls)).toBe(1)
      const closedAt = Date.now()
      p.close()
      expect(await settled).toBe("the liteserver pool is closed")
      expect(Date.now() - closedAt).toBeLessThan(1_000)
      expect(asked(ls)).toBe(1)
    }))
})
