// The store's key sets (src/store/sql.ts `strKeys`): `IN` over the split of one string literal finds exactly the rows
// the array literal finds, on the kinds of tables the reads use (key-value, sorted, FixedString and String keys), for
// keys with quotes and backslashes, and for absent keys; and a key-value table is still read by point lookups.
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { str, strArray, strKeys } from "../../src/store/sql.js"
import { testClickHouse, type TestClickHouse } from "../support/integration.js"

describe("key sets as one split literal", () => {
  let ch: TestClickHouse
  const keys = Array.from({ length: 600 }, (_, i) => `k${i}:${"ABCDEF0123456789".repeat(2)}=${i % 7 === 0 ? "'\\\\" : "+/"}`)
  const rows = async (sql: string): Promise<Array<string>> =>
    (await (await ch.client.query({ query: sql, format: "JSONEachRow" })).json<{ k: string }>()).map((r) => r.k).sort()

  beforeAll(async () => {
    ch = await testClickHouse("key_sets", { migrate: false })
    await ch.client.command({ query: "CREATE TABLE kv (k String, v UInt32) ENGINE = EmbeddedRocksDB PRIMARY KEY k" })
    await ch.client.command({ query: "CREATE TABLE sorted (k String, v UInt32) ENGINE = MergeTree ORDER BY k" })
    await ch.client.command({ query: "CREATE TABLE fixed (k FixedString(44), v UInt32) ENGINE = MergeTree ORDER BY k" })
    // every other key stored, so a set holds present and absent keys
    const values = keys.flatMap((k, i) => (i % 2 === 0 ? [`(${str(k)}, ${i})`] : [])).join(",")
    for (const t of ["kv", "sorted", "fixed"]) await ch.client.command({ query: `INSERT INTO ${t} VALUES ${values}` })
  }, 120_000)
  afterAll(async () => ch?.close())

  it("finds the same rows as the array literal, present and absent keys, quotes and backslashes", async () => {
    for (const t of ["kv", "sorted", "fixed"]) {
      const asked = keys.filter((_, i) => i % 3 !== 1)
      const byArray = await rows(`SELECT toString(k) AS k FROM ${t} WHERE k IN ${strArray(asked)}`)
      const bySplit = await rows(`SELECT toString(k) AS k FROM ${t} WHERE k IN ${strKeys(asked)}`)
      expect(strKeys(asked).startsWith("splitByChar(")).toBe(true)
      expect(byArray.length).toBeGreaterThan(100)
      expect(bySplit).toEqual(byArray)
    }
  })

  it("reads a key-value table by point lookups, not a scan", async () => {
    // the engine refuses a statement reading more rows than the bound: the table's 300 rows for a scan
    const bounded = (where: string) => rows(`SELECT k FROM kv WHERE ${where} SETTINGS max_rows_to_read = 20`)
    expect(await bounded(`k IN ${strKeys(keys.slice(0, 20))}`)).toHaveLength(10)
    await expect(bounded("v < 20")).rejects.toThrow(/rows/i)
  })
})
