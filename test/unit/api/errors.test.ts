/**
 * The error edge of the API: wrong methods name what is allowed (405 with `Allow`, CONNECT included, which Node
 * would otherwise drop silently), every non-2xx under /api/v3/ comes in ton-index-go's shape whatever produced it
 * (validation, parser refusals, shutdown), a repeated parameter is reported as such, and the overview's `days`
 * refuses non-finite and out-of-range numbers before ClickHouse is asked.
 */
import { connect } from "node:net"
import type { ClickHouseClient } from "@clickhouse/client"
import { describe, expect, it } from "vitest"
import { overviewRoutes } from "../../../src/analytics/page/routes.js"
import { BIG_MC, appFor, bigBlockWorld } from "./world.js"

const raw = (port: number, text: string) =>
  new Promise<string>((resolve, reject) => {
    let out = ""
    const s = connect(port, "127.0.0.1", () => s.write(text))
    s.setTimeout(5000, () => {
      s.destroy()
      resolve(out)
    })
    s.on("data", (d) => (out += d.toString("utf8")))
    s.on("close", () => resolve(out))
    s.on("error", reject)
  })

describe("wrong methods", () => {
  const { store } = bigBlockWorld()

  it("answer 405 with the methods the path allows, in the dialect of the path", async () => {
    const app = appFor(store)
    for (const [method, url, allow, body] of [
      [
        "POST",
        `/api/v3/masterchainBlockShardState?seqno=${BIG_MC}`,
        "GET, HEAD, OPTIONS",
        '{"error":"Method Not Allowed"}'
      ],
      ["DELETE", "/api/v3/masterchainBlockShards", "GET, HEAD, OPTIONS", '{"error":"Method Not Allowed"}'],
      ["GET", "/api/v2/jsonRPC", "POST, OPTIONS", '{"ok":false,"error":"Method Not Allowed","code":405}'],
      ["PUT", "/api/v2/shards?seqno=1", "GET, HEAD, OPTIONS", '{"ok":false,"error":"Method Not Allowed","code":405}']
    ] as const) {
      const res = await app.inject({ method, url })
      expect(res.statusCode, `${method} ${url}`).toBe(405)
      expect(res.headers.allow, `${method} ${url}`).toBe(allow)
      expect(res.body).toBe(body)
    }
    // a method carrying a body is told the same, not that its content type is missing
    const put = await app.inject({
      method: "PUT",
      url: "/api/v3/masterchainBlockShards",
      payload: "x"
    })
    expect(put.statusCode).toBe(405)
    expect(put.headers.allow).toBe("GET, HEAD, OPTIONS")
  })

  it("answer CONNECT too, instead of closing the connection in silence", async () => {
    const app = appFor(store)
    await app.listen({ host: "127.0.0.1", port: 0 })
    const { port } = app.server.address() as { port: number }
    try {
      const proxy = await raw(port, "CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n")
      expect(proxy).toMatch(/^HTTP\/1.1 405 /)
      expect(proxy).toMatch(/\r\nAllow: GET, HEAD, POST, OPTIONS\r\n/)
      expect(proxy.endsWith('{"ok":false,"error":"Method Not Allowed","code":405}')).toBe(true)
      const v3 = await raw(port, "CONNECT /api/v3/masterchainBlockShards HTTP/1.1\r\nHost: x\r\n\r\n")
      expect(v3).toMatch(/^HTTP\/1.1 405 /)
      expect(v3).toMatch(/\r\nAllow: GET, HEAD, OPTIONS\r\n/)
      expect(v3.endsWith('{"error":"Method Not Allowed"}')).toBe(true)
      // requests the parser refuses answer in the dialect of their target when it can be read
      const big = await raw(port, `GET /api/v3/masterchainBlockShards?seqno=1&x=${"a".repeat(20_000)} HTTP/1.1\r\n\r\n`)
      expect(big).toMatch(/^HTTP\/1.1 431 /)
      expect(big.endsWith('{"error":"Request Header Fields Too Large"}')).toBe(true)
    } finally {
      await app.close()
    }
  })
})

