// The tables the sink inserts as RowBinary (src/sink/encode.ts) store exactly what the same rows store through the
// text formats they went as before (JSONCompactEachRow, TabSeparated), every table of the database compared whole,
// the views' tables included: on the real fixture bundle and synthetic ones, on a generated chain, and on the same
// rows with unusual values in every column of those tables (empty strings, tabs, line breaks, backslashes, quotes,
// non-ASCII text, long texts, nulls, each integer type's extremes, every enum value). And the column types the binary
// encoders write are the migrated schema's, column for column.
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { flattenBundles, type TableRows } from "../../src/flatten/index.js"
import { BINARY_COLUMN_TYPES } from "../../src/sink/columnTypes.js"
import { encoderFor, textEncoderFor } from "../../src/sink/encode.js"
import { testClickHouse, type TestClickHouse } from "../support/integration.js"
import { insertEncodedTables } from "../support/storeRows.js"
import { chainBundles } from "../support/pipeline/chainBundles.js"
import { realBundle, syntheticBundle } from "../unit/store/records.js"

let viaText: TestClickHouse
let viaBinary: TestClickHouse

/** Columns left as they are in the unusual rows: the rows' keys, so that every unusual row stays a row of its own. */
const KEEP = new Set([
  "hash",
  "tx_hash",
  "lt",
  "tx_lt",
  "mc_block_seqno",
  "block",
  "msg_index",
  "direction",
  "asc_rank"
])
const AWKWARD = [
  "",
  "a\tb\nc\rd\\e'f\"g",
  "\\",
  "\\t\\n",
  "é€😀\u2028",
  '[1,\'x\']\t{"k":"v"}',
  "x".repeat(127),
  "y".repeat(128),
  "line\tcell\n".repeat(20_000)
]
const INTEGER_MAX: Record<string, string> = {
  UInt8: "255",
  UInt16: "65535",
  UInt32: "4294967295",
  UInt64: "18446744073709551615",
  UInt128: "340282366920938463463374607431768211455",
  UInt256: "115792089237316195423570985008687907853269984665640564039457584007913129639935",
  Int16: "-32768",
  Int32: "-2147483648",
  Int64: "-9223372036854775808"
}

/** A value of `type` for the `k`-th unusual row: the type's extremes, unusual strings, nulls every third row. */
const unusual = (type: string, k: number): unknown => {
  if (type.startsWith("Nullable(")) return k % 3 === 2 ? null : unusual(type.slice(9, -1), k)
  if (type.startsWith("LowCardinality(")) return unusual(type.slice(15, -1), k)
  if (type === "String") return AWKWARD[k % AWKWARD.length]
  if (type.startsWith("FixedString(")) return ["", "ab\t\n", "é".repeat(22), "z".repeat(44)][k % 4]
  if (type === "Bool") return k % 2 === 0
  if (type.startsWith("Enum8(")) {
    const names = [...type.matchAll(/'([^']*)'/g)].map((m) => m[1]!)
    return names[k % names.length]
  }
  if (type.startsWith("Array("))
    return k % 2 === 0 ? [] : [unusual(type.slice(6, -1), k), unusual(type.slice(6, -1), k + 1)]
  if (type === "Map(UInt32, UInt256)") return k % 2 === 0 ? {} : { "0": "0", "4294967295": INTEGER_MAX.UInt256 }
  const max = INTEGER_MAX[type]
  if (max === undefined) throw new Error(`no unusual value for ${type}`)
  return k % 2 === 0 ? max : type === "UInt32" || type === "Int32" ? 0 : "0"
}

const unusualRows = (rows: TableRows): TableRows => {
  const out = { ...rows }
  for (const [table, types] of Object.entries(BINARY_COLUMN_TYPES)) {
    out[table as keyof TableRows] = (rows[table as keyof TableRows] as unknown as Array<Record<string, unknown>>).map(
      (r, k) => Object.fromEntries(Object.entries(r).map(([c, v]) => [c, KEEP.has(c) ? v : unusual(types[c]!, k)]))
    ) as never
  }
  return out
}

/**
 * Every table of the database (views and the migrations' own aside), each row as JSON, aggregate states as their finalized values, the
 * statements' ids and times left out.
 */
const dumpAll = async (ch: TestClickHouse): Promise<Record<string, string>> => {
  const columns = await (
    await ch.client.query({
      query: `SELECT table, name, type FROM system.columns WHERE database = currentDatabase()
        AND table IN (SELECT name FROM system.tables WHERE database = currentDatabase() AND engine NOT LIKE '%View' AND name != 'schema_migrations')
        ORDER BY table, position`,
      format: "JSONEachRow"
    })
  ).json<{ table: string; name: string; type: string }>()
  const select = new Map<string, Array<string>>()
  for (const c of columns) {
    // each statement's own id and time (the analytics views count statements by them): differ between any two inserts
    if (c.name === "insert_id" || c.name === "inserted_at") continue
    const list = select.get(c.table) ?? []
    list.push(c.type.startsWith("AggregateFunction(") ? `finalizeAggregation(${c.name}) AS ${c.name}` : c.name)
    select.set(c.table, list)
  }
  const out: Record<string, string> = {}
  for (const [table, list] of select) {
    const query = `SELECT ${list.join(", ")} FROM ${table} ORDER BY ALL`
    out[table] = await (await ch.client.query({ query, format: "JSONEachRow" })).text()
  }
  return out
}

const base = flattenBundles([realBundle(), ...[1000, 1001, 1002].map(syntheticBundle)])
const generated = flattenBundles(chainBundles(42, 3, 20))

beforeAll(async () => {
  viaText = await testClickHouse("sink text")
  viaBinary = await testClickHouse("sink binary")
  for (const rows of [base, generated, unusualRows(generated)]) {
    await insertEncodedTables(viaText, rows, textEncoderFor)
    await insertEncodedTables(viaBinary, rows, encoderFor)
  }
}, 180_000)

afterAll(async () => {
  await viaText?.close()
  await viaBinary?.close()
})

describe("RowBinary inserts", () => {
  it("store what the text formats store, in every table of the database", async () => {
    const expected = await dumpAll(viaText)
    const actual = await dumpAll(viaBinary)
    expect(Object.keys(actual)).toEqual(Object.keys(expected))
    for (const table of Object.keys(BINARY_COLUMN_TYPES))
      expect(expected[table]!.split("\n").length, table).toBeGreaterThan(3)
    for (const table of Object.keys(expected))
      expect({ table, rows: actual[table] }).toEqual({ table, rows: expected[table] })
  })

  it("write the migrated schema's column types", async () => {
    const columns = await (
      await viaBinary.client.query({
        query: `SELECT table, name, type FROM system.columns WHERE database = currentDatabase() AND table IN ({t:Array(String)})
          AND default_kind NOT IN ('MATERIALIZED', 'ALIAS') ORDER BY table, position`,
        query_params: { t: Object.keys(BINARY_COLUMN_TYPES) },
        format: "JSONEachRow"
      })
    ).json<{ table: string; name: string; type: string }>()
    const schema: Record<string, Record<string, string>> = {}
    for (const c of columns) (schema[c.table] ??= {})[c.name] = c.type
    expect(schema).toEqual(BINARY_COLUMN_TYPES)
  })
})
