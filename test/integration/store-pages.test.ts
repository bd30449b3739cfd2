/**
 * The page table (`tx_pages`, sql/0100) on the real engine: a store written without it (as before the migration)
 * answers from records, the backfill gives every done block its pieces exactly once, and the pages then serve every
 * v3 and v2 page byte for byte as the renderers do over the same records (the in-memory store); pieces of a block
 * without completion marker are invisible and removed by the start-up cleanup. The API's own read connections (native
 * sessions on embedded chdb, ../../src/store/readers.ts) answer the same bytes as the client.
 */
import type { FastifyInstance } from "fastify"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { buildApp, type ApiAppConfig } from "../../src/api/app.js"
import { flattenBundles, INSERT_ORDER } from "../../src/flatten/index.js"
import { backfillTxPages, blocksWithoutPages } from "../../src/store/backfillPages.js"
import { deleteIncomplete } from "../../src/sink/deleteIncomplete.js"
import { readClients, type ReadClients } from "../../src/store/readers.js"
import { ClickHouseTxStore } from "../../src/store/Store.js"
import { testClickHouse, type TestClickHouse } from "../support/integration.js"
import { memoryStoreOf } from "../support/memoryStore.js"
import { syntheticBundle } from "../unit/store/records.js"
import { realBlockBundles } from "../unit/store/realBlocks.js"

const config: ApiAppConfig = { network: "mainnet", api: { keys: [], rateLimit: 0 }, cacheBytes: 0 }
const clock = { nowMs: () => 1724745562699, random: () => 0.5335802192168009 }
const bundles = realBlockBundles().bundles

let ch: TestClickHouse
let store: ClickHouseTxStore
let fromClickHouse: FastifyInstance
let fromMemory: FastifyInstance
let readers: ReadClients
let fromReaders: FastifyInstance

const count = async (sql: string): Promise<number> => {
  const [r] = await (await ch.client.query({ query: sql, format: "JSONEachRow" })).json<{ n: string }>()
  return Number(r?.n)
}

const both = async (url: string) => {
  const [a, b, c] = await Promise.all([fromClickHouse.inject(url), fromMemory.inject(url), fromReaders.inject(url)])
  expect(a.statusCode, url).toBe(200)
  expect(a.body, url).toBe(b.body)
  expect(c.body, url).toBe(b.body)
}

const everyPage = async () => {
  for (const b of bundles) {
    for (const q of ["", "&sort=asc", "&limit=7&offset=3", "&limit=1000&sort=desc"]) {
      await both(`/api/v3/masterchainBlockShardState?seqno=${b.mc_seqno}${q}`)
    }
    await both(`/api/v3/transactionsByMasterchainBlock?seqno=${b.mc_seqno}&limit=40&x_no_address_book=1`)
    for (const blk of [b.mc_block, ...b.shard_blocks]) {
      for (const count of [1, 40, 1000]) {
        await both(
          `/api/v2/getBlockTransactionsExt?workchain=${blk.id.workchain}&shard=${blk.id.shard}&seqno=${blk.id.seqno}&count=${count}`
        )
      }
    }
  }
}

beforeAll(async () => {
  ch = await testClickHouse("pages")
  // A store written before the page tables: every table but tx_pages and its key-value copy (v3_pages).
  const batch = flattenBundles(bundles)
  for (const table of INSERT_ORDER) {
    if (table === "tx_pages" || table === "v3_pages" || table === "v2_pages" || batch[table].length === 0) continue
    await ch.client.insert<object>({ table, values: batch[table], format: "JSONEachRow" })
  }
  store = new ClickHouseTxStore(ch.client)
  fromClickHouse = buildApp({ store, config, clock })
  readers = readClients(ch, 2)
  fromReaders = buildApp({ store: new ClickHouseTxStore(readers.clients), config, clock })
  fromMemory = buildApp({
    store: memoryStoreOf(bundles),
    config,
    clock
  })
}, 120_000)

afterAll(async () => {
  await fromClickHouse?.close()
  await fromReaders?.close()
  await readers?.close()
  await ch?.close()
})

describe("tx_pages", () => {
  it("a store without pieces answers from records, identically", async () => {
    const withTxs = bundles.filter((b) => b.transactions.length > 0).map((b) => b.mc_seqno)
    expect(withTxs.length).toBeGreaterThan(0)
    expect(await blocksWithoutPages(ch.client)).toEqual(withTxs.sort((a, b) => a - b))
    for (const s of withTxs) {
      expect(await store.v3PageText(s, { limit: 40, offset: 0, sort: "desc" }, true)).toBeNull()
    }
    await everyPage()
  })

  it("the backfill gives every done block its pieces once, and pages answer byte for byte", async () => {
    const filled = await backfillTxPages(ch.client, { batchTxs: 100 })
    expect(filled.length).toBe(bundles.filter((b) => b.transactions.length > 0).length)
    expect(await count("SELECT count() AS n FROM tx_pages")).toBe(await count("SELECT count() AS n FROM transactions"))
    expect(await backfillTxPages(ch.client)).toEqual([])
    expect(await blocksWithoutPages(ch.client)).toEqual([])
    for (const b of bundles.filter((x) => x.transactions.length > 0)) {
      const page = await store.v3PageText(b.mc_seqno, { limit: 1000, offset: 0, sort: "asc" }, true)
      expect(page?.txs.length).toBe(b.transactions.length)
      const blk = b.shard_blocks.find((s) => s.tx_count > 0) ?? b.mc_block
      expect((await store.v2PageText(blk, null, 1000))?.length).toBe(
        b.transactions.filter((t) => t.block.seqno === blk.id.seqno && t.block.shard === blk.id.shard).length
      )
    }
    await everyPage()
  })

  it("pieces of a block without completion marker are invisible and cleaned up", async () => {
    const b = syntheticBundle(900)
    const rows = flattenBundles([b])
    expect(rows.tx_pages.length).toBe(b.transactions.length)
    for (const table of INSERT_ORDER) {
      if (table === "mc_blocks_done" || rows[table].length === 0) continue
      await ch.client.insert<object>({ table, values: rows[table], format: "JSONEachRow" })
    }
    expect(await count("SELECT count() AS n FROM v3_pages WHERE mc_block_seqno = 900")).toBe(1)
    expect(await store.v3PageText(900, { limit: 40, offset: 0, sort: "desc" }, true)).toBeNull()
    expect((await fromClickHouse.inject("/api/v3/masterchainBlockShardState?seqno=900")).statusCode).toBe(404)
    expect(await deleteIncomplete(ch.client)).toEqual([900])
    expect(await count("SELECT count() AS n FROM tx_pages WHERE mc_block_seqno = 900")).toBe(0)
    expect(await count("SELECT count() AS n FROM v3_pages WHERE mc_block_seqno = 900")).toBe(0)
  })
})
