/**
 * A store as a single node's consumer writes it (src/flatten/bundle.ts, `pageKv`): the pages in the key-value rows
 * (`v3_pages`, `v2_pages`), `tx_pages` only for a block that gets no `v2_pages` row. Over real mainnet blocks, generated
 * ones and one block whose pieces do not fit the v2 row's shape (an account of another workchain), every v3 and v2
 * page shape answers byte for byte what a store holding every piece in `tx_pages` (as written before) answers, and
 * what the in-memory store answers. A block finished after the reader loaded the marker's bitmap is still answered
 * from its key-value rows. The page render finds nothing to do in such a store, and renders a block whose pages were
 * all dropped straight into the rows the consumer writes.
 */
import type { FastifyInstance } from "fastify"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { buildApp, type ApiAppConfig } from "../../src/api/app.js"
import { flattenBundles, INSERT_ORDER, type TableRows } from "../../src/flatten/index.js"
import { v2PageKey } from "../../src/flatten/v2_pages.js"
import { fillAccountLookupsKv } from "../../src/store/accountLookupsKv.js"
import { backfillTxPages, lowerRenderProgress } from "../../src/store/backfillPages.js"
import { deleteV2Pages } from "../../src/store/backfillV2Pages.js"
import { deleteV3Pages } from "../../src/store/backfillV3Pages.js"
import { ClickHouseTxStore } from "../../src/store/Store.js"
import type { BlockRecord, MasterchainBundle } from "../../src/ton/record.js"
import { memoryStoreOf } from "../support/memoryStore.js"
import { testClickHouse, type TestClickHouse } from "../support/integration.js"
import { syntheticBundle } from "../unit/store/records.js"
import { realBlockBundles } from "../unit/store/realBlocks.js"

const config: ApiAppConfig = { network: "mainnet", api: { keys: [], rateLimit: 0 }, cacheBytes: 0 }
const clock = { nowMs: () => 1724745562699, random: () => 0.5335802192168009 }

/** A generated bundle one of whose workchain-0 transactions names an account of the masterchain: no v2 row fits. */
const misfitBundle = (seqno: number): MasterchainBundle => {
  const b = syntheticBundle(seqno)
  const i = b.transactions.findIndex((t) => t.block.workchain === 0)
  const tx = b.transactions[i]!
  const moved = { ...tx, account: `-1:${tx.account.slice(tx.account.indexOf(":") + 1)}` }
  return { ...b, transactions: b.transactions.map((t, k) => (k === i ? moved : t)) }
}

const MISFIT = 702
const fitting: Array<MasterchainBundle> = [...realBlockBundles().bundles, syntheticBundle(700), syntheticBundle(701)]
const misfit = misfitBundle(MISFIT)
const bundles = [...fitting, misfit]
/** Written after the readers loaded the marker's bitmap. */
const late = syntheticBundle(703)

let thin: TestClickHouse
let full: TestClickHouse
let fromThin: FastifyInstance
let fromFull: FastifyInstance
let fromMemory: FastifyInstance
let thinStore: ClickHouseTxStore

const insertAll = async (ch: TestClickHouse, rows: TableRows) => {
  for (const table of INSERT_ORDER) {
    if (rows[table].length > 0) await ch.client.insert<object>({ table, values: rows[table], format: "JSONEachRow" })
  }
}

const text = async (query: string): Promise<string> =>
  (await thin.client.query({ query, format: "TabSeparated" })).text()

const blocksOf = (b: MasterchainBundle): Array<BlockRecord> => [b.mc_block, ...b.shard_blocks]

/** Every v3 page shape of a masterchain block and v2 page shape of its blocks. */
const urlsOf = (b: MasterchainBundle): Array<string> => {
  const out: Array<string> = []
  const n = b.transactions.length
  for (const sort of ["desc", "asc"]) {
    for (const [limit, offset] of [
      [1000, 0],
      [1, 0],
      [3, 1],
      [2, Math.max(0, n - 1)],
      [5, n + 3]
    ]) {
      out.push(
        `/api/v3/transactionsByMasterchainBlock?seqno=${b.mc_seqno}&limit=${limit}&offset=${offset}&sort=${sort}`
      )
    }
    out.push(`/api/v3/masterchainBlockShardState?seqno=${b.mc_seqno}&limit=1000&sort=${sort}`)
  }
  for (const blk of blocksOf(b)) {
    const v2 = `/api/v2/getBlockTransactionsExt?workchain=${blk.id.workchain}&shard=${blk.id.shard}&seqno=${blk.id.seqno}`
    out.push(`${v2}&count=1000`, `${v2}&count=1`, `${v2}&count=2`)
    const own = b.transactions.filter((t) => t.block.seqno === blk.id.seqno && t.block.shard === blk.id.shard)
    const mid = own[own.length >> 1]
    if (mid !== undefined) {
      out.push(`${v2}&count=3&after_hash=${mid.account.slice(mid.account.indexOf(":") + 1)}&after_lt=${mid.lt}`)
    }
  }
  return out
}

/** The same status and bytes from the thin store, the store with every piece, and (unless `memory` is off) memory. */
const same = async (url: string, memory = true): Promise<number> => {
  const [t, f, m] = await Promise.all([fromThin, fromFull, fromMemory].map((app) => app.inject(url)))
  expect(t!.body, url).toBe(f!.body)
  expect(t!.statusCode, url).toBe(f!.statusCode)
  if (memory) expect(t!.body, url).toBe(m!.body)
  return t!.statusCode
}

