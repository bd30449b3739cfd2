/**
 * The key-value v3 page rows (`v3_pages`, sql/0131) on the real engine, over real mainnet blocks and a generated
 * block whose lts tie across accounts: a store written before the table answers from `tx_pages` as before; the fill
 * (what `npm run migrate` and the start run) gives every done block its row once and resumes where it stopped; then
 * every page shape (sort, offset, limit, address book) answers from the row exactly what the `tx_pages` statement
 * answers, and so do the API's pages; a block whose pieces are dropped has its row deleted first and answers from the
 * row tables until its row is written again.
 */
import type { FastifyInstance } from "fastify"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { buildApp, type ApiAppConfig } from "../../src/api/app.js"
import { flattenBundles } from "../../src/flatten/index.js"
import { backfillV3Pages, deleteV3Pages } from "../../src/store/backfillV3Pages.js"
import { readClients, type ReadClients } from "../../src/store/readers.js"
import { ClickHouseTxStore } from "../../src/store/Store.js"
import type { SortOrder } from "../../src/store/TxStore.js"
import type { MasterchainBundle } from "../../src/ton/record.js"
import { testClickHouse, type TestClickHouse } from "../support/integration.js"
import { syntheticBundle } from "../unit/store/records.js"
import { pageAsText, withStateHashes } from "../support/pageText.js"
import { realBlockBundles } from "../unit/store/realBlocks.js"
import { expectSameAnswers, v3PageUrls } from "../support/sameAnswers.js"
import { insertTables } from "../support/storeRows.js"

const config: ApiAppConfig = { network: "mainnet", api: { keys: [], rateLimit: 0 }, cacheBytes: 0 }
const clock = { nowMs: () => 1724745562699, random: () => 0.5335802192168009 }

/** A generated block whose transactions share lts two by two (accounts of different shard blocks): ties to break. */
const tiedBundle = (): MasterchainBundle => {
  const b = syntheticBundle(777)
  const transactions = b.transactions.map((t, i) => ({ ...t, lt: String(5_000_000n + BigInt(i >> 1)) }))
  return { ...b, transactions }
}
const bundles = [...realBlockBundles().bundles, tiedBundle(), { ...syntheticBundle(778), transactions: [] }]

let ch: TestClickHouse
let kv: ClickHouseTxStore
let pages: ClickHouseTxStore
let readers: ReadClients
let fromKv: FastifyInstance
let fromPages: FastifyInstance
let fromReaders: FastifyInstance

const count = async (sql: string): Promise<number> => {
  const [r] = await (await ch.client.query({ query: sql, format: "JSONEachRow" })).json<{ n: string }>()
  return Number(r?.n)
}

const shapes = (n: number): Array<{ limit: number; offset: number; sort: SortOrder }> => {
  const out: Array<{ limit: number; offset: number; sort: SortOrder }> = []
  for (const sort of ["asc", "desc"] as const) {
    for (const offset of [...new Set([0, 1, 3, Math.floor(n / 2), n - 1, n, 1_000_000])]) {
      if (offset < 0) continue
      for (const limit of [0, 1, 3, 1000]) out.push({ limit, offset, sort })
    }
  }
  return out
}

/** Every page shape of every block from `store` equals the `tx_pages` answer (the store with the rows off). */
const sameAsPages = async (store: ClickHouseTxStore) => {
  for (const b of bundles) {
    for (const [i, shape] of shapes(b.transactions.length).entries()) {
      const book = i % 3 !== 0
      const want = pageAsText(await pages.v3PageText(b.mc_seqno, shape, book))
      expect(pageAsText(await store.v3PageText(b.mc_seqno, shape, book)), `${b.mc_seqno} ${JSON.stringify(shape)} ${book}`).toEqual(want)
    }
  }
}

const sameApi = () =>
  expectSameAnswers(
    v3PageUrls(
      bundles.map((b) => b.mc_seqno),
      ["", "&sort=asc", "&limit=7&offset=3", "&limit=3&offset=2&sort=asc", "&limit=1000&sort=desc"]
    ),
    fromPages,
    [fromKv, fromReaders]
  )

beforeAll(async () => {
  ch = await testClickHouse("v3pages")
  // A store written before the key-value table: every table but v3_pages.
  const batch = flattenBundles(bundles)
  await insertTables(ch.client, batch, "v3_pages")
  kv = new ClickHouseTxStore(ch.client)
  pages = new ClickHouseTxStore(ch.client, { pageKv: false })
  readers = readClients(ch, 2)
  fromKv = buildApp({ store: kv, config, clock })
  fromPages = buildApp({ store: pages, config, clock })
  fromReaders = buildApp({ store: new ClickHouseTxStore(readers.clients), config, clock })
}, 120_000)

