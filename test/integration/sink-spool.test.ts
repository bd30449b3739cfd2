/**
 * The sink with its tables' bytes moved to spool files as they are encoded (a small `spillBytes`, so every table with
 * more than a kilobyte of rows goes through a file): the same stored rows as a sink whose bodies stay in memory, both
 * in the embedded engine (FROM INFILE of the file itself) and through a ClickHouse server's HTTP interface (the file
 * streamed as the body: the SQL endpoint in writable mode over the same engine); every spool file is gone once the
 * batch is written, and after a failed insert too. The engine is this file's own chdb on a temporary directory.
 */
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Effect, Layer } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { ClickHouse, type ClickHouseClientConfig, makeClickHouseClient, type ClickHouseHandle } from "../../src/clickhouse/ClickHouse.js"
import { applyMigrations } from "../../src/clickhouse/migrations.js"
import { startSqlEndpoint, type RunningSqlEndpoint } from "../../src/clickhouse/SqlEndpoint.js"
import { INSERT_ORDER } from "../../src/flatten/index.js"
import { Metrics } from "../../src/ops/Metrics.js"
import { ClickHouseSink, type SinkOptions } from "../../src/sink/ClickHouseSink.js"
import { sinkItem } from "../support/sink.js"
import { realBlockBundles } from "../unit/store/realBlocks.js"
import { syntheticBundle } from "../unit/store/records.js"

const { bundles: real } = realBlockBundles()
const bundles = [...real, ...[1000, 1001, 1002].map(syntheticBundle)]

let dir: string
let spools: string
let owner: ClickHouseHandle
let endpoint: RunningSqlEndpoint

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "sink-spool-"))
  spools = mkdtempSync(join(tmpdir(), "sink-spool-files-"))
  owner = await makeClickHouseClient({ url: undefined, user: "default", password: "", database: "spool_owner", dataDir: join(dir, "engine") })
  endpoint = await startSqlEndpoint({
    engine: owner.embedded!,
    database: "spool_owner",
    host: "127.0.0.1",
    port: 0,
    user: "",
    password: "",
    closeDeadlineMs: 500,
    writable: true
  })
}, 120_000)

afterAll(async () => {
  await endpoint?.close()
  await owner?.client.close()
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true })
  if (spools !== undefined) rmSync(spools, { recursive: true, force: true })
})

interface Seen {
  readonly table: string
  /** Bytes of the body's file when the insert was handed it (undefined: the body was in memory). */
  readonly fileBytes: number | undefined
}

let serial = 0

/**
 * Writes `bundles` through a sink on `config`, its spool files in this file's directory, every insert's body recorded
 * as the sink hands it over; `failTable` makes that table's insert fail (once per attempt); `recoverFirst` runs the
 * sink's start-up cleanup before the write, as a consumer does.
 */
const writeThrough = (config: ClickHouseClientConfig, options: SinkOptions, failTable?: string, recoverFirst = false) => {
  const seen: Array<Seen> = []
  const observed = Layer.effect(
    ClickHouse,
    Effect.map(ClickHouse, (ch) =>
      ClickHouse.of({
        ...ch,
        spoolPath: () => join(spools, `${++serial}.body`),
        insertEncoded: async (insert) => {
          const body = insert.body as { file?: string; bytes?: number }
          const file = typeof body.file === "string" ? body.file : undefined
          if (file !== undefined) expect(statSync(file).size).toBe(body.bytes)
          seen.push({ table: insert.table, fileBytes: file === undefined ? undefined : body.bytes })
          if (insert.table === failTable) throw new Error(`injected failure of the ${failTable} insert`)
          return ch.insertEncoded(insert)
        }
      })
    )
  ).pipe(Layer.provideMerge(ClickHouse.fromConfig(config)))
  const run = Effect.flatMap(ClickHouseSink, (sink) =>
    Effect.zipRight(recoverFirst ? sink.recover : Effect.void, sink.write(bundles.map(sinkItem), async () => undefined))
  ).pipe(
    Effect.provide(ClickHouseSink.layerWith(options).pipe(Layer.provideMerge(observed), Layer.provide(Metrics.layerTest))),
    Effect.scoped
  )
  return { seen, run: Effect.runPromise(Effect.either(run)) }
}

const embedded = (database: string): ClickHouseClientConfig => ({
  url: undefined,
  user: "default",
  password: "",
  database,
  dataDir: join(dir, "engine")
})

const served = (database: string): ClickHouseClientConfig => ({
  url: endpoint.url,
  user: "default",
  password: "",
  database,
  dataDir: ""
})

