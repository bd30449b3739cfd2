import { describe, expect, it } from "vitest"
import { ResponseCache } from "../../../src/api/cache.js"
import { BIG_MC, appFor, bigBlockWorld } from "./world.js"

describe("ResponseCache", () => {
  it("evicts least recently used entries beyond its byte budget", () => {
    const c = new ResponseCache(400, () => 0)
    c.set("a", "x".repeat(99))
    c.set("b", "y".repeat(99))
    expect(c.get("a")).toBe("x".repeat(99))
    c.set("c", "z".repeat(99))
    c.set("d", "w".repeat(99))
    c.set("e", "v".repeat(99))
    expect(c.size).toBeLessThanOrEqual(400)
    expect(c.get("b")).toBeUndefined()
    expect(c.get("a")).toBe("x".repeat(99))
    expect(c.get("e")).toBe("v".repeat(99))
  })

  it("never serves an expired entry and refuses entries too large for it", () => {
    let now = 0
    const c = new ResponseCache(1000, () => now)
    c.set("k", "body", 60_000)
    now = 59_999
    expect(c.get("k")).toBe("body")
    now = 60_000
    expect(c.get("k")).toBeUndefined()
    expect(c.size).toBe(0)
    c.set("big", "x".repeat(300))
    expect(c.get("big")).toBeUndefined()
  })

  it("keeps its own copy of a byte answer that is a view of a larger buffer", () => {
    const c = new ResponseCache(1 << 20, () => 0)
    const room = Buffer.alloc(4096, 0x20)
    room.write('{"a":1}')
    c.set("view", room.subarray(0, 7))
    const kept = c.get("view") as Buffer
    expect(kept.toString()).toBe('{"a":1}')
    expect(kept.buffer.byteLength).toBe(7)
    expect(c.size).toBe(7 + "view".length)
    const whole = Buffer.from("xyz")
    c.set("whole", whole)
    expect(c.get("whole")!.length).toBe(3)
  })
})

describe("cached answers", () => {
  const SHARD = "-9223372036854775808"

  it("serves a repeated v2 request without the store, with a fresh @extra and otherwise the same bytes", async () => {
    const { store, shardBlock } = bigBlockWorld()
    let r = 0.25
    const app = appFor(store, {
      config: { cacheBytes: 1 << 24 },
      clock: { nowMs: () => 1724745562000, random: () => (r += 0.125) }
    })
    const url = `/api/v2/getBlockTransactionsExt?workchain=0&shard=${SHARD}&seqno=${shardBlock.id.seqno}&count=7`
    const first = await app.inject(url)
    store.calls.length = 0
    const second = await app.inject(url)
    expect(store.calls).toEqual([])
    expect(first.json().result["@extra"]).toBe("1724745572.0:0:0.375")
    expect(second.json().result["@extra"]).toBe("1724745572.0:0:0.5")
    expect(second.body).toBe(first.body.replace("0:0.375", "0:0.5"))
    const rpc = await app.inject({
      method: "POST",
      url: "/api/v2/jsonRPC",
      headers: { "content-type": "application/json" },
      payload: `{"method":"getBlockTransactionsExt","params":{"workchain":0,"shard":"${SHARD}","seqno":${shardBlock.id.seqno},"count":7}}`
    })
    expect(store.calls).toEqual([])
    expect(rpc.body).toBe(`${first.body.slice(0, -1).replace("0:0.375", "0:0.625")},"jsonrpc":"2.0"}`)
    // a different page is a different entry
    await app.inject(`${url}&after_lt=1`)
    expect(store.calls).toEqual(["blockById", "blockTransactions"])
  })

  it("keeps v3 answers with an address book for 60 s only, and never caches a miss", async () => {
    const { store } = bigBlockWorld()
    let now = 0
    const app = appFor(store, { config: { cacheBytes: 1 << 24 }, clock: { nowMs: () => now, random: () => 0.5 } })
    const url = `/api/v3/masterchainBlockShardState?seqno=${BIG_MC}&limit=3`
    const first = await app.inject(url)
    expect(first.headers["cache-control"]).toBe("public, max-age=60")
    store.calls.length = 0
    expect((await app.inject(url)).body).toBe(first.body)
    expect(store.calls).toEqual([])
    now += 60_000
    expect((await app.inject(url)).body).toBe(first.body)
    expect(store.calls).toContain("transactionsByMcSeqno")
    const noBook = await app.inject(`${url}&x_no_address_book=1`)
    expect(noBook.headers["cache-control"]).toBe("public, max-age=31536000, immutable")
    store.calls.length = 0
    expect((await app.inject("/api/v3/masterchainBlockShardState?seqno=5")).statusCode).toBe(404)
    expect((await app.inject("/api/v3/masterchainBlockShardState?seqno=5")).statusCode).toBe(404)
    expect(store.calls.filter((c) => c === "mcBlockDone")).toHaveLength(2)
    const metrics = (await app.inject("/metrics")).body
    expect(metrics).toMatch(/api_cache_lookups\{result="hit"\} 1\n/)
    expect(metrics).toMatch(/api_cache_bytes [1-9]\d*\n/)
  })
})