afterAll(async () => {
  await fromKv?.close()
  await fromPages?.close()
  await fromReaders?.close()
  await readers?.close()
  await ch?.close()
})

describe("v3_pages", () => {
  it("the generated block's lts tie across accounts", () => {
    const tied = bundles.find((b) => b.mc_seqno === 777)!
    const lts = tied.transactions.map((t) => t.lt)
    expect(new Set(lts).size).toBeLessThan(lts.length)
    expect(new Set(tied.transactions.map((t) => `${t.account} ${t.lt}`)).size).toBe(lts.length)
  })

  it("a store without rows answers from tx_pages, identically", async () => {
    expect(await count("SELECT count() AS n FROM v3_pages")).toBe(0)
    await sameAsPages(kv)
  })

  it("the fill gives every done block its row once, resumably, and pages answer from it as from tx_pages", async () => {
    const progress: Array<number> = []
    const controller = new AbortController()
    // stopped after its first batch, then resumed where it stopped
    const first = await backfillV3Pages(ch.client, {
      batchBlocks: 2,
      signal: controller.signal,
      onProgress: (p) => {
        progress.push(p.through)
        controller.abort()
      }
    })
    expect(first).toBe(2)
    expect(progress).toHaveLength(1)
    const rest = await backfillV3Pages(ch.client, { batchBlocks: 2 })
    expect(first + rest).toBe(bundles.length)
    expect(await count("SELECT count() AS n FROM v3_pages")).toBe(bundles.length)
    expect(await backfillV3Pages(ch.client)).toBe(0)
    // the rows are exactly the rows the consumer writes, but for the states it embeds (pieces hold their hashes)
    const written = (await (await ch.client.query({ query: "SELECT * FROM v3_pages ORDER BY mc_block_seqno", format: "JSONEachRow" })).json()) as Array<unknown>
    const consumer = flattenBundles(bundles).v3_pages.sort((a, b) => a.mc_block_seqno - b.mc_block_seqno)
    expect(consumer.some((r) => r.lines.some((l) => l.split("\t").slice(0, 2).some((f) => f.startsWith("{"))))).toBe(true)
    expect(written).toEqual(JSON.parse(JSON.stringify(consumer.map(withStateHashes))))
    await sameAsPages(kv)
    await sameApi()
  })

  it("answers from the row (not tx_pages) once it is there", async () => {
    const b = bundles.find((x) => x.mc_seqno === 777)!
    const before = pageAsText(await kv.v3PageText(777, { limit: 40, offset: 0, sort: "asc" }, true))
    expect(before?.txs.length).toBe(b.transactions.length)
    // with the pieces gone, the row still answers (so nothing that drops pieces may leave the row: see below)
    await ch.client.command({ query: "DELETE FROM tx_pages WHERE mc_block_seqno = 777", clickhouse_settings: { lightweight_deletes_sync: "2" } })
    expect(pageAsText(await kv.v3PageText(777, { limit: 40, offset: 0, sort: "asc" }, true))).toEqual(before)
    expect(await pages.v3PageText(777, { limit: 40, offset: 0, sort: "asc" }, true)).toBeNull()
    // the row deleted as pieces are dropped: both answer from the row tables (null here), and a fill skips the block
    // while its pieces are missing
    await deleteV3Pages(ch.client, [777])
    expect(await kv.v3PageText(777, { limit: 40, offset: 0, sort: "asc" }, true)).toBeNull()
    expect(await backfillV3Pages(ch.client, { seqnos: [777] })).toBe(0)
    const api = await fromKv.inject("/api/v3/masterchainBlockShardState?seqno=777&sort=asc")
    expect(api.body).toBe((await fromPages.inject("/api/v3/masterchainBlockShardState?seqno=777&sort=asc")).body)
    // pieces rendered again, then the row written again
    await ch.client.insert<object>({ table: "tx_pages", values: flattenBundles([b]).tx_pages, format: "JSONEachRow" })
    expect(await backfillV3Pages(ch.client, { seqnos: [777] })).toBe(1)
    expect(pageAsText(await kv.v3PageText(777, { limit: 40, offset: 0, sort: "asc" }, true))).toEqual(before)
    await sameAsPages(kv)
  })
})
