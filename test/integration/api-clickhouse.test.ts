/**
 * The API served from the real ClickHouse engine after ingesting real blocks through the pipeline's flattening:
 * every route answers byte for byte what the same app answers over the in-memory store built from the same
 * decoded bundles (i.e. exactly what the decoder's renderers produce), BlockPI's getBlockTransactionsExt for
 * masterchain block 39984096 comes back byte for byte apart from `@extra` (and the two message fields tonlib
 * added after Aug 2024), and paging walks the 510-transaction block exactly once for counts 7, 40, 256, 1000
 * (7 puts dozens of page boundaries inside one account's transactions; counts 1 and 2 take the same path with
 * 511 / 256 requests, walked over the in-memory store by test/unit/api/pagination.test.ts).
 */
import fs from "node:fs"
import path from "node:path"
import { Either } from "effect"
import type { FastifyInstance } from "fastify"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { buildApp, type ApiAppConfig } from "../../src/api/app.js"
import { pythonJson } from "../../src/api/json.js"
import { flattenBundles } from "../../src/flatten/index.js"
import { toBlockRecord } from "../../src/source/Toncenter.js"
import { ClickHouseTxStore } from "../../src/store/Store.js"
import { decodeTransaction } from "../../src/ton/decode.js"
import type { BlockIdExt, MasterchainBundle } from "../../src/ton/record.js"
import { testClickHouse, type TestClickHouse } from "../support/integration.js"
import { memoryStoreOf } from "../support/memoryStore.js"
import { insertTables } from "../support/storeRows.js"
import { REAL_FIXTURES } from "../unit/api/records.js"
import { realBlockBundles } from "../unit/store/realBlocks.js"

// no response cache: every request must reach the store under test
const config: ApiAppConfig = { network: "mainnet", api: { keys: [], rateLimit: 0 }, cacheBytes: 0 }
const clock = { nowMs: () => 1724745562699, random: () => 0.5335802192168009 }
const shared = (rel: string): any => JSON.parse(fs.readFileSync(path.join(REAL_FIXTURES, rel), "utf8"))

const blockPiBundle = (): MasterchainBundle => {
  const fixture = shared("v2/blockpi-official-docs__v2_getBlockTransactionsExt__mc-39984096.json")
  const h = shared("v2/blockpi-official-docs__v2_getBlockHeader__mainnet_mc-39984096.json").result
  const id: BlockIdExt = {
    workchain: -1,
    shard: h.id.shard,
    seqno: h.id.seqno,
    root_hash: h.id.root_hash,
    file_hash: h.id.file_hash
  }
  // The same header conversion the toncenter source applies to getBlockHeader answers.
  const mc = toBlockRecord(h, id.seqno, fixture.result.transactions.length)
  return {
    schema_version: 1,
    network: "mainnet",
    mc_seqno: id.seqno,
    mc_block: mc,
    shard_blocks: [],
    shard_tops: [],
    transactions: fixture.result.transactions.map((t: any) =>
      Either.getOrThrow(decodeTransaction(t.data, { block: id, mc_block_seqno: id.seqno }))
    ),
    account_states: [],
    code_hashes: {}
  }
}

let ch: TestClickHouse
let fromClickHouse: FastifyInstance
let fromMemory: FastifyInstance
const bundles = [...realBlockBundles().bundles, blockPiBundle()]

beforeAll(async () => {
  ch = await testClickHouse("api")
  const batch = flattenBundles(bundles)
  await insertTables(ch.client, batch)
  fromClickHouse = buildApp({ store: new ClickHouseTxStore(ch.client), config, clock })
  fromMemory = buildApp({
    store: memoryStoreOf(bundles),
    config,
    clock
  })
})

afterAll(async () => {
  await fromClickHouse?.close()
  await ch?.close()
})

const both = async (url: string) => {
  const [a, b] = await Promise.all([fromClickHouse.inject(url), fromMemory.inject(url)])
  expect(a.statusCode, url).toBe(b.statusCode)
  expect(a.body, url).toBe(b.body)
  expect(a.headers["cache-control"], url).toBe(b.headers["cache-control"])
  return a
}

