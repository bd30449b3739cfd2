// What the toncenter source costs upstream and how it spreads that cost: the requests one masterchain block needs
// (fetched several at a time, as the producer does), several endpoints with their own rates and failover, and the
// limits the fake toncenter enforces as toncenter does (per-key rate, page size).
import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { pickEndpoint } from "../../../src/source/ToncenterHttp.js"
import { expectedBundle } from "../../../tools/fake/ChainData.js"
import { type FakeToncenter, MAX_PAGE, startFakeToncenter } from "../../../tools/fake/server.js"
import { upstream } from "./support.js"

const fetchAll = async (up: Awaited<ReturnType<typeof upstream>>, from: number, to: number, concurrency: number) => {
  const seqnos = [...Array(to - from + 1).keys()].map((i) => from + i)
  return Effect.runPromise(Effect.forEach(seqnos, (s) => up.bundle(s), { concurrency }))
}

describe("requests per masterchain block", { timeout: 180_000 }, () => {
  let fake: FakeToncenter
  beforeAll(async () => {
    fake = await startFakeToncenter({
      chain: { kind: "generated", seed: 11, mcBlocks: 20, txPerBlock: 3, maxShards: 8, splitChance: 0.3, mergeChance: 0.25 }
    })
  }, 300_000)
  afterAll(() => fake.stop())

  it("asks each block's header and transactions once and each masterchain block's shards once, even 8 at a time", async () => {
    fake.clearRequests()
    const { first, last } = fake.chain
    const up = await upstream({ url: fake.url, rps: 0, concurrency: 16 })
    const got = await fetchAll(up, first, last, 8)
    for (const b of got) expect(b.shard_blocks).toEqual(expectedBundle(fake.chain, b.mc_seqno).shard_blocks)
    const blocks = got.reduce((a, b) => a + 1 + b.shard_blocks.length, 0)
    const counts = fake.requestCounts()
    expect(counts["getBlockTransactionsExt"]!.all).toBe(blocks)
    expect(counts["getBlockHeader"]!.all).toBe(blocks)
    // every masterchain block's own tops, and those of the one before the first
    expect(counts["shards"]!.all).toBe(last - first + 2)
    const pages = fake.requests.filter((r) => r.endpoint === "getBlockTransactionsExt")
    expect(pages.every((p) => p.query["count"] === "1024")).toBe(true)
  })

  it("asks again after a failure instead of keeping it", async () => {
    fake.clearRequests()
    fake.setFaults([{ endpoint: "shards", kind: "server_error", from: 1, count: 1 }])
    const up = await upstream({ url: fake.url, rps: 0, retries: 0 })
    const seqno = fake.chain.first + 3
    const r1 = await Effect.runPromise(Effect.either(up.bundle(seqno)))
    expect(r1._tag).toBe("Left")
    const r2 = await Effect.runPromise(up.bundle(seqno))
    expect(r2.shard_tops).toEqual(expectedBundle(fake.chain, seqno).shard_tops)
    fake.setFaults([])
  })
})

