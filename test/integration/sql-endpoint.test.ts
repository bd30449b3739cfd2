/**
 * The read-only SQL endpoint over the real embedded engine, driven by the clients users run: @clickhouse/client
 * (as an analytics user and as another exporter process with CLICKHOUSE_URL) and plain HTTP as curl sends it.
 * The engine is this file's own chdb on a temporary directory, whatever the run's shared infrastructure is.
 */
import { ClickHouseLogLevel, createClient as createLoudClient, type ClickHouseClient } from "@clickhouse/client"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { makeClickHouseClient, type ClickHouseHandle } from "../../src/clickhouse/ClickHouse.js"
import { applyMigrations } from "../../src/clickhouse/migrations.js"
import { startSqlEndpoint, type RunningSqlEndpoint } from "../../src/clickhouse/SqlEndpoint.js"
import { flattenBundles, INSERT_ORDER } from "../../src/flatten/index.js"
import { BINARY_COLUMN_TYPES } from "../../src/sink/columnTypes.js"
import { encoderFor, textEncoderFor } from "../../src/sink/encode.js"
import { ClickHouseTxStore } from "../../src/store/Store.js"
import { insertEncodedTables, insertTables } from "../support/storeRows.js"
import { realBlockBundles } from "../unit/store/realBlocks.js"

// Refusals are the point of several cases here; the client would log each one as an error.
const createClient = (o: Parameters<typeof createLoudClient>[0]) => createLoudClient({ ...o, log: { level: ClickHouseLogLevel.OFF } })

const database = "sql_endpoint"
const { bundles } = realBlockBundles()
const txCount = bundles.reduce((n, b) => n + b.transactions.length, 0)

let dir: string
let owner: ClickHouseHandle
let endpoint: RunningSqlEndpoint
let locked: RunningSqlEndpoint
let client: ClickHouseClient

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "sql-endpoint-"))
  owner = await makeClickHouseClient({ url: undefined, user: "default", password: "", database, dataDir: dir })
  await applyMigrations(owner.client)
  const batch = flattenBundles(bundles)
  await insertTables(owner.client, batch)
  const common = { engine: owner.embedded!, database, host: "127.0.0.1", port: 0, closeDeadlineMs: 500 }
  endpoint = await startSqlEndpoint({ ...common, user: "", password: "" })
  locked = await startSqlEndpoint({ ...common, user: "analyst", password: "s3cret" })
  client = createClient({ url: endpoint.url })
})

afterAll(async () => {
  await client?.close()
  await endpoint?.close()
  await locked?.close()
  await owner?.client.close()
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true })
})