describe("API over ClickHouse after ingestion", () => {
  it("answers every route on every ingested block exactly as the renderers do over the same records", async () => {
    expect(new Set(bundles.map((b) => b.mc_seqno)).size).toBe(bundles.length)
    for (const b of bundles) {
      const s = b.mc_seqno
      for (const q of ["", "&sort=asc", "&limit=7&offset=3", "&limit=1000&sort=desc"]) {
        const res = await both(`/api/v3/masterchainBlockShardState?seqno=${s}${q}`)
        expect(res.statusCode).toBe(200)
        const limit = q.includes("limit=7") ? 7 : q.includes("limit=1000") ? 1000 : 100
        const offset = q.includes("offset=3") ? 3 : 0
        expect(JSON.parse(res.body).transactions.length).toBe(
          Math.max(0, Math.min(limit, b.transactions.length - offset))
        )
        await both(`/api/v3/transactionsByMasterchainBlock?seqno=${s}${q}`)
      }
      await both(`/api/v3/masterchainBlockShards?seqno=${s}`)
      expect((await both(`/api/v2/shards?seqno=${s}`)).statusCode).toBe(200)
      for (const blk of [b.mc_block, ...b.shard_blocks]) {
        for (const count of [1, 40, 1000]) {
          const r = await both(
            `/api/v2/getBlockTransactionsExt?workchain=${blk.id.workchain}&shard=${blk.id.shard}&seqno=${blk.id.seqno}&count=${count}`
          )
          expect(r.statusCode).toBe(200)
        }
      }
    }
  })

  it("answers 404 for blocks that were never ingested, in both dialects", async () => {
    expect((await both("/api/v3/masterchainBlockShardState?seqno=3")).statusCode).toBe(404)
    expect(
      (await both("/api/v2/getBlockTransactionsExt?workchain=0&shard=-9223372036854775808&seqno=3")).statusCode
    ).toBe(404)
    expect((await both("/api/v2/shards?seqno=3")).statusCode).toBe(404)
  })

  it("reproduces BlockPI's getBlockTransactionsExt for mc 39984096 byte for byte apart from @extra", async () => {
    const fixture = shared("v2/blockpi-official-docs__v2_getBlockTransactionsExt__mc-39984096.json")
    const res = await fromClickHouse.inject(
      "/api/v2/getBlockTransactionsExt?workchain=-1&shard=-9223372036854775808&seqno=39984096"
    )
    const body = JSON.parse(res.body)
    expect(body.result["@extra"]).toMatch(/^\d{10}\.\d+:\d+:0\.\d+$/)
    body.result["@extra"] = fixture.result["@extra"]
    for (const t of body.result.transactions) {
      for (const m of [t.in_msg, ...t.out_msgs].filter(Boolean)) {
        delete m.hash
        delete m.extra_currencies
      }
    }
    expect(pythonJson(body)).toBe(pythonJson(fixture))
  })

  for (const count of [7, 40, 256, 1000]) {
    it(`walks the 510-transaction block exactly once with count=${count}`, { timeout: 600_000 }, async () => {
      const big = bundles.find((b) => b.transactions.length === 510)!
      const blk = big.shard_blocks[0]!
      const expected = [...big.transactions]
        .sort((x, y) => {
          const a = x.account.split(":")[1]!
          const c = y.account.split(":")[1]!
          return a < c ? -1 : a > c ? 1 : Number(BigInt(x.lt) - BigInt(y.lt))
        })
        .map((t) => t.hash)
      const seen: string[] = []
      let cursor = ""
      let pages = 0
      const t0 = performance.now()
      for (;;) {
        pages++
        const res = await fromClickHouse.inject(
          `/api/v2/getBlockTransactionsExt?workchain=0&shard=${blk.id.shard}&seqno=${blk.id.seqno}&count=${count}${cursor}`
        )
        const r = JSON.parse(res.body).result
        expect(r.req_count).toBe(Math.min(count, 256))
        seen.push(...r.transactions.map((t: any) => t.transaction_id.hash))
        if (!r.incomplete) break
        const last = r.transactions.at(-1)
        cursor = `&after_lt=${last.transaction_id.lt}&after_hash=${last.account.split(":")[1]}`
      }
      expect(seen, `count=${count}`).toEqual(expected)
      console.log(
        `api over clickhouse: count=${count} walk of 510 txs in ${pages} pages, ${((performance.now() - t0) / pages).toFixed(1)} ms/page`
      )
    })
  }
})