describe("block headers from toncenter v3", { timeout: 180_000 }, () => {
  let fake: FakeToncenter
  beforeAll(async () => {
    fake = await startFakeToncenter({
      chain: { kind: "generated", seed: 14, mcBlocks: 24, txPerBlock: 2, maxShards: 8, splitChance: 0.3, mergeChance: 0.25 }
    })
  }, 300_000)
  afterAll(() => fake.stop())

  it("gives the same bundles as v2 headers, one /blocks request per masterchain block and no getBlockHeader", async () => {
    const { first, last } = fake.chain
    const viaV2 = await fetchAll(await upstream({ url: fake.url, rps: 0 }), first, last, 4)
    fake.clearRequests()
    const up = await upstream({ url: fake.url, v3BlocksUrl: fake.url, rps: 0 })
    // one after the other, as the follow mode meets them
    const viaV3 = []
    for (let s = first; s <= last; s++) viaV3.push(await Effect.runPromise(up.bundle(s)))
    expect(JSON.stringify(viaV3)).toBe(JSON.stringify(viaV2))
    const counts = fake.requestCounts()
    expect(counts["getBlockHeader"]).toBeUndefined()
    // each masterchain block's, and the one before the first (its masterchain block id and tops)
    expect(counts["v3/blocks"]!.all).toBe(last - first + 2)
    const reshaped = viaV3.filter((b) => b.shard_blocks.some((x) => x.after_split || x.after_merge || x.before_split))
    expect(reshaped.length).toBeGreaterThan(2)
    expect(counts["shards"]!.all).toBe(1 + reshaped.length)
    const withTxs = viaV3.reduce((a, b) => a + [b.mc_block, ...b.shard_blocks].filter((x) => x.tx_count > 0).length, 0)
    expect(counts["getBlockTransactionsExt"]!.all).toBe(withTxs)
  })

  it("gives the same bundles several at a time, and waits for blocks v3 has not indexed yet", async () => {
    const { first, last } = fake.chain
    const viaV2 = await fetchAll(await upstream({ url: fake.url, rps: 0 }), first, last, 4)
    const viaV3 = await fetchAll(await upstream({ url: fake.url, v3BlocksUrl: fake.url, rps: 0 }), first, last, 8)
    expect(JSON.stringify(viaV3)).toBe(JSON.stringify(viaV2))
    const lagging = await startFakeToncenter({ chain: fake.chain, reveal: { initial: first - fake.chain.base + 1 } })
    try {
      const up = await upstream({ url: lagging.url, v3BlocksUrl: lagging.url, rps: 0, retries: 0 })
      const r = await Effect.runPromise(Effect.either(up.bundle(lagging.head() + 1)))
      expect(r._tag === "Left" && r.left.reason).toBe("not_found")
      lagging.advance(1)
      expect(JSON.stringify(await Effect.runPromise(up.bundle(lagging.head())))).toBe(
        JSON.stringify(viaV2.find((b) => b.mc_seqno === lagging.head()))
      )
    } finally {
      await lagging.stop()
    }
  })
})

describe("several toncenter endpoints", { timeout: 180_000 }, () => {
  let a: FakeToncenter
  let b: FakeToncenter
  beforeAll(async () => {
    a = await startFakeToncenter({
      chain: { kind: "generated", seed: 12, mcBlocks: 10, txPerBlock: 2, maxShards: 4, fixtures: false },
      apiKey: "key-a"
    })
    b = await startFakeToncenter({ chain: a.chain, apiKey: "key-b" })
  }, 300_000)
  afterAll(async () => {
    await a.stop()
    await b.stop()
  })

  const fast = { retries: 10, retryBaseMs: 2, retryMaxMs: 20, timeoutMs: 2_000 }

  it("spreads requests over every endpoint, each with its own key, and bundles stay the chain's truth", async () => {
    a.clearRequests()
    b.clearRequests()
    const up = await upstream({
      url: a.url,
      apiKey: "key-a",
      rps: 200,
      endpoints: [{ url: `${b.url}/api/v2`, apiKey: "key-b", rps: 200 }],
      ...fast
    })
    const got = await fetchAll(up, a.chain.first, a.chain.last, 4)
    for (const x of got) {
      const want = expectedBundle(a.chain, x.mc_seqno)
      expect(x.shard_blocks).toEqual(want.shard_blocks)
      expect(x.transactions.map((t) => t.hash)).toEqual(want.tx_hashes)
    }
    const total = a.requests.length + b.requests.length
    // paced at the same rate, each takes a fair share of the work
    expect(a.requests.length).toBeGreaterThan(total / 4)
    expect(b.requests.length).toBeGreaterThan(total / 4)
    expect(a.requests.every((r) => r.status === 200 && r.apiKey === "key-a")).toBe(true)
    expect(b.requests.every((r) => r.status === 200 && r.apiKey === "key-b")).toBe(true)
  })

  it("fails over to the healthy endpoint while the other one is down", async () => {
    a.clearRequests()
    b.clearRequests()
    b.setFaults([{ endpoint: "*", kind: "server_error", status: 502 }])
    try {
      const up = await upstream({
        url: a.url,
        apiKey: "key-a",
        rps: 0,
        endpoints: [{ url: b.url, apiKey: "key-b", rps: 0 }],
        ...fast
      })
      const got = await fetchAll(up, a.chain.first, a.chain.last, 2)
      for (const x of got) expect(x.transactions.map((t) => t.hash)).toEqual(expectedBundle(a.chain, x.mc_seqno).tx_hashes)
      // the broken endpoint was tried, then avoided: most of the work went to the healthy one
      expect(b.requests.length).toBeGreaterThan(0)
      expect(a.requests.length).toBeGreaterThan(4 * b.requests.length)
    } finally {
      b.setFaults([])
    }
  })

  it("chooses the endpoint that can send soonest, avoiding failing ones while another is healthy", () => {
    const e = (interval: number, last: number, waiting: number, avoidUntil = 0) => ({ interval, last, waiting, avoidUntil })
    const now = 10_000
    // equally ready: taken in turn
    const [x, y] = [e(0, now, 0), e(0, now, 0)]
    expect([0, 1, 2, 3].map((turn) => pickEndpoint([x, y], now, turn))).toEqual([x, y, x, y])
    const busy = e(100, now, 3)
    const idle = e(100, now - 500, 0)
    expect(pickEndpoint([busy, idle], now)).toBe(idle)
    // a fast endpoint with a queue can still be sooner than a slow idle one
    const fast = e(10, now, 2)
    const slow = e(1000, now - 10, 0)
    expect(pickEndpoint([slow, fast], now)).toBe(fast)
    const failing = e(10, 0, 0, now + 5_000)
    expect(pickEndpoint([failing, slow], now)).toBe(slow)
    const failingLonger = e(10, 0, 0, now + 9_000)
    expect(pickEndpoint([failingLonger, failing], now)).toBe(failing)
  })
})

