// ClickHouse through the project's one client path: migrations apply in order, are recorded and refuse edited
// files; rows round-trip with the JSON types toncenter uses (64-bit integers as strings, signed shard ids,
// fixed-width hashes) on whichever engine the run uses (embedded chdb or a server).
import { readFileSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { ClickHouseError, makeClickHouseClient } from "../../src/clickhouse/ClickHouse.js"
import { applyMigrations, readMigrations, splitStatements } from "../../src/clickhouse/migrations.js"
import { realFixturesDir, testClickHouse, type TestClickHouse } from "../support/integration.js"

let ch: TestClickHouse
beforeAll(async () => {
  ch = await testClickHouse("infra-clickhouse")
})
afterAll(async () => {
  await ch?.close()
})

const rows = async <A>(query: string, query_params?: Record<string, unknown>): Promise<Array<A>> =>
  (await ch.client.query({ query, query_params, format: "JSONEachRow" })).json<A>()

describe("migrations", () => {
  it("applied every sql/ file once, in order, with its checksum", async () => {
    const files = readMigrations()
    expect(files[0]?.name).toMatch(/^0001_/)
    const recorded = await rows<{ name: string; checksum: string }>(
      "SELECT name, checksum FROM schema_migrations FINAL ORDER BY name"
    )
    expect(recorded).toEqual(files.map((f) => ({ name: f.name, checksum: f.checksum })))
    const again = await applyMigrations(ch.client)
    expect(again.applied).toEqual([])
    expect(again.skipped).toEqual(files.map((f) => f.name))
  })

  it("splits statements at a semicolon ending a line, ignoring comment-only chunks", () => {
    const text =
      "-- header;\nCREATE TABLE a (x String DEFAULT ';') ENGINE = Memory;\n\nCREATE TABLE b\n(y UInt8) ENGINE = Memory;  \n-- trailing\n"
    expect(splitStatements(text)).toEqual([
      "CREATE TABLE a (x String DEFAULT ';') ENGINE = Memory",
      "CREATE TABLE b\n(y UInt8) ENGINE = Memory"
    ])
  })

  it("refuses a migration file edited after it was applied, naming it", async () => {
    const dir = mkdtempSync(join(tmpdir(), "infra-migrations-"))
    const other = await makeClickHouseClient({ ...ch.config, database: `${ch.database}_edit` })
    try {
      writeFileSync(
        join(dir, "0001_create_schema_migrations.sql"),
        readFileSync(join(import.meta.dirname, "../../sql/0001_create_schema_migrations.sql"))
      )
      writeFileSync(
        join(dir, "0002_create_things.sql"),
        "CREATE TABLE IF NOT EXISTS things (id UInt64) ENGINE = MergeTree ORDER BY id;\n"
      )
      const first = await applyMigrations(other.client, dir)
      expect(first.applied).toEqual(["0001_create_schema_migrations.sql", "0002_create_things.sql"])
      writeFileSync(
        join(dir, "0002_create_things.sql"),
        "CREATE TABLE IF NOT EXISTS things (id UInt32) ENGINE = MergeTree ORDER BY id;\n"
      )
      writeFileSync(
        join(dir, "0003_create_more.sql"),
        "CREATE TABLE IF NOT EXISTS more (id UInt64) ENGINE = MergeTree ORDER BY id;\n"
      )
      const error = await applyMigrations(other.client, dir).then(
        () => undefined,
        (e: unknown) => e
      )
      expect(error).toBeInstanceOf(ClickHouseError)
      expect((error as ClickHouseError).reason).toBe("MigrationFailed")
      expect((error as ClickHouseError).message).toContain("0002_create_things.sql changed after it was applied")
      const tables = await (
        await other.client.query({
          query: "SELECT name FROM system.tables WHERE database = currentDatabase() ORDER BY name",
          format: "JSONEachRow"
        })
      ).json<{ name: string }>()
      expect(tables.map((t) => t.name)).toEqual(["schema_migrations", "things"])
    } finally {
      await other.client.command({ query: `DROP DATABASE IF EXISTS ${ch.database}_edit` })
      await other.client.close()
      rmSync(dir, { recursive: true, force: true })
    }
  })
})

describe("embedded engine", () => {
  it("refuses a second data directory in the same process, naming CLICKHOUSE_DATA_DIR", async () => {
    if (ch.backend !== "chdb") {
      expect(ch.backend).toBe("server")
      return
    }
    const elsewhere = join(tmpdir(), "infra-second-engine")
    const error = await makeClickHouseClient({ ...ch.config, dataDir: elsewhere }).then(
      () => undefined,
      (e: unknown) => e
    )
    expect(error).toBeInstanceOf(ClickHouseError)
    expect((error as ClickHouseError).reason).toBe("DataDirUnavailable")
    expect((error as ClickHouseError).message).toContain(`CLICKHOUSE_DATA_DIR=${elsewhere}`)
    // The engine already open keeps working.
    expect(await rows<{ one: number }>("SELECT 1 AS one")).toEqual([{ one: 1 }])
  })
})

describe("JSON types toncenter uses", () => {
  beforeAll(async () => {
    await ch.client.command({
      query: `CREATE TABLE IF NOT EXISTS typed_rows (
        hash FixedString(44),
        lt UInt64,
        shard Int64,
        workchain Int32,
        seqno UInt32,
        utime UInt32,
        fee UInt64,
        balance UInt128,
        big UInt256,
        ratio Float64,
        at DateTime,
        account String
      ) ENGINE = MergeTree ORDER BY (workchain, shard, seqno, lt)`
    })
  })

  it("returns UInt64 max, negative Int64 shards, 128/256-bit values as strings; 32-bit as numbers", async () => {
    const row = {
      hash: "RzoRGcEyx5Ia5tEKUWlCpFbg8B0scpuXSyNXf9a4Nsk=",
      lt: "18446744073709551615",
      shard: "-9223372036854775808",
      workchain: -1,
      seqno: 4294967295,
      utime: 1724744427,
      fee: "9007199254740993",
      balance: "340282366920938463463374607431768211455",
      big: "115792089237316195423570985008687907853269984665640564039457584007913129639935",
      ratio: 0.5,
      at: "2024-08-27 07:40:27",
      account: "-1:3333333333333333333333333333333333333333333333333333333333333333"
    }
    await ch.client.insert({ table: "typed_rows", values: [row], format: "JSONEachRow" })
    const text = await (
      await ch.client.query({ query: "SELECT * FROM typed_rows WHERE seqno = 4294967295", format: "JSONEachRow" })
    ).text()
    expect(text.trim()).toBe(JSON.stringify(row))
  })

  it("round-trips a real masterchain block's v2 transaction ids exactly", async () => {
    const fixture = JSON.parse(
      readFileSync(
        join(realFixturesDir, "v2/blockpi-official-docs__v2_getBlockTransactionsExt__mc-39984096.json"),
        "utf8"
      )
    ) as {
      result: {
        id: { workchain: number; shard: string; seqno: number }
        transactions: Array<{
          utime: number
          account: string
          fee: string
          transaction_id: { lt: string; hash: string }
        }>
      }
    }
    const { id, transactions } = fixture.result
    expect(transactions.length).toBeGreaterThan(0)
    const input = transactions.map((t) => ({
      hash: t.transaction_id.hash,
      lt: t.transaction_id.lt,
      shard: id.shard,
      workchain: id.workchain,
      seqno: id.seqno,
      utime: t.utime,
      fee: t.fee,
      balance: "0",
      big: "0",
      ratio: 0,
      at: new Date(t.utime * 1000).toISOString().slice(0, 19).replace("T", " "),
      account: t.account
    }))
    await ch.client.insert({ table: "typed_rows", values: input, format: "JSONEachRow" })
    const back = await rows<{ hash: string; lt: string; shard: string; seqno: number; account: string }>(
      "SELECT hash, lt, shard, seqno, account FROM typed_rows WHERE seqno = {seqno:UInt32} ORDER BY lt, hash",
      { seqno: id.seqno }
    )
    const expected = input
      .map(({ hash, lt, shard, seqno, account }) => ({ hash, lt, shard, seqno, account }))
      .sort((a, b) =>
        BigInt(a.lt) === BigInt(b.lt) ? (a.hash < b.hash ? -1 : 1) : BigInt(a.lt) < BigInt(b.lt) ? -1 : 1
      )
    expect(back).toEqual(expected)
    expect(typeof back[0]?.lt).toBe("string")
    expect(back[0]?.shard).toBe("-9223372036854775808")
  })

  it("binds 64-bit query parameters without losing precision", async () => {
    const [r] = await rows<{ n: string; m: string; s: string }>(
      "SELECT {n:UInt64} AS n, {m:Int64} AS m, {s:String} AS s",
      { n: "18446744073709551615", m: "-9223372036854775807", s: "it's" }
    )
    expect(r).toEqual({ n: "18446744073709551615", m: "-9223372036854775807", s: "it's" })
  })
})
