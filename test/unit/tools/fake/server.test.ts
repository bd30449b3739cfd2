import { readFileSync } from "node:fs"
import path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { faultFor, parseFaultPlan } from "../../../../tools/fake/faults.js"
import { fixturesDir } from "../../../../tools/fake/fixtures.js"
import { type FakeToncenter, startFakeToncenter } from "../../../../tools/fake/server.js"

/** v2 query string for a block id (and any extra parameters). */
const q = (id: { workchain: number; shard: string; seqno: number }, extra: Record<string, string> = {}) =>
  new URLSearchParams({
    workchain: String(id.workchain),
    shard: id.shard,
    seqno: String(id.seqno),
    ...extra
  }).toString()

const get = async (url: string) => {
  const res = await fetch(url)
  return { status: res.status, body: (await res.json()) as any }
}

describe("fake toncenter over HTTP", { timeout: 120_000 }, () => {
  let fake: FakeToncenter
  beforeAll(async () => {
    fake = await startFakeToncenter({ chain: { kind: "fixtures" } })
  }, 300_000)
  afterAll(() => fake.stop())

  it("serves a recorded masterchain block's transactions exactly as toncenter v2 rendered them", async () => {
    const recorded = JSON.parse(
      readFileSync(
        path.join(fixturesDir(), "v2", "blockpi-official-docs__v2_getBlockTransactionsExt__mc-39984096.json"),
        "utf8"
      )
    ).result
    const wanted = new Set(recorded.transactions.map((t: any) => t.transaction_id.hash))
    const block = [...fake.chain.blocks.values()].find((b) => b.txs.some((t) => wanted.has(t.hash)))!
    const id = block.record.id
    const { status, body } = await get(`${fake.url}/api/v2/getBlockTransactionsExt?${q(id, { count: "256" })}`)
    expect(status).toBe(200)
    expect(body.ok).toBe(true)
    expect(Object.keys(body.result)).toEqual(["@type", "id", "req_count", "incomplete", "transactions", "@extra"])
    const served = new Map(body.result.transactions.map((t: any) => [t.transaction_id.hash, t]))
    for (const want of recorded.transactions) {
      const got: any = served.get(want.transaction_id.hash)
      expect(got).toBeDefined()
      for (const k of [
        "@type",
        "address",
        "utime",
        "data",
        "transaction_id",
        "fee",
        "storage_fee",
        "other_fee",
        "account"
      ]) {
        expect(got[k], k).toEqual(want[k])
      }
      expect(got.out_msgs.length).toBe(want.out_msgs.length)
    }
  })

  it("answers headers, shards and lookups consistently with the chain", async () => {
    const mc = fake.chain.masterchain.get(fake.chain.first + 2)!
    const shards = await get(`${fake.url}/api/v2/shards?seqno=${mc.seqno}`)
    expect(shards.body.result.shards.map((s: any) => s.root_hash)).toEqual(mc.shardTops.map((t) => t.root_hash))
    const top = mc.shardTops[0]!
    const h = await get(
      `${fake.url}/api/v2/getBlockHeader?${q(top, { root_hash: top.root_hash, file_hash: top.file_hash })}`
    )
    expect(h.body.result["@type"]).toBe("blocks.header")
    expect(typeof h.body.result.start_lt).toBe("string")
    const l = await get(`${fake.url}/api/v2/lookupBlock?workchain=-1&shard=-9223372036854775808&seqno=${mc.seqno}`)
    expect(l.body.result.root_hash).toBe(mc.block.record.id.root_hash)
  })

  it("uses toncenter's error envelopes", async () => {
    expect(await get(`${fake.url}/api/v2/nothing`)).toEqual({
      status: 404,
      body: { ok: false, error: "Not Found", code: 404 }
    })
    const missing = await get(`${fake.url}/api/v2/getBlockHeader?workchain=0`)
    expect(missing.status).toBe(422)
    expect(missing.body).toMatchObject({ ok: false, code: 422 })
    const future = await get(`${fake.url}/api/v2/shards?seqno=${fake.chain.last + 1}`)
    expect(future.status).toBe(500)
    expect(future.body.error).toMatch(/not applied/)
  })

  it("reveals masterchain blocks progressively", async () => {
    const partial = await startFakeToncenter({ chain: fake.chain, reveal: { initial: 1 } })
    try {
      const info = async () => (await get(`${partial.url}/api/v2/getMasterchainInfo`)).body.result.last.seqno
      expect(await info()).toBe(fake.chain.first)
      const next = fake.chain.masterchain.get(fake.chain.first + 1)!
      const b = next.shardBlocks[0] ?? next.block
      const hidden = await get(`${partial.url}/api/v2/getBlockHeader?${q(b.record.id)}`)
      expect(hidden.status).toBe(500)
      partial.advance()
      expect(await info()).toBe(fake.chain.first + 1)
      const shown = await get(`${partial.url}/api/v2/getBlockHeader?${q(b.record.id)}`)
      expect(shown.status).toBe(200)
    } finally {
      await partial.stop()
    }
  })

  it("applies a fault plan per endpoint and logs it", async () => {
    fake.setFaults(
      parseFaultPlan("rate_limit:every=2@shards,server_error:from=1:count=1:status=502@getMasterchainInfo")
    )
    fake.clearRequests()
    const a = await fetch(`${fake.url}/api/v2/shards?seqno=${fake.chain.first}`)
    const b = await fetch(`${fake.url}/api/v2/shards?seqno=${fake.chain.first}`)
    const c = await fetch(`${fake.url}/api/v2/getMasterchainInfo`)
    const d = await fetch(`${fake.url}/api/v2/getMasterchainInfo`)
    expect([a.status, b.status, c.status, d.status]).toEqual([200, 429, 502, 200])
    expect(fake.requests.map((r) => r.fault)).toEqual([undefined, "rate_limit", "server_error", undefined])
    fake.setFaults([])
  })
})

describe("fault plans", () => {
  it("match every Nth request, bursts and endpoints", () => {
    const plan = parseFaultPlan("slow:every=3:delay=50@getBlockHeader,truncated:from=2:count=2")
    expect(plan[0]).toMatchObject({ kind: "slow", every: 3, delayMs: 50, endpoint: "getBlockHeader" })
    expect([1, 2, 3, 6].map((n) => faultFor(plan, "getBlockHeader", n)?.kind)).toEqual([
      undefined,
      "truncated",
      "slow",
      "slow"
    ])
    expect([1, 2, 3, 4].map((n) => faultFor(plan, "shards", n)?.kind)).toEqual([
      undefined,
      "truncated",
      "truncated",
      undefined
    ])
    expect(() => parseFaultPlan("explode")).toThrow(/unknown fault kind/)
  })
})