describe("the fake toncenter's limits", { timeout: 120_000 }, () => {
  let fake: FakeToncenter
  beforeAll(async () => {
    fake = await startFakeToncenter({
      chain: { kind: "generated", seed: 13, mcBlocks: 3, txPerBlock: 2, maxShards: 1, fixtures: false },
      rateLimit: { rps: 2 }
    })
  }, 300_000)
  afterAll(() => fake.stop())

  const get = (path: string, key: string) =>
    fetch(`${fake.url}/api/v2/${path}`, { headers: { "X-API-Key": key } }).then(async (r) => ({
      status: r.status,
      body: (await r.json()) as { ok: boolean; code?: number; error?: string }
    }))

  it("answers 429 once a key has used its second's worth, and counts keys apart", async () => {
    fake.clearRequests()
    const burst = await Promise.all([...Array(8).keys()].map(() => get("getMasterchainInfo", "k1")))
    const ok = burst.filter((r) => r.status === 200).length
    // two a second: the burst gets the bucket's two, and a third only if the burst took over half a second
    expect(ok).toBeGreaterThanOrEqual(2)
    expect(ok).toBeLessThanOrEqual(3)
    const refused = burst.find((r) => r.status === 429)!
    expect(refused.body).toMatchObject({ ok: false, code: 429 })
    expect((await get("getMasterchainInfo", "k2")).status).toBe(200)
    expect(fake.requestCounts()["getMasterchainInfo"]).toEqual({ all: 9, rateLimited: 8 - ok })
  })

  it("refuses pages larger than toncenter's bound", async () => {
    await new Promise((r) => setTimeout(r, 1_000))
    const id = fake.chain.masterchain.get(fake.chain.first)!.block.record.id
    const q = (count: number) =>
      `getBlockTransactionsExt?workchain=${id.workchain}&shard=${id.shard}&seqno=${id.seqno}&count=${count}`
    expect((await get(q(MAX_PAGE), "k3")).status).toBe(200)
    const over = await get(q(MAX_PAGE + 1), "k3")
    expect(over.status).toBe(422)
    expect(over.body.error).toMatch(/less or equal 10000/)
  })

  it("records when each masterchain block appeared", async () => {
    const clocked = await startFakeToncenter({ chain: fake.chain, reveal: { initial: 1 } })
    try {
      const before = performance.timeOrigin + performance.now()
      const head = clocked.advance(1)
      expect(clocked.revealedAt(head)).toBeGreaterThanOrEqual(before)
      expect(clocked.revealedAt(head + 1)).toBeUndefined()
    } finally {
      await clocked.stop()
    }
  })
})
