/**
 * The key-value rows of each masterchain block's blocks and shard tops (`mc_shards_kv`, sql/0150) on the real engine,
 * over a store written before the table (real mainnet blocks and generated ones, a top unchanged since the previous
 * masterchain block among them). It migrates: the migration adds the table, and until the fill every
 * `masterchainBlockShards` and v2 `shards` answer comes from `blocks` and `mc_shard_blocks` as before; the fill gives
 * every done masterchain block exactly the row the consumer writes, and from then on each answer is one key lookup of
 * that row, byte for byte what the MergeTree tables and the in-memory store answer (every limit and offset, unknown
 * blocks). A row of a block without completion marker is never served and is removed with the block.
 */
import type { FastifyInstance } from "fastify"
import { copyFileSync, mkdtempSync, readdirSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { buildApp, type ApiAppConfig } from "../../src/api/app.js"
import { applyMigrations, defaultMigrationsDir } from "../../src/clickhouse/migrations.js"
import { flattenBundles, type McShardsKvRow } from "../../src/flatten/index.js"
import { deleteIncomplete } from "../../src/sink/deleteIncomplete.js"
import { backfillMcShards } from "../../src/store/backfillMcShards.js"
import { readClients, type ReadClients } from "../../src/store/readers.js"
import { ClickHouseTxStore, clientReader, type ReadConnection } from "../../src/store/Store.js"
import type { MasterchainBundle } from "../../src/ton/record.js"
import { testClickHouse, type TestClickHouse } from "../support/integration.js"
import { memoryStoreOf } from "../support/memoryStore.js"
import { syntheticBundle } from "../unit/store/records.js"
import { realBlockBundles } from "../unit/store/realBlocks.js"
import { insertTables } from "../support/storeRows.js"

const config: ApiAppConfig = { network: "mainnet", api: { keys: [], rateLimit: 0 }, cacheBytes: 0 }
const clock = { nowMs: () => 1724745562699, random: () => 0.5335802192168009 }
const NEW_MIGRATION = "0150_create_mc_shards_kv.sql"
const bundles: Array<MasterchainBundle> = [...realBlockBundles().bundles, syntheticBundle(700), syntheticBundle(701)]

let ch: TestClickHouse
let oldSql: string
let readers: ReadClients
let kv: ClickHouseTxStore
let fromKv: FastifyInstance
let fromSessions: FastifyInstance
let fromTables: FastifyInstance
let fromMemory: FastifyInstance

const count = async (sql: string): Promise<number> => {
  const [r] = await (await ch.client.query({ query: sql, format: "JSONEachRow" })).json<{ n: string }>()
  return Number(r?.n)
}

/** A store over a reader that records its statements. */
const recording = () => {
  const statements: Array<string> = []
  const inner = clientReader(ch.client)
  const reader: ReadConnection = {
    jsonEachRow: (sql) => (statements.push(sql), inner.jsonEachRow(sql)),
    text: (sql) => (statements.push(sql), inner.text(sql)),
    bytes: (sql) => (statements.push(sql), inner.bytes(sql))
  }
  return { store: new ClickHouseTxStore([reader]), statements }
}

/** The same answer (status and bytes) from the store under test (client and sessions), the row tables and memory. */
const same = async (url: string): Promise<number> => {
  const [a, s, t, m] = await Promise.all([fromKv, fromSessions, fromTables, fromMemory].map((app) => app.inject(url)))
  expect(a!.body, url).toBe(m!.body)
  expect(s!.body, url).toBe(m!.body)
  expect(t!.body, url).toBe(m!.body)
  expect(a!.statusCode, url).toBe(m!.statusCode)
  return a!.statusCode
}

/** Every masterchain block's blocks (every limit and offset that cuts them) and shard tops, and unknown blocks. */
const everyAnswer = async (): Promise<number> => {
  let answers = 0
  for (const b of bundles) {
    const n = 1 + b.shard_blocks.length
    for (const q of ["", "&limit=1", `&limit=${n}`, "&offset=1", "&limit=2&offset=1", `&offset=${n}`, "&limit=1000&offset=0"]) {
      expect(await same(`/api/v3/masterchainBlockShards?seqno=${b.mc_seqno}${q}`)).toBe(200)
      answers++
    }
    expect(await same(`/api/v2/shards?seqno=${b.mc_seqno}`)).toBe(200)
    expect(await same(`/api/v3/masterchainBlockShards?seqno=${b.mc_seqno + 100_000}`)).toBe(404)
    expect(await same(`/api/v2/shards?seqno=${b.mc_seqno + 100_000}`)).toBe(404)
    answers += 3
  }
  return answers
}

const storedRows = async (): Promise<Array<McShardsKvRow>> =>
  (
    await (
      await ch.client.query({ query: "SELECT mc_seqno, blocks, tops FROM mc_shards_kv ORDER BY mc_seqno", format: "JSONEachRow" })
    ).json<McShardsKvRow>()
  ).map((r) => ({ ...r, mc_seqno: Number(r.mc_seqno) }))

beforeAll(async () => {
  // a store as the build before sql/0150 left it: every migration before that one, every table but mc_shards_kv
  oldSql = mkdtempSync(join(tmpdir(), "old-sql-"))
  for (const name of readdirSync(defaultMigrationsDir)) {
    if (name.endsWith(".sql") && name < NEW_MIGRATION) copyFileSync(join(defaultMigrationsDir, name), join(oldSql, name))
  }
  ch = await testClickHouse("mcshards", { migrate: false })
  await applyMigrations(ch.client, oldSql)
  const batch = flattenBundles(bundles)
  await insertTables(ch.client, batch, "mc_shards_kv")
  kv = new ClickHouseTxStore(ch.client)
  fromKv = buildApp({ store: kv, config, clock })
  readers = readClients(ch, 2)
  fromSessions = buildApp({ store: new ClickHouseTxStore(readers.clients), config, clock })
  fromTables = buildApp({ store: new ClickHouseTxStore(ch.client, { pageKv: false }), config, clock })
  fromMemory = buildApp({
    store: memoryStoreOf(bundles),
    config,
    clock
  })
}, 120_000)

afterAll(async () => {
  for (const app of [fromKv, fromSessions, fromTables, fromMemory]) await app?.close()
  await readers?.close()
  await ch?.close()
  if (oldSql !== undefined) rmSync(oldSql, { recursive: true, force: true })
})

describe("mc_shards_kv", () => {
  it("a store written before it migrates: the table is added; until the fill the answers come from the row tables", async () => {
    const report = await applyMigrations(ch.client)
    // (and those after it)
    expect(report.applied[0]).toBe(NEW_MIGRATION)
    expect(await count("SELECT count() AS n FROM mc_shards_kv")).toBe(0)
    for (const b of bundles) expect(await kv.mcShards(b.mc_seqno)).toBeNull()
    const { store, statements } = recording()
    const app = buildApp({ store, config, clock })
    const b = bundles.at(-1)!
    const url = `/api/v3/masterchainBlockShards?seqno=${b.mc_seqno}`
    expect((await app.inject(url)).body).toBe((await fromMemory.inject(url)).body)
    await app.close()
    expect(statements.some((s) => /FROM blocks FINAL/.test(s))).toBe(true)
    expect(await everyAnswer()).toBeGreaterThan(30)
  }, 600_000)

  it("the fill writes every done masterchain block's row, the consumer's row, once; answers then come from the rows, byte for byte", async () => {
    expect(await backfillMcShards(ch.client, { batchBlocks: 2 })).toBe(bundles.length)
    expect(await backfillMcShards(ch.client)).toBe(0)
    const consumer = flattenBundles(bundles).mc_shards_kv.sort((a, b) => a.mc_seqno - b.mc_seqno)
    expect(consumer).toHaveLength(bundles.length)
    expect(await storedRows()).toEqual(consumer)
    for (const b of bundles) {
      const row = await kv.mcShards(b.mc_seqno)
      expect(row?.blocks).toHaveLength(new Set([b.mc_block, ...b.shard_blocks].map((x) => `${x.id.workchain}:${x.id.shard}:${x.id.seqno}`)).size)
    }
    expect(await everyAnswer()).toBeGreaterThan(30)
  }, 600_000)

  it("once filled, each answer is one lookup of its row (planned by the former analyzer); no read of blocks or mc_shard_blocks", async () => {
    const { store, statements } = recording()
    const app = buildApp({ store, config, clock })
    const b = bundles.at(-1)!
    // the first answer also loads the marker's bitmap
    await app.inject(`/api/v2/shards?seqno=${b.mc_seqno}`)
    for (const url of [`/api/v3/masterchainBlockShards?seqno=${b.mc_seqno}&limit=2&offset=1`, `/api/v2/shards?seqno=${b.mc_seqno}`]) {
      statements.length = 0
      const [a, m] = await Promise.all([app.inject(url), fromMemory.inject(url)])
      expect(a.body, url).toBe(m.body)
      expect(statements, url).toHaveLength(1)
      expect(statements[0]).toMatch(/FROM mc_shards_kv\s[\s\S]*SETTINGS enable_analyzer = 0\s/)
    }
    await app.close()
  })

  it("concurrent requests share one statement and each gets its own answer", async () => {
    const { store, statements } = recording()
    const app = buildApp({ store, config, clock })
    await app.inject(`/api/v2/shards?seqno=${bundles[0]!.mc_seqno}`)
    statements.length = 0
    const urls = bundles.flatMap((b) => [
      `/api/v3/masterchainBlockShards?seqno=${b.mc_seqno}&limit=1&offset=1`,
      `/api/v2/shards?seqno=${b.mc_seqno}`
    ])
    const got = await Promise.all(urls.map((u) => app.inject(u)))
    const want = await Promise.all(urls.map((u) => fromMemory.inject(u)))
    for (let i = 0; i < urls.length; i++) expect(got[i]!.body, urls[i]).toBe(want[i]!.body)
    expect(statements.length).toBeLessThan(urls.length)
    await app.close()
  })

  it("a row of a block without completion marker is not served and is removed with the block", async () => {
    const b = syntheticBundle(900)
    const rows = flattenBundles([b])
    expect(rows.mc_shards_kv).toHaveLength(1)
    await insertTables(ch.client, rows, "mc_blocks_done")
    expect(await count("SELECT count() AS n FROM mc_shards_kv WHERE mc_seqno = 900")).toBe(1)
    expect(await kv.mcShards(900)).toBeNull()
    expect((await fromKv.inject("/api/v3/masterchainBlockShards?seqno=900")).statusCode).toBe(404)
    expect((await fromKv.inject("/api/v2/shards?seqno=900")).statusCode).toBe(404)
    expect(await deleteIncomplete(ch.client)).toEqual([900])
    expect(await count("SELECT count() AS n FROM mc_shards_kv WHERE mc_seqno = 900")).toBe(0)
  })
})
