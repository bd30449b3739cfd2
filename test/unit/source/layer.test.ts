import { ConfigProvider, Effect, Exit, Layer } from "effect"
import { describe, expect, it } from "vitest"
import { expectedBundle } from "../../../tools/fake/ChainData.js"
import { fixturesChain, startFakeToncenter } from "../../../tools/fake/server.js"
import { Upstream } from "../../../src/source/Upstream.js"
import { UpstreamChoice } from "../../../pipelines/live.js"

const withEnv = (env: Record<string, string>) =>
  Layer.setConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(env))))

describe("Upstream.layer from settings", { timeout: 180_000 }, () => {
  it("the runnables' upstream choice serves the bundled recorded chain offline when TONCENTER_URL is empty", async () => {
    const chain = fixturesChain()
    const program = Effect.gen(function* () {
      const up = yield* Upstream
      const head = yield* up.head
      const bundle = yield* up.bundle(chain.first)
      return { head, hashes: bundle.transactions.map((t) => t.hash) }
    })
    const got = await Effect.runPromise(
      program.pipe(Effect.provide(UpstreamChoice.layer), Effect.provide(withEnv({ TONCENTER_URL: "" })), Effect.scoped)
    )
    expect(got.head).toBe(chain.last)
    expect(got.hashes).toEqual(expectedBundle(chain, chain.first).tx_hashes)
  })

  it("fails naming TONCENTER_URL when it is empty: the product's layer never falls back to a stand-in", async () => {
    const exit = await Effect.runPromiseExit(
      Effect.flatMap(Upstream, (u) => u.head).pipe(Effect.provide(Upstream.layer), Effect.provide(withEnv({})))
    )
    expect(Exit.isFailure(exit)).toBe(true)
    expect(String(Exit.isFailure(exit) ? exit.cause : "")).toContain("TONCENTER_URL")
  })

  it("talks to TONCENTER_URL with TONCENTER_API_KEY when set", async () => {
    const fake = await startFakeToncenter({ chain: { kind: "fixtures" }, apiKey: "k1" })
    try {
      const env = { TONCENTER_URL: `${fake.url}/api/v2`, TONCENTER_API_KEY: "k1", TONCENTER_RPS: "1000" }
      const head = await Effect.runPromise(
        Effect.flatMap(Upstream, (u) => u.head).pipe(Effect.provide(Upstream.layer), Effect.provide(withEnv(env)))
      )
      expect(head).toBe(fake.chain.last)
      expect(fake.requests.map((r) => r.apiKey)).toEqual(["k1"])
    } finally {
      await fake.stop()
    }
  })
})
