/**
 * The runnable's composition: ApiServer.layer over the ClickHouse service listens on API_HOST:API_PORT, serves
 * from the real engine, and on scope close (what SIGINT/SIGTERM do through runMain) stops listening.
 */
import { ConfigProvider, Context, Effect, Exit, Layer, Scope } from "effect"
import { createServer } from "node:net"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { ApiServer } from "../../src/api/ApiServer.js"
import { ClickHouse } from "../../src/clickhouse/ClickHouse.js"
import { testClickHouse, type TestClickHouse } from "../support/integration.js"

const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const s = createServer()
    s.on("error", reject)
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address() as { port: number }
      s.close(() => resolve(port))
    })
  })

let ch: TestClickHouse

beforeAll(async () => {
  ch = await testClickHouse("api server")
})

afterAll(async () => {
  await ch?.close()
})

describe("ApiServer layer", () => {
  it("listens with the configured keys over ClickHouse and stops when its scope closes", async () => {
    const port = await freePort()
    const env = new Map([
      ["API_HOST", "127.0.0.1"],
      ["API_PORT", String(port)],
      ["API_KEYS", "secret"],
      ["NETWORK", "mainnet"]
    ])
    const layer = ApiServer.layer.pipe(Layer.provide(ClickHouse.fromConfig(ch.config)))
    const scope = Effect.runSync(Scope.make())
    const server = await Effect.runPromise(
      Layer.buildWithScope(layer, scope).pipe(Effect.withConfigProvider(ConfigProvider.fromMap(env)))
    )
    const { address } = Context.get(server, ApiServer)
    expect(address).toBe(`http://127.0.0.1:${port}`)
    const base = `http://127.0.0.1:${port}`
    const denied = await fetch(`${base}/api/v3/masterchainBlockShardState?seqno=1`)
    expect(denied.status).toBe(401)
    expect(await denied.text()).toBe('{"error":"API key does not exist"}')
    const miss = await fetch(`${base}/api/v3/masterchainBlockShardState?seqno=1`, {
      headers: { "X-API-Key": "secret" }
    })
    expect(miss.status).toBe(404)
    expect(await miss.text()).toBe('{"error":"masterchain block 1 not found"}')
    const overview = await fetch(`${base}/overview?api_key=secret`)
    expect(overview.status).toBe(200)
    expect(overview.headers.get("content-type")).toContain("text/html")
    const health = await fetch(`${base}/health`)
    expect(await health.json()).toEqual({ status: "ok", last_mc_seqno: null })
    await Effect.runPromise(Scope.close(scope, Exit.void))
    await expect(fetch(`${base}/health`)).rejects.toThrow()
  })
})