describe("messages name the actual problem", () => {
  const { store } = bigBlockWorld()
  const app = appFor(store)

  it("reports a repeated parameter as repeated, in both dialects", async () => {
    const v3 = await app.inject(`/api/v3/masterchainBlockShardState?seqno=${BIG_MC}&seqno=${BIG_MC}`)
    expect(v3.statusCode).toBe(422)
    expect(v3.body).toBe('{"error":"seqno: given more than once"}')
    const v2 = await app.inject("/api/v2/getBlockTransactionsExt?workchain=0&shard=1&seqno=2&count=1&count=2")
    expect(v2.statusCode).toBe(422)
    expect(v2.body).toBe('{"ok":false,"error":"count: given more than once","code":422}')
  })

  it("says a JSON-RPC body that is not an object is not one", async () => {
    const res = await app.inject({
      method: "POST",
      url: "/api/v2/jsonRPC",
      headers: { "content-type": "application/json" },
      payload: "[]"
    })
    expect(res.statusCode).toBe(422)
    expect(res.json().error).toBe("Validation error: request body: must be a JSON object")
  })

  it("answers in the v3 shape under /api/v3 whatever the query string holds", async () => {
    const res = await app.inject("/api/v3?seqno=1")
    expect(res.statusCode).toBe(404)
    expect(Object.keys(res.json())).toEqual(["error"])
  })

  it("answers requests arriving during shutdown with a 503 in the path's dialect", async () => {
    const slow = bigBlockWorld().store
    const blockById = slow.blockById.bind(slow)
    slow.blockById = async (id) => {
      await new Promise((r) => setTimeout(r, 500))
      return blockById(id)
    }
    const closing = appFor(slow)
    await closing.listen({ host: "127.0.0.1", port: 0 })
    const { port } = closing.server.address() as { port: number }
    // a second request on the connection of one still in flight, sent once shutdown has begun
    const request = `GET /api/v3/masterchainBlockShards?seqno=${BIG_MC} HTTP/1.1\r\nHost: x\r\n\r\n`
    let text = ""
    const socket = connect(port, "127.0.0.1", () => socket.write(request))
    socket.on("data", (d) => (text += d.toString("utf8")))
    const ended = new Promise((r) => socket.on("close", r))
    await new Promise((r) => setTimeout(r, 150))
    const closed = closing.close()
    await new Promise((r) => setTimeout(r, 50))
    socket.write(request)
    await Promise.all([closed, ended])
    expect(text).toMatch(/^HTTP\/1.1 200 /)
    expect(text).toContain("HTTP/1.1 503 ")
    expect(text.endsWith('{"error":"Service Unavailable: the server is shutting down"}')).toBe(true)
  })
})

describe("overview data: days", () => {
  /** A ClickHouse client that must never be reached: bad input is refused before any query. */
  const unreachable = {
    query: async () => {
      throw new Error("ClickHouse is not running in this test")
    }
  } as unknown as ClickHouseClient

  it("refuses non-finite, fractional and out-of-range values with a 4xx naming days", async () => {
    const app = appFor(bigBlockWorld().store)
    app.register(overviewRoutes, { client: unreachable })
    for (const days of ["-Infinity", "-1e400", "Infinity", "1e400", "0", "36501", "1.5", "abc", "1e3", "-1"]) {
      const res = await app.inject(`/overview/data?days=${encodeURIComponent(days)}`)
      expect(res.statusCode, days).toBe(422)
      expect(res.json().error, days).toMatch(/^days: /)
    }
    const repeated = await app.inject("/overview/data?days=1&days=2")
    expect(repeated.statusCode).toBe(422)
    expect(repeated.json().error).toBe("days: given more than once")
    // a valid value passes validation and reaches the (here unavailable) store
    for (const days of ["1", "36500", ""]) {
      expect((await app.inject(`/overview/data?days=${days}`)).statusCode, days).toBe(503)
    }
  })
})
