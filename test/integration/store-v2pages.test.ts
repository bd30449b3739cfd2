/**
 * The key-value v2 page rows (`v2_pages`, sql/0132) on the real engine, over a real and a generated store written
 * before the table: before the fill every v2 page is answered as before (no row, the tx_pages path), the fill gives
 * every block of a done masterchain block exactly the row the consumer writes, and then every page shape (no cursor,
 * a cursor on each transaction, between two, before the first, past the last; counts 1 to 1000; matching and
 * mismatching root/file hashes; unknown blocks) answers byte for byte what the tx_pages path and the in-memory store
 * answer. Rows of blocks without completion marker are never served and are removed with the block; re-rendered pieces
 * have their rows deleted first and filled again after; a block whose pieces are missing gets no row.
 */
import type { FastifyInstance } from "fastify"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { buildApp, type ApiAppConfig } from "../../src/api/app.js"
import { flattenBundles } from "../../src/flatten/index.js"
import type { V2PageRow } from "../../src/flatten/v2_pages.js"
import { deleteIncomplete } from "../../src/sink/deleteIncomplete.js"
import { backfillV2Pages, deleteV2Pages } from "../../src/store/backfillV2Pages.js"
import { readClients, type ReadClients } from "../../src/store/readers.js"
import { ClickHouseTxStore, clientReader, type ReadConnection } from "../../src/store/Store.js"
import type { BlockRecord, MasterchainBundle } from "../../src/ton/record.js"
import { testClickHouse, type TestClickHouse } from "../support/integration.js"
import { memoryStoreOf } from "../support/memoryStore.js"
import { syntheticBundle } from "../unit/store/records.js"
import { realBlockBundles } from "../unit/store/realBlocks.js"
import { insertTables } from "../support/storeRows.js"

const config: ApiAppConfig = { network: "mainnet", api: { keys: [], rateLimit: 0 }, cacheBytes: 0 }
const clock = { nowMs: () => 1724745562699, random: () => 0.5335802192168009 }
const bundles: Array<MasterchainBundle> = [...realBlockBundles().bundles, syntheticBundle(700), syntheticBundle(701)]

let ch: TestClickHouse
let kv: ClickHouseTxStore
let readers: ReadClients
let fromKv: FastifyInstance
let fromSessions: FastifyInstance
let fromTxPages: FastifyInstance
let fromMemory: FastifyInstance

const count = async (sql: string): Promise<number> => {
  const [r] = await (await ch.client.query({ query: sql, format: "JSONEachRow" })).json<{ n: string }>()
  return Number(r?.n)
}

const blocksOf = (b: MasterchainBundle): Array<BlockRecord> => [b.mc_block, ...b.shard_blocks]

/** The same answer (status and bytes) from the row path (client and sessions), the tx_pages path and memory. */
const same = async (url: string): Promise<number> => {
  const [a, s, t, m] = await Promise.all([fromKv, fromSessions, fromTxPages, fromMemory].map((app) => app.inject(url)))
  expect(a!.body, url).toBe(m!.body)
  expect(s!.body, url).toBe(m!.body)
  expect(t!.body, url).toBe(m!.body)
  expect(a!.statusCode, url).toBe(m!.statusCode)
  return a!.statusCode
}

const v2Url = (id: { workchain: number; shard: string; seqno: number }, q = "") =>
  `/api/v2/getBlockTransactionsExt?workchain=${id.workchain}&shard=${id.shard}&seqno=${id.seqno}${q}`