describe("SQL endpoint with @clickhouse/client", () => {
  it("counts what the store holds", async () => {
    expect(txCount).toBeGreaterThan(0)
    const rs = await client.query({ query: "SELECT count() AS n FROM transactions", format: "JSONEachRow" })
    const [row] = await rs.json<{ n: string | number }>()
    expect(Number(row!.n)).toBe(txCount)
    const direct = await owner.client.query({ query: "SELECT count() AS n FROM transactions", format: "JSONEachRow" })
    expect(Number((await direct.json<{ n: string }>())[0]!.n)).toBe(txCount)
  })

  it("refuses writes and DDL with ClickHouse's READONLY error", async () => {
    await expect(client.command({ query: "INSERT INTO transactions SELECT * FROM transactions LIMIT 1" })).rejects.toMatchObject({
      code: "164",
      type: "READONLY"
    })
    await expect(
      client.insert({ table: "mc_blocks_done", values: [{ mc_seqno: 1, block_count: 1, tx_count: 1 }], format: "JSONEachRow" })
    ).rejects.toMatchObject({ code: "164" })
    await expect(client.command({ query: "DROP TABLE transactions" })).rejects.toMatchObject({ code: "164" })
    await expect(client.query({ query: "SELECT 1; DROP TABLE transactions" })).rejects.toMatchObject({ code: "62" })
    const after = await client.query({ query: "SELECT count() AS n FROM transactions", format: "JSONEachRow" })
    expect(Number((await after.json<{ n: string }>())[0]!.n)).toBe(txCount)
  })

  it("speaks JSONCompactEachRow, settings in the URL, query_id and bound parameters", async () => {
    const quoted = await client.query({
      query: "SELECT toUInt64(count()) AS n FROM transactions",
      format: "JSONCompactEachRow",
      query_id: "count-1",
      clickhouse_settings: { output_format_json_quote_64bit_integers: 1 }
    })
    expect(quoted.query_id).toBe("count-1")
    expect(await quoted.json()).toEqual([[String(txCount)]])
    const plain = await client.query({
      query: "SELECT toUInt64(count()) AS n FROM transactions",
      format: "JSONCompactEachRow",
      clickhouse_settings: { output_format_json_quote_64bit_integers: 0 }
    })
    expect(await plain.json()).toEqual([[txCount]])
    const seqno = bundles[0]!.mc_seqno
    const bound = await client.query({
      query: "SELECT count() AS n FROM transactions WHERE mc_block_seqno = {seqno:UInt32}",
      query_params: { seqno },
      format: "JSONEachRow"
    })
    expect(Number((await bound.json<{ n: string }>())[0]!.n)).toBe(bundles[0]!.transactions.length)
  })

  it("reports engine errors with their code and type", async () => {
    await expect(client.query({ query: "SELECT * FROM no_such_table" })).rejects.toMatchObject({
      code: "60",
      type: "UNKNOWN_TABLE"
    })
    await expect(client.query({ query: "SELECT * FROM url('http://127.0.0.1:1/', 'CSV')" })).rejects.toMatchObject({
      code: "164"
    })
    expect((await client.ping()).success).toBe(true)
  })

  it("serves another exporter process: the project's own client and store over CLICKHOUSE_URL", async () => {
    const remote = await makeClickHouseClient({ url: endpoint.url.replace(/\/$/, ""), user: "default", password: "", database, dataDir: "" })
    try {
      const store = new ClickHouseTxStore(remote.client)
      const b = bundles[0]!
      const got = await store.transactionsByMcSeqno(b.mc_seqno, { limit: 1000, offset: 0, sort: "asc" })
      const local = await new ClickHouseTxStore(owner.client).transactionsByMcSeqno(b.mc_seqno, { limit: 1000, offset: 0, sort: "asc" })
      expect(got).toHaveLength(b.transactions.length)
      expect(got).toStrictEqual(local)
    } finally {
      await remote.client.close()
    }
  })

  it("asks for the configured credentials when they are set", async () => {
    const wrong = createClient({ url: locked.url, username: "analyst", password: "nope" })
    const right = createClient({ url: locked.url, username: "analyst", password: "s3cret" })
    try {
      await expect(wrong.query({ query: "SELECT 1" })).rejects.toMatchObject({ code: "516" })
      const rs = await right.query({ query: "SELECT 1 AS one", format: "JSONEachRow" })
      expect(await rs.json()).toEqual([{ one: 1 }])
    } finally {
      await wrong.close()
      await right.close()
    }
    const basic = await fetch(`${locked.url}?query=SELECT%201`, {
      headers: { authorization: `Basic ${Buffer.from("analyst:s3cret").toString("base64")}` }
    })
    expect(await basic.text()).toBe("1\n")
  })
})