beforeAll(async () => {
  thin = await testClickHouse("kv pages thin")
  full = await testClickHouse("kv pages full")
  await insertAll(thin, flattenBundles(bundles, { pageKv: true }))
  await insertAll(full, flattenBundles(bundles))
  thinStore = new ClickHouseTxStore(thin.client)
  fromThin = buildApp({ store: thinStore, config, clock })
  fromFull = buildApp({ store: new ClickHouseTxStore(full.client), config, clock })
  fromMemory = buildApp({ store: memoryStoreOf([...bundles, late]), config, clock })
}, 120_000)

afterAll(async () => {
  for (const app of [fromThin, fromFull, fromMemory]) await app?.close()
  await thin?.close()
  await full?.close()
})

describe("a store whose pages live in the key-value rows", () => {
  it("holds tx_pages rows only for the block without a v2 row", async () => {
    const rows = flattenBundles(bundles, { pageKv: true })
    const odd = misfit.transactions.find((t) => t.account.startsWith("-1:") && t.block.workchain === 0)!
    const oddBlock = v2PageKey(odd.block.workchain, odd.block.shard, odd.block.seqno)
    expect(rows.v2_pages.map((r) => r.block)).not.toContain(oddBlock)
    const inOdd = misfit.transactions.filter(
      (t) => t.block.seqno === odd.block.seqno && t.block.shard === odd.block.shard
    )
    expect(rows.tx_pages.map((p) => p.lt).sort()).toEqual(inOdd.map((t) => t.lt).sort())
    expect(await text("SELECT mc_block_seqno, count() FROM tx_pages GROUP BY ALL")).toBe(`${MISFIT}\t${inOdd.length}\n`)
    // every masterchain block has its v3 row, every other block its v2 row
    expect(rows.v3_pages.map((r) => r.mc_block_seqno)).toEqual(bundles.map((b) => b.mc_seqno))
    expect(rows.v2_pages.length).toBe(bundles.reduce((n, b) => n + blocksOf(b).length, 0) - 1)
  })

  it("answers every page byte for byte as the store with every piece and the in-memory store", async () => {
    let pages = 0
    for (const b of fitting) {
      for (const url of urlsOf(b)) {
        expect(await same(url)).toBe(200)
        pages++
      }
      expect(await thinStore.v3PageText(b.mc_seqno, { limit: 1000, offset: 0, sort: "desc" }, true)).not.toBeNull()
    }
    // the block that does not fit: its v2 page from tx_pages, the others from their rows, v3 from the row
    for (const url of urlsOf(misfit)) {
      expect(await same(url, false)).toBe(200)
      pages++
    }
    expect(pages).toBeGreaterThan(100)
  }, 600_000)

  it("a block finished after the marker's bitmap was loaded is answered from its key-value rows", async () => {
    await insertAll(thin, flattenBundles([late], { pageKv: true }))
    await insertAll(full, flattenBundles([late]))
    expect(await thinStore.v3PageText(late.mc_seqno, { limit: 10, offset: 0, sort: "asc" }, true)).not.toBeNull()
    const blk = late.shard_blocks.find((s) => s.tx_count > 0)!
    expect((await thinStore.v2BlockPage(blk.id, null, 1000))?.count).toBe(blk.tx_count)
    for (const url of urlsOf(late)) expect(await same(url)).toBe(200)
  }, 120_000)

  it("the page render finds nothing to do, and renders a block whose pages were dropped into the consumer's rows", async () => {
    const dump = async () => [
      await text("SELECT * FROM v3_pages ORDER BY mc_block_seqno"),
      await text("SELECT * FROM v2_pages ORDER BY block"),
      await text("SELECT * FROM tx_pages FINAL ORDER BY ALL")
    ]
    // the lookups table filled, as every start fills it: the render embeds the known states the consumer embedded
    await fillAccountLookupsKv(thin.client)
    const before = await dump()
    expect(await backfillTxPages(thin.client, { pageKv: true, batchBlocks: 3 })).toEqual([])
    expect(await dump()).toEqual(before)
    // every page of two blocks dropped, as a re-render drops them (the walk's progress lowered first)
    const dropped = [fitting.at(-1)!.mc_seqno, MISFIT]
    await lowerRenderProgress(thin.client, Math.min(...dropped))
    await deleteV3Pages(thin.client, dropped)
    await deleteV2Pages(thin.client, dropped)
    await thin.client.command({
      query: `DELETE FROM tx_pages WHERE mc_block_seqno IN (${dropped.join(",")})`,
      clickhouse_settings: { lightweight_deletes_sync: "2" }
    })
    for (const b of bundles.filter((x) => dropped.includes(x.mc_seqno)))
      for (const url of urlsOf(b)) await same(url, false)
    expect(await backfillTxPages(thin.client, { pageKv: true, batchBlocks: 3 })).toEqual(dropped)
    expect(await dump()).toEqual(before)
    for (const b of bundles.filter((x) => dropped.includes(x.mc_seqno)))
      for (const url of urlsOf(b)) await same(url, false)
  }, 600_000)
})