/** Every page shape of every block, and the errors. */
const everyPage = async () => {
  let pages = 0
  for (const b of bundles) {
    for (const blk of blocksOf(b)) {
      const txs = b.transactions
        .filter((t) => t.block.seqno === blk.id.seqno && t.block.shard === blk.id.shard && t.block.workchain === blk.id.workchain)
        .map((t) => ({ account: t.account.slice(t.account.indexOf(":") + 1), lt: BigInt(t.lt) }))
        // the first, the middle and the last (a block of the real sample holds 510 transactions)
        .filter((_, i, all) => i === 0 || i === all.length >> 1 || i === all.length - 1)
      const cursors = [
        "",
        ...txs.map((t) => `&after_hash=${t.account}&after_lt=${t.lt}`),
        ...txs.map((t) => `&after_hash=${t.account.toLowerCase()}&after_lt=${t.lt + 1n}`),
        ...txs.filter((t) => t.lt > 0n).map((t) => `&after_hash=${t.account}&after_lt=${t.lt - 1n}`),
        `&after_hash=${"0".repeat(64)}&after_lt=0`,
        `&after_hash=${"F".repeat(64)}&after_lt=9223372036854775807`
      ]
      for (const c of cursors) {
        for (const n of c === "" ? [1, 40, 1000] : [1, 1000]) {
          expect(await same(v2Url(blk.id, `${c}&count=${n}`))).toBe(200)
          pages++
        }
      }
      const hashes = `&root_hash=${encodeURIComponent(blk.id.root_hash)}&file_hash=${encodeURIComponent(blk.id.file_hash)}`
      expect(await same(v2Url(blk.id, hashes))).toBe(200)
      const wrong = `&root_hash=${encodeURIComponent(blk.id.file_hash)}&file_hash=${encodeURIComponent(blk.id.file_hash)}`
      expect(await same(v2Url(blk.id, wrong))).toBe(404)
      expect(await same(v2Url({ ...blk.id, seqno: blk.id.seqno + 100_000 }))).toBe(404)
    }
  }
  return pages
}

const storedRows = async (): Promise<Array<V2PageRow>> =>
  (
    await (
      await ch.client.query({
        query: "SELECT block, mc_block_seqno, root_hash, file_hash, keys, v2 FROM v2_pages ORDER BY block",
        format: "JSONEachRow"
      })
    ).json<V2PageRow>()
  ).map((r) => ({ ...r, mc_block_seqno: Number(r.mc_block_seqno) }))

beforeAll(async () => {
  ch = await testClickHouse("v2pages")
  // A store written before the key-value table: every table but v2_pages.
  const batch = flattenBundles(bundles)
  await insertTables(ch.client, batch, "v2_pages")
  kv = new ClickHouseTxStore(ch.client)
  fromKv = buildApp({ store: kv, config, clock })
  readers = readClients(ch, 2)
  fromSessions = buildApp({ store: new ClickHouseTxStore(readers.clients), config, clock })
  fromTxPages = buildApp({ store: new ClickHouseTxStore(ch.client, { pageKv: false }), config, clock })
  fromMemory = buildApp({
    store: memoryStoreOf(bundles),
    config,
    clock
  })
}, 120_000)

afterAll(async () => {
  for (const app of [fromKv, fromSessions, fromTxPages, fromMemory]) await app?.close()
  await readers?.close()
  await ch?.close()
})