describe("SQL endpoint over plain HTTP (curl)", () => {
  it("answers GET /?query= and a POST body in TabSeparated unless told otherwise", async () => {
    const get = await fetch(`${endpoint.url}?query=${encodeURIComponent("SELECT count() FROM transactions")}`)
    expect(get.status).toBe(200)
    expect(get.headers.get("x-clickhouse-format")).toBe("TabSeparated")
    expect(JSON.parse(get.headers.get("x-clickhouse-summary")!)).toMatchObject({ written_rows: "0" })
    expect(await get.text()).toBe(`${txCount}\n`)
    const post = await fetch(endpoint.url, { method: "POST", body: "SELECT count() FROM transactions FORMAT JSONEachRow" })
    expect(post.headers.get("x-clickhouse-format")).toBe("JSONEachRow")
    expect(Number(JSON.parse(await post.text())["count()"])).toBe(txCount)
    const fmt = await fetch(`${endpoint.url}?default_format=CSVWithNames`, { method: "POST", body: "SELECT 1 AS a" })
    expect(await fmt.text()).toBe('"a"\n1\n')
  })

  it("answers /ping, and errors with status, code header and ClickHouse's text", async () => {
    expect(await (await fetch(`${endpoint.url}ping`)).text()).toBe("Ok.\n")
    const bad = await fetch(endpoint.url, { method: "POST", body: "INSERT INTO transactions VALUES (1)" })
    expect(bad.status).toBe(403)
    expect(bad.headers.get("x-clickhouse-exception-code")).toBe("164")
    expect(await bad.text()).toMatch(/^Code: 164\. DB::Exception: .*\(READONLY\) \(version [\d.]+\)\n$/)
    const missing = await fetch(endpoint.url, { method: "POST", body: "SELECT nope FROM transactions" })
    expect(missing.status).toBe(404)
    expect(missing.headers.get("x-clickhouse-exception-code")).toBe("47")
    const syntax = await fetch(endpoint.url, { method: "POST", body: "SELEC 1" })
    expect(syntax.status).toBe(403)
    const empty = await fetch(endpoint.url, { method: "POST", body: "" })
    expect(empty.status).toBe(400)
    expect(empty.headers.get("x-clickhouse-exception-code")).toBe("62")
  })

  it("leaves the writer's session alone: per-query settings do not stick", async () => {
    await fetch(`${endpoint.url}?max_threads=3`, { method: "POST", body: "SELECT 1" })
    const rs = await owner.client.query({ query: "SELECT getSetting('max_threads') AS m, getSetting('readonly') AS r", format: "JSONEachRow" })
    const [row] = await rs.json<{ m: string | number; r: string | number }>()
    expect(String(row!.m)).not.toBe("3")
    expect(Number(row!.r)).toBe(0)
    await owner.client.command({ query: "CREATE TABLE IF NOT EXISTS writable (x UInt8) ENGINE = Memory" })
    await owner.client.command({ query: "DROP TABLE writable" })
  })
})

const compact = (rows: ReadonlyArray<object>, columns: ReadonlyArray<string>): Buffer =>
  Buffer.from(rows.map((r) => JSON.stringify(columns.map((c) => (r as Record<string, unknown>)[c]))).join("\n") + "\n")

/** A writable endpoint over this file's engine, as `npm run clickhouse:serve` serves one. */
const startWritable = () =>
  startSqlEndpoint({ engine: owner.embedded!, database, host: "127.0.0.1", port: 0, user: "", password: "", closeDeadlineMs: 500, writable: true })

