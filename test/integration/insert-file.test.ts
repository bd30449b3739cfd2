// Large encoded inserts read by the embedded engine from a spool file (src/clickhouse/fileInsert.ts) store exactly
// what the same rows store through chdb's raw insert, table by table, on a generated chain with real transactions;
// they fire the analytics views once per statement, take the statement's settings as the raw insert does and leave
// no spool file behind, whether the statement succeeds or fails.
import { readdirSync } from "node:fs"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { FILE_INSERT_BYTES, spoolDir } from "../../src/clickhouse/fileInsert.js"
import { INSERT_ORDER, type TableName, visitBundleRows } from "../../src/flatten/bundle.js"
import { textEncoderFor } from "../../src/sink/encode.js"
import type { MasterchainBundle } from "../../src/ton/record.js"
import { testClickHouse, type TestClickHouse } from "../support/integration.js"
import { chainBundles } from "../support/pipeline/chainBundles.js"

let viaFile: TestClickHouse
let viaRaw: TestClickHouse
/** Each table's rows of the whole chain, as the encoders' lines (one per row). */
const lines = new Map<TableName, { columns: ReadonlyArray<string>; format: "JSONCompactEachRow" | "TabSeparated"; rows: Array<Buffer> }>()
const filed = new Set<TableName>()

const bundles = (): Array<MasterchainBundle> => chainBundles(11, 10, 30)

const splitLines = (body: Buffer): Array<Buffer> => {
  const out: Array<Buffer> = []
  for (let at = 0; at < body.length; ) {
    const end = body.indexOf(0x0a, at)
    out.push(body.subarray(at, end + 1))
    at = end + 1
  }
  return out
}

const dump = async (ch: TestClickHouse, table: string): Promise<string> =>
  (await ch.client.query({ query: `SELECT * FROM ${table} ORDER BY ALL`, format: "JSONEachRow" })).text()

const spoolFiles = (ch: TestClickHouse): Array<string> => readdirSync(spoolDir(ch.location))

beforeAll(async () => {
  viaFile = await testClickHouse("insert file")
  viaRaw = await testClickHouse("insert raw")
  const encoders = new Map(INSERT_ORDER.map((t) => [t, textEncoderFor(t)]))
  visitBundleRows(bundles(), (table, row) => encoders.get(table)!.add(row), undefined, { pageKv: true })
  for (const table of INSERT_ORDER) {
    const encoder = encoders.get(table)!
    if (encoder.rows === 0) continue
    // The body as the sink hands it over: the encoder's chunks, never joined on the way to the file.
    const { columns, chunks, bytes } = encoder.finishChunks()
    const body = Buffer.concat(chunks)
    lines.set(table, { columns, format: encoder.format, rows: splitLines(body) })
    // One statement of the whole body: through the file when it is large enough.
    if (bytes >= FILE_INSERT_BYTES) filed.add(table)
    await viaFile.insertEncoded({ table, columns, format: encoder.format, body: chunks })
    // The same lines in statements under the bound: every one through chdb's raw insert.
    let chunk: Array<Buffer> = []
    let size = 0
    const flush = async () => {
      if (chunk.length > 0) await viaRaw.insertEncoded({ table, columns, format: encoder.format, body: Buffer.concat(chunk) })
      chunk = []
      size = 0
    }
    for (const line of lines.get(table)!.rows) {
      if (size + line.length >= FILE_INSERT_BYTES / 2) await flush()
      chunk.push(line)
      size += line.length
    }
    await flush()
  }
}, 300_000)

afterAll(async () => {
  await viaFile?.close()
  await viaRaw?.close()
})

describe("large encoded inserts through a spool file", () => {
  it("went through the file for the large tables (the page tables and the normalized ones of this chain)", () => {
    if (viaFile.backend === "server") return
    for (const t of ["v3_pages", "v2_pages", "transactions", "messages"] as const) expect(filed).toContain(t)
    expect(filed).not.toContain("mc_blocks_done")
  })

  it("store the same rows as the raw insert in every table", async () => {
    for (const table of INSERT_ORDER) {
      const expected = await dump(viaRaw, table)
      if (lines.has(table)) expect(expected.length).toBeGreaterThan(0)
      expect({ table, rows: await dump(viaFile, table) }).toEqual({ table, rows: expected })
    }
  })

  it("fire the analytics views once per statement", async () => {
    const inserts = (
      await (
        await viaFile.client.query({
          query: "SELECT uniqExact(insert_id) AS i, sum(transactions) AS n FROM analytics_tx_mc",
          format: "JSONEachRow"
        })
      ).json<{ i: string; n: string }>()
    )[0]
    expect(inserts).toEqual({ i: "1", n: String(lines.get("transactions")!.rows.length) })
  })

  it("give a repeated batch the meaning the raw insert gives it (no token deduplication here: sql/README.md)", async () => {
    const [file, raw] = [await testClickHouse("insert file again"), await testClickHouse("insert raw again")]
    try {
      const { columns, format, rows } = lines.get("transactions")!
      const body = Buffer.concat(rows)
      expect(body.length).toBeGreaterThanOrEqual(FILE_INSERT_BYTES)
      const half = rows.findIndex((_, k) => Buffer.concat(rows.slice(0, k)).length >= FILE_INSERT_BYTES / 2)
      const count = async (ch: TestClickHouse) =>
        Number(
          (await (await ch.client.query({ query: "SELECT count() AS n FROM transactions", format: "JSONEachRow" })).json<{ n: string }>())[0]!.n
        )
      const settings = { insert_deduplication_token: "batch-a" }
      for (let attempt = 0; attempt < 2; attempt++) {
        await file.insertEncoded({ table: "transactions", columns, format, body, settings })
        for (const part of [rows.slice(0, half), rows.slice(half)]) {
          await raw.insertEncoded({ table: "transactions", columns, format, body: Buffer.concat(part), settings })
        }
      }
      expect(await count(file)).toBe(await count(raw))
      expect(await count(file)).toBeGreaterThanOrEqual(rows.length)
    } finally {
      await file.close()
      await raw.close()
    }
  })

  it("pass the statement's settings to the engine", async () => {
    const { columns, format, rows } = lines.get("v3_pages")!
    await expect(
      viaFile.insertEncoded({ table: "v3_pages", columns, format, body: Buffer.concat(rows), settings: { no_such_setting: 1 } })
    ).rejects.toThrow(/no_such_setting/)
  })

  it("leave no spool file behind, after a statement that succeeded or failed", async () => {
    if (viaFile.backend === "server") return
    expect(spoolFiles(viaFile)).toEqual([])
    const { columns, format, rows } = lines.get("v2_pages")!
    const body = Buffer.concat(rows)
    await expect(
      viaFile.insertEncoded({ table: "v2_pages", columns: [...columns.slice(0, -1), "no_such_column"], format, body })
    ).rejects.toThrow(/no_such_column/)
    expect(spoolFiles(viaFile)).toEqual([])
  })
})
