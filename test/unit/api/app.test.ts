import { connect } from "node:net"
import { describe, expect, it } from "vitest"
import { BIG_MC, EMPTY_MC, appFor, bigBlockWorld } from "./world.js"

const SHARD = "-9223372036854775808"

describe("v2 getBlockTransactionsExt", () => {
  const { store, shardBlock } = bigBlockWorld()
  const app = appFor(store)
  const base = `/api/v2/getBlockTransactionsExt?workchain=0&shard=${SHARD}&seqno=${shardBlock.id.seqno}`

  it("answers ton-http-api's envelope with an immutable cache header for a stored block", async () => {
    const res = await app.inject(base)
    expect(res.statusCode).toBe(200)
    expect(res.headers["content-type"]).toBe("application/json")
    expect(res.headers["cache-control"]).toBe("public, max-age=31536000, immutable")
    const body = res.json()
    expect(Object.keys(body)).toEqual(["ok", "result"])
    expect(body.result.req_count).toBe(40)
    expect(body.result.incomplete).toBe(true)
    expect(body.result.transactions).toHaveLength(40)
    expect(body.result["@extra"]).toBe("1724745572.699:0:0.5335802192168009")
    expect(body.result.id).toEqual({ "@type": "ton.blockIdExt", ...shardBlock.id })
  })

  it("uses two store queries per request", async () => {
    store.calls.length = 0
    await app.inject(base)
    expect(store.calls).toEqual(["blockById", "blockTransactions"])
  })

  it("accepts the block hashes in hex and url-safe base64 and refuses ones that do not match", async () => {
    const hex = Buffer.from(shardBlock.id.root_hash, "base64").toString("hex")
    const fileUrl = shardBlock.id.file_hash.replace(/\+/g, "-").replace(/\//g, "_")
    expect((await app.inject(`${base}&root_hash=${hex}&file_hash=${fileUrl}`)).statusCode).toBe(200)
    const wrong = await app.inject(`${base}&root_hash=${hex}&file_hash=${"00".repeat(32)}`)
    expect(wrong.statusCode).toBe(404)
    expect(wrong.json()).toEqual({ ok: false, error: expect.stringContaining("root_hash and file_hash"), code: 404 })
    // a lone hash is ignored, as the Python server does
    expect((await app.inject(`${base}&file_hash=${"00".repeat(32)}`)).statusCode).toBe(200)
  })

  it("answers 404 in v2 shape, never cached, for a block that is not stored", async () => {
    const res = await app.inject(`/api/v2/getBlockTransactionsExt?workchain=0&shard=${SHARD}&seqno=1`)
    expect(res.statusCode).toBe(404)
    expect(res.headers["cache-control"]).toBe("no-store")
    expect(res.body).toBe(
      '{"ok":false,"error":"cannot find block (0,8000000000000000) seqno=1: block not found","code":404}'
    )
  })

  it("names the missing or malformed parameter with 422", async () => {
    const missing = await app.inject(`/api/v2/getBlockTransactionsExt?workchain=0&shard=${SHARD}`)
    expect(missing.statusCode).toBe(422)
    expect(missing.json()).toEqual({ ok: false, error: "Validation error: seqno: field required", code: 422 })
    const bad = await app.inject(`${base}&count=abc`)
    expect(bad.json()).toEqual({ ok: false, error: 'count: must be a decimal integer, got "abc"', code: 422 })
  })
})

describe("v2 shards and JSON-RPC", () => {
  const { store, shardBlock } = bigBlockWorld()
  const app = appFor(store)

  it("lists the shard tops of a masterchain block", async () => {
    const res = await app.inject(`/api/v2/shards?seqno=${BIG_MC}`)
    expect(res.statusCode).toBe(200)
    expect(res.json()).toEqual({
      ok: true,
      result: {
        "@type": "blocks.shards",
        shards: [{ "@type": "ton.blockIdExt", ...shardBlock.id }],
        "@extra": "1724745572.699:0:0.5335802192168009"
      }
    })
    const missing = await app.inject("/api/v2/shards?seqno=5")
    expect(missing.statusCode).toBe(404)
    expect(missing.json().error).toBe("cannot find block (-1,8000000000000000) seqno=5: block not found")
  })

  it("answers JSON-RPC like ton-http-api, with shards sent as bare 64-bit numbers", async () => {
    const res = await app.inject({
      method: "POST",
      url: "/api/v2/jsonRPC",
      headers: { "content-type": "application/json" },
      payload: `{"method":"getBlockTransactionsExt","params":{"workchain":0,"shard":${SHARD},"seqno":${shardBlock.id.seqno},"count":2},"jsonrpc":"2.0","id":1}`
    })
    expect(res.statusCode).toBe(200)
    const rest = await app.inject(
      `/api/v2/getBlockTransactionsExt?workchain=0&shard=${SHARD}&seqno=${shardBlock.id.seqno}&count=2`
    )
    expect(res.body).toBe(`${rest.body.slice(0, -1)},"id":"1","jsonrpc":"2.0"}`)
  })

  it("reports JSON-RPC mistakes as 4xx with the request id", async () => {
    const rpc = (payload: string) =>
      app.inject({ method: "POST", url: "/api/v2/jsonRPC", headers: { "content-type": "application/json" }, payload })
    const unknown = await rpc('{"method":"getMasterchainInfo","id":"x"}')
    expect(unknown.statusCode).toBe(422)
    expect(unknown.body).toBe('{"ok":false,"error":"Unknown method","code":422,"id":"x","jsonrpc":"2.0"}')
    const extra = await rpc('{"method":"shards","params":{"seqno":1,"foo":2},"id":3}')
    expect(extra.json()).toMatchObject({ ok: false, error: "shards: unexpected parameter 'foo'", code: 422, id: "3" })
    const notFound = await rpc('{"method":"shards","params":{"seqno":1},"id":4}')
    expect(notFound.statusCode).toBe(404)
    expect(notFound.json()).toMatchObject({ ok: false, code: 404, id: "4", jsonrpc: "2.0" })
    const broken = await rpc('{"method":')
    expect(broken.statusCode).toBe(422)
    expect(broken.json()).toEqual({ ok: false, error: "Validation error: request body is not valid JSON", code: 422 })
    const noMethod = await rpc('{"params":{}}')
    expect(noMethod.json()).toEqual({ ok: false, error: "Validation error: method: field required", code: 422 })
  })
})

describe("v3 transactions of a masterchain block", () => {
  const { store, txs } = bigBlockWorld()
  const app = appFor(store)

  it("serves both names with identical bodies, newest lt first by default", async () => {
    const a = await app.inject(`/api/v3/masterchainBlockShardState?seqno=${BIG_MC}&limit=5`)
    const b = await app.inject(`/api/v3/transactionsByMasterchainBlock?seqno=${BIG_MC}&limit=5`)
    expect(a.statusCode).toBe(200)
    // the address book follows the latest known code, so this answer may change; transactions alone may not
    expect(a.headers["cache-control"]).toBe("public, max-age=60")
    expect(a.body).toBe(b.body)
    const body = a.json()
    expect(Object.keys(body)).toEqual(["transactions", "address_book"])
    const maxLt = txs.map((t) => BigInt(t.lt)).reduce((x, y) => (x > y ? x : y))
    expect(body.transactions[0].lt).toBe(maxLt.toString())
    expect(Object.keys(body.address_book)).toEqual([...Object.keys(body.address_book)].sort())
  })

  it("uses three store queries (the page, then states and code hashes), and the marker only for an empty page", async () => {
    store.calls.length = 0
    await app.inject(`/api/v3/masterchainBlockShardState?seqno=${BIG_MC}&limit=5`)
    expect(store.calls[0]).toBe("transactionsByMcSeqno")
    expect([...store.calls].sort()).toEqual(["accountStates", "codeHashes", "transactionsByMcSeqno"])
    store.calls.length = 0
    await app.inject(`/api/v3/masterchainBlockShardState?seqno=${EMPTY_MC}`)
    expect(store.calls).toEqual(["transactionsByMcSeqno", "mcBlockDone"])
  })

  it("gives empty lists for an ingested block without transactions and 404 for one not ingested", async () => {
    const empty = await app.inject(`/api/v3/masterchainBlockShardState?seqno=${EMPTY_MC}`)
    expect(empty.statusCode).toBe(200)
    expect(empty.body).toBe('{"transactions":[],"address_book":{}}')
    const missing = await app.inject("/api/v3/masterchainBlockShardState?seqno=77")
    expect(missing.statusCode).toBe(404)
    expect(missing.headers["cache-control"]).toBe("no-store")
    expect(missing.body).toBe('{"error":"masterchain block 77 not found"}')
  })

  it("answers 422 where ton-index-go answers 500 (limit above the maximum, bad sort)", async () => {
    const limit = await app.inject(`/api/v3/masterchainBlockShardState?seqno=${BIG_MC}&limit=1001`)
    expect(limit.statusCode).toBe(422)
    expect(limit.body).toBe('{"error":"limit is not allowed: 1001 \\u003e 1000"}')
    const sort = await app.inject(`/api/v3/masterchainBlockShardState?seqno=${BIG_MC}&sort=sideways`)
    expect(sort.statusCode).toBe(422)
    expect(sort.json()).toEqual({ error: "wrong value for sort parameter" })
  })

  it("skips the address book on request", async () => {
    const res = await app.inject({
      url: `/api/v3/transactionsByMasterchainBlock?seqno=${BIG_MC}&limit=3`,
      headers: { "x-no-address-book": "1" }
    })
    expect(res.json().address_book).toEqual({})
  })
})

describe("v3 blocks of a masterchain block", () => {
  const { store, shardBlock } = bigBlockWorld()
  const app = appFor(store)

  it("lists the masterchain block and its shard blocks", async () => {
    const res = await app.inject(`/api/v3/masterchainBlockShards?seqno=${BIG_MC}`)
    expect(res.statusCode).toBe(200)
    const blocks = res.json().blocks
    expect(blocks.map((b: any) => [b.workchain, b.shard, b.seqno])).toEqual([
      [-1, "8000000000000000", BIG_MC],
      [0, "8000000000000000", shardBlock.id.seqno]
    ])
    expect(blocks[1].masterchain_block_ref).toEqual({ workchain: -1, shard: "8000000000000000", seqno: BIG_MC })
    const missing = await app.inject("/api/v3/masterchainBlockShards?seqno=12")
    expect(missing.statusCode).toBe(404)
    expect(missing.body).toBe('{"error":"blocks not found"}')
    const page = await app.inject(`/api/v3/masterchainBlockShards?seqno=${BIG_MC}&limit=1&offset=1`)
    expect(page.json().blocks.map((b: any) => b.seqno)).toEqual([shardBlock.id.seqno])
  })
})

describe("edges: unknown routes, methods, keys, limits, operations", () => {
  const { store } = bigBlockWorld()

  it("answers unknown routes and wrong methods in the dialect of the path", async () => {
    const app = appFor(store)
    expect((await app.inject("/api/v2/nope")).body).toBe('{"ok":false,"error":"Not Found","code":404}')
    expect((await app.inject("/api/v3/nope")).body).toBe('{"error":"route GET /api/v3/nope not found"}')
    const post = await app.inject({ method: "POST", url: "/api/v3/masterchainBlockShardState?seqno=1" })
    expect(post.statusCode).toBe(405)
    expect(post.body).toBe('{"error":"Method Not Allowed"}')
    const get = await app.inject("/api/v2/jsonRPC")
    expect(get.statusCode).toBe(405)
    expect(get.json()).toEqual({ ok: false, error: "Method Not Allowed", code: 405 })
  })

  it("requires a known API key when keys are configured, from the header or the query", async () => {
    const app = appFor(store, { config: { api: { keys: ["k1"], rateLimit: 0 } } })
    const none = await app.inject(`/api/v2/shards?seqno=${BIG_MC}`)
    expect(none.statusCode).toBe(401)
    expect(none.body).toBe('{"ok":false,"error":"API key does not exist","code":401}')
    const wrong = await app.inject({
      url: `/api/v3/masterchainBlockShards?seqno=${BIG_MC}`,
      headers: { "x-api-key": "k2" }
    })
    expect(wrong.body).toBe('{"error":"API key does not exist"}')
    expect(
      (await app.inject({ url: `/api/v2/shards?seqno=${BIG_MC}`, headers: { "x-api-key": "k1" } })).statusCode
    ).toBe(200)
    expect((await app.inject(`/api/v2/shards?seqno=${BIG_MC}&api_key=k1`)).statusCode).toBe(200)
    expect((await app.inject("/health")).statusCode).toBe(200)
  })

  it("limits each key to its rate and refills over time", async () => {
    let now = 1_000_000
    const clock = { nowMs: () => now, random: () => 0.5 }
    const app = appFor(store, { config: { api: { keys: [], rateLimit: 2 } }, clock })
    const hit = (url: string) => app.inject(url).then((r) => r.statusCode)
    expect(await hit(`/api/v2/shards?seqno=${BIG_MC}`)).toBe(200)
    expect(await hit(`/api/v2/shards?seqno=${BIG_MC}`)).toBe(200)
    const limited = await app.inject(`/api/v2/shards?seqno=${BIG_MC}`)
    expect(limited.statusCode).toBe(429)
    expect(limited.body).toBe('{"ok":false,"error":"Ratelimit exceeded","code":429}')
    const limitedV3 = await app.inject(`/api/v3/masterchainBlockShards?seqno=${BIG_MC}`)
    expect(limitedV3.body).toBe('{"error":"Ratelimit exceeded"}')
    now += 500
    expect(await hit(`/api/v2/shards?seqno=${BIG_MC}`)).toBe(200)
    expect(await hit(`/api/v2/shards?seqno=${BIG_MC}`)).toBe(429)
  })

  it("serves health, metrics, the OpenAPI document and the docs page", async () => {
    const app = appFor(store)
    expect((await app.inject("/health")).json()).toEqual({ status: "ok", last_mc_seqno: EMPTY_MC })
    await app.inject(`/api/v2/shards?seqno=${BIG_MC}`)
    const metrics = (await app.inject("/metrics")).body
    expect(metrics).toContain('api_requests_total{method="GET",route="/api/v2/shards",status="200"} 1')
    const doc = (await app.inject("/api/openapi.json")).json()
    expect(Object.keys(doc.paths).sort()).toEqual([
      "/api/v2/getBlockTransactionsExt",
      "/api/v2/jsonRPC",
      "/api/v2/shards",
      "/api/v3/masterchainBlockShardState",
      "/api/v3/masterchainBlockShards",
      "/api/v3/transactionsByMasterchainBlock"
    ])
    expect(doc.paths["/api/v2/getBlockTransactionsExt"].get.parameters.map((p: any) => p.name)).toContain("after_hash")
    const docs = await app.inject("/api/docs")
    expect(docs.headers["content-type"]).toContain("text/html")
    expect(docs.body).not.toMatch(/https?:\/\//)
  })

  it("answers CORS preflights without a key and marks every answer readable from any origin", async () => {
    const app = appFor(store, { config: { api: { keys: ["k1"], rateLimit: 0 } } })
    const pre = await app.inject({ method: "OPTIONS", url: "/api/v2/jsonRPC" })
    expect(pre.statusCode).toBe(204)
    expect(pre.headers["access-control-allow-headers"]).toContain("X-API-Key")
    const denied = await app.inject(`/api/v2/shards?seqno=${BIG_MC}`)
    expect(denied.headers["access-control-allow-origin"]).toBe("*")
  })

  it("answers requests the HTTP parser refuses (oversize URL, garbage) in the v2 shape", async () => {
    const app = appFor(store)
    await app.listen({ host: "127.0.0.1", port: 0 })
    const { port } = app.server.address() as { port: number }
    const raw = (text: string) =>
      new Promise<string>((resolve, reject) => {
        let out = ""
        const s = connect(port, "127.0.0.1", () => s.write(text))
        s.on("data", (d) => (out += d.toString("utf8")))
        s.on("close", () => resolve(out))
        s.on("error", reject)
      })
    try {
      const big = await raw(`GET /api/v2/shards?seqno=1&x=${"a".repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`)
      expect(big).toMatch(/^HTTP\/1.1 431 /)
      expect(big.endsWith('{"ok":false,"error":"Request Header Fields Too Large","code":431}')).toBe(true)
      const garbage = await raw("\u0000\u0001 nonsense\r\n\r\n")
      expect(garbage).toMatch(/^HTTP\/1.1 400 /)
      expect(garbage.endsWith('{"ok":false,"error":"Bad Request","code":400}')).toBe(true)
    } finally {
      await app.close()
    }
  })

  it("reports a failing store as a server error, not as a client mistake", async () => {
    const broken = bigBlockWorld().store
    broken.blockById = async () => {
      throw new Error("connection refused")
    }
    const res = await appFor(broken).inject(`/api/v2/getBlockTransactionsExt?workchain=0&shard=${SHARD}&seqno=1`)
    expect(res.statusCode).toBe(500)
    expect(res.json()).toEqual({ ok: false, error: "internal server error", code: 500 })
  })
})