const dump = async (database: string, table: string): Promise<string> => {
  const cols = await (
    await owner.client.query({
      query: `SELECT name FROM system.columns WHERE database = {db:String} AND table = {t:String}
        AND name NOT IN ('insert_id', 'inserted_at') ORDER BY position`,
      query_params: { db: database, t: table },
      format: "JSONEachRow"
    })
  ).json<{ name: string }>()
  const list = cols.map((c) => c.name).join(", ")
  return (await owner.client.query({ query: `SELECT ${list} FROM ${database}.${table} ORDER BY ALL`, format: "JSONEachRow" })).text()
}

const migrated = async (config: ClickHouseClientConfig) => {
  const h = await makeClickHouseClient(config)
  try {
    await applyMigrations(h.client)
  } finally {
    await h.client.close()
  }
}

describe("the sink's insert bodies spooled to files as they are encoded", () => {
  it("store what bodies held in memory store, in the embedded engine and through a server's HTTP interface", async () => {
    for (const db of ["spool_memory", "spool_files", "spool_served"]) {
      await migrated(db === "spool_served" ? served(db) : embedded(db))
    }
    const memory = writeThrough(embedded("spool_memory"), { spillBytes: Number.POSITIVE_INFINITY })
    expect((await memory.run)._tag).toBe("Right")
    const files = writeThrough(embedded("spool_files"), { spillBytes: 1024 })
    expect((await files.run)._tag).toBe("Right")
    const viaServer = writeThrough(served("spool_served"), { spillBytes: 1024 })
    expect((await viaServer.run)._tag).toBe("Right")

    // Without a bound every body stays in memory; with a kilobyte, the large tables' bodies went through files.
    expect(memory.seen.every((s) => s.fileBytes === undefined)).toBe(true)
    for (const seen of [files.seen, viaServer.seen]) {
      const filed = seen.filter((s) => s.fileBytes !== undefined).map((s) => s.table)
      expect(filed).toEqual(expect.arrayContaining(["transactions", "messages", "v3_pages", "v2_pages"]))
      expect(seen.map((s) => s.table)).toEqual(memory.seen.map((s) => s.table))
    }
    for (const table of INSERT_ORDER) {
      const expected = await dump("spool_memory", table)
      expect({ table, rows: await dump("spool_files", table) }).toEqual({ table, rows: expected })
      expect({ table, rows: await dump("spool_served", table) }).toEqual({ table, rows: expected })
    }
    expect((await dump("spool_memory", "transactions")).split("\n").length).toBeGreaterThan(bundles.length)
    expect(readdirSync(spools)).toEqual([])
  })

  it("leave no spool file behind when an insert fails, and the batch is written whole by the next attempt", async () => {
    await migrated(embedded("spool_failed"))
    const failing = writeThrough(embedded("spool_failed"), { spillBytes: 1024, attempts: 1 }, "transactions")
    const result = await failing.run
    expect(result._tag).toBe("Left")
    // the tables before it were handed files, the failed one too; nothing is left of any of them
    expect(failing.seen.some((s) => s.table === "messages" && s.fileBytes !== undefined)).toBe(true)
    expect(readdirSync(spools)).toEqual([])
    expect(await dump("spool_failed", "mc_blocks_done")).toBe("")

    // As a consumer starting again: the start-up cleanup, then the batch from Kafka once more. The tables not keyed
    // by masterchain block keep the failed attempt's rows until merges collapse them (sql/README.md): compared as sets.
    const again = writeThrough(embedded("spool_failed"), { spillBytes: 1024 }, undefined, true)
    expect((await again.run)._tag).toBe("Right")
    expect(readdirSync(spools)).toEqual([])
    for (const table of INSERT_ORDER) {
      const distinct = async (db: string) => [...new Set((await dump(db, table)).split("\n"))].join("\n")
      expect({ table, rows: await distinct("spool_failed") }).toEqual({ table, rows: await distinct("spool_memory") })
    }
  })

  it("put a server's spool files in this process's own directory under the temporary one, each path new", async () => {
    const h = await makeClickHouseClient(served("spool_owner"))
    try {
      const p = h.spoolPath()
      expect(p.startsWith(join(tmpdir(), `ton-exporter-inserts-${process.pid}`))).toBe(true)
      expect(existsSync(join(tmpdir(), `ton-exporter-inserts-${process.pid}`))).toBe(true)
      expect(h.spoolPath()).not.toBe(p)
    } finally {
      await h.client.close()
    }
    expect(owner.spoolPath().startsWith(join(dir, "engine"))).toBe(true)
    // two handles of one process on one engine (two sinks of a consumer group in one process) never share a file
    const second = await makeClickHouseClient(embedded("spool_owner"))
    try {
      const paths = [owner.spoolPath(), second.spoolPath(), owner.spoolPath(), second.spoolPath()]
      expect(new Set(paths).size).toBe(4)
    } finally {
      await second.client.close()
    }
  })
})