describe("SQL endpoint in writable mode: the store of several processes", () => {
  it("migrates, inserts, deletes and reads through the project's own server client", async () => {
    const writable = await startWritable()
    const remote = await makeClickHouseClient({ url: writable.url, user: "default", password: "", database: "remote_store", dataDir: "" })
    try {
      expect(remote.backend).toBe("server")
      const report = await applyMigrations(remote.client)
      expect(report.applied.length).toBeGreaterThan(5)
      expect((await applyMigrations(remote.client)).applied).toEqual([])

      // The consumer's encoded inserts: rows in the body, the statement and its settings in the URL.
      const batch = flattenBundles(bundles)
      for (const table of INSERT_ORDER) {
        if (batch[table].length === 0) continue
        const columns = Object.keys(batch[table][0]!)
        // As the sink hands a body over: chunks (here cut every 1,000 bytes, lines and characters straddling them).
        const whole = compact(batch[table], columns)
        const body: Array<Buffer> = []
        for (let i = 0; i < whole.length; i += 1000) body.push(whole.subarray(i, i + 1000))
        await remote.insertEncoded({
          table,
          columns,
          format: "JSONCompactEachRow",
          body,
          settings: { insert_deduplication_token: `t-${table}` }
        })
      }
      const count = async (sql: string) =>
        Number((await (await remote.client.query({ query: sql, format: "JSONEachRow" })).json<{ n: string }>())[0]!.n)
      expect(await count("SELECT count() AS n FROM transactions")).toBe(txCount)
      // The API reads through the same server: identical rows to the owning process's own reads.
      const seqno = bundles[0]!.mc_seqno
      const same = "SELECT hash, lt, trace_id FROM transactions WHERE mc_block_seqno = {s:UInt32} ORDER BY lt, hash"
      const a = await (await remote.client.query({ query: same, query_params: { s: seqno }, format: "JSONEachRow" })).json()
      const b = await (
        await owner.client.query({ query: same.replace("FROM transactions", "FROM remote_store.transactions"), query_params: { s: seqno }, format: "JSONEachRow" })
      ).json()
      expect(a.length).toBeGreaterThan(0)
      expect(a).toEqual(b)

      // A mutation with bound parameters and a per-statement setting, as the consumer's cleanup sends it.
      await remote.client.command({
        query: "DELETE FROM transactions WHERE mc_block_seqno IN {l:Array(UInt32)}",
        query_params: { l: [seqno] },
        clickhouse_settings: { lightweight_deletes_sync: "2" }
      })
      expect(await count(`SELECT count() AS n FROM transactions WHERE mc_block_seqno = ${seqno}`)).toBe(0)

      // GET stays read-only, and outside-reaching functions stay refused on POST.
      const get = await fetch(`${writable.url}?query=${encodeURIComponent("DROP TABLE remote_store.transactions")}`)
      expect(get.status).toBe(403)
      await expect(remote.client.command({ query: "INSERT INTO transactions SELECT * FROM url('http://127.0.0.1:1/', 'CSV')" })).rejects.toThrow(/reaches outside/)
    } finally {
      await remote.client.close()
      await writable.close()
    }
  })
})

describe("SQL endpoint in writable mode: the sink's RowBinary bodies", () => {
  it("stores the rows RowBinary bodies carry exactly as the same rows sent as text", async () => {
    const writable = await startWritable()
    const open = (db: string) => makeClickHouseClient({ url: writable.url, user: "default", password: "", database: db, dataDir: "" })
    const viaText = await open("served_text")
    const viaBinary = await open("served_binary")
    try {
      await applyMigrations(viaText.client)
      await applyMigrations(viaBinary.client)
      const batch = flattenBundles(bundles)
      await insertEncodedTables(viaText, batch, textEncoderFor)
      await insertEncodedTables(viaBinary, batch, encoderFor)

      const binaryTables = Object.keys(BINARY_COLUMN_TYPES)
      expect(binaryTables.map((t) => encoderFor(t).format)).toEqual(binaryTables.map(() => "RowBinary"))
      const dump = async (db: string, table: string) => {
        const cols = await (
          await owner.client.query({
            query: `SELECT name FROM system.columns WHERE database = {db:String} AND table = {t:String}
              AND name NOT IN ('insert_id', 'inserted_at') ORDER BY position`,
            query_params: { db, t: table },
            format: "JSONEachRow"
          })
        ).json<{ name: string }>()
        const list = cols.map((c) => c.name).join(", ")
        return (await owner.client.query({ query: `SELECT ${list} FROM ${db}.${table} ORDER BY ALL`, format: "JSONEachRow" })).text()
      }
      for (const table of binaryTables) {
        const expected = await dump("served_text", table)
        expect(expected.split("\n").length, table).toBeGreaterThan(1)
        expect({ table, rows: await dump("served_binary", table) }).toEqual({ table, rows: expected })
      }
    } finally {
      await viaText.client.close()
      await viaBinary.client.close()
      await writable.close()
    }
  })
})