describe("v2_pages", () => {
  it("a store without rows answers every v2 page as before", async () => {
    for (const b of bundles) for (const blk of blocksOf(b)) expect(await kv.v2BlockPage(blk.id, null, 40)).toBeNull()
    expect(await everyPage()).toBeGreaterThan(100)
  }, 600_000)

  it("the fill writes every block's row, the consumer's row, once; pages then come from the rows, byte for byte", async () => {
    const blocks = bundles.reduce((n, b) => n + blocksOf(b).length, 0)
    expect(await backfillV2Pages(ch.client, { batchBlocks: 2 })).toBe(blocks)
    expect(await backfillV2Pages(ch.client)).toBe(0)
    const consumer = flattenBundles(bundles).v2_pages.sort((a, b) => (a.block < b.block ? -1 : 1))
    expect(await storedRows()).toEqual(consumer)
    for (const b of bundles) {
      for (const blk of blocksOf(b)) {
        const page = await kv.v2BlockPage(blk.id, null, 1000)
        expect(page?.id).toEqual(blk.id)
        expect(page?.count).toBe(b.transactions.filter((t) => t.block.seqno === blk.id.seqno && t.block.shard === blk.id.shard).length)
      }
    }
    await everyPage()
  }, 600_000)

  it("a page from its row is one statement, planned by the engine's former analyzer (less CPU, the same row)", async () => {
    const statements: Array<string> = []
    const inner = clientReader(ch.client)
    const recording: ReadConnection = {
      jsonEachRow: (sql) => (statements.push(sql), inner.jsonEachRow(sql)),
      text: (sql) => (statements.push(sql), inner.text(sql)),
      bytes: (sql) => (statements.push(sql), inner.bytes(sql))
    }
    await backfillV2Pages(ch.client)
    const store = new ClickHouseTxStore([recording])
    const blk = bundles.flatMap(blocksOf).find((x) => x.tx_count > 0)!
    // the first page also loads the marker's bitmap
    const first = await store.v2BlockPage(blk.id, null, 40)
    statements.length = 0
    expect(await store.v2BlockPage(blk.id, null, 40)).toEqual(first)
    expect(first?.count).toBe(Math.min(40, blk.tx_count))
    expect(statements).toHaveLength(1)
    expect(statements[0]).toMatch(/FROM v2_pages\s[\s\S]*SETTINGS enable_analyzer = 0\s/)
  })

  it("re-rendered pieces: rows deleted first, none for a block whose pieces are missing, filled again after", async () => {
    const b = bundles.find((x) => x.transactions.length > 0 && x.shard_blocks.some((s) => s.tx_count > 0))!
    const blk = b.shard_blocks.find((s) => s.tx_count > 0)!
    await deleteV2Pages(ch.client, [b.mc_seqno])
    for (const x of blocksOf(b)) expect(await kv.v2BlockPage(x.id, null, 40)).toBeNull()
    // the pieces dropped (as a re-render does): the fill writes no row for the block's blocks with transactions
    await ch.client.command({
      query: `DELETE FROM tx_pages WHERE mc_block_seqno = ${b.mc_seqno}`,
      clickhouse_settings: { lightweight_deletes_sync: "2" }
    })
    await backfillV2Pages(ch.client, { seqnos: [b.mc_seqno] })
    expect(await kv.v2BlockPage(blk.id, null, 40)).toBeNull()
    await everyPage()
    // the pieces back: the fill for the re-rendered block writes its rows again
    const pieces = flattenBundles([b]).tx_pages
    await ch.client.insert<object>({ table: "tx_pages", values: pieces, format: "JSONEachRow" })
    await backfillV2Pages(ch.client, { seqnos: [b.mc_seqno] })
    expect((await kv.v2BlockPage(blk.id, null, 1000))?.count).toBe(blk.tx_count)
    expect(await storedRows()).toEqual(flattenBundles(bundles).v2_pages.sort((a, c) => (a.block < c.block ? -1 : 1)))
    await everyPage()
  }, 600_000)

  it("rows of a block without completion marker are not served and are removed with the block", async () => {
    const b = syntheticBundle(900)
    const rows = flattenBundles([b])
    expect(rows.v2_pages.length).toBe(blocksOf(b).length)
    await insertTables(ch.client, rows, "mc_blocks_done")
    const blk = b.shard_blocks.find((s) => s.tx_count > 0)!
    expect(await count(`SELECT count() AS n FROM v2_pages WHERE mc_block_seqno = 900`)).toBe(blocksOf(b).length)
    expect(await kv.v2BlockPage(blk.id, null, 40)).toBeNull()
    expect((await fromKv.inject(v2Url(blk.id))).statusCode).toBe(404)
    expect(await deleteIncomplete(ch.client)).toEqual([900])
    expect(await count(`SELECT count() AS n FROM v2_pages WHERE mc_block_seqno = 900`)).toBe(0)
  })
})
