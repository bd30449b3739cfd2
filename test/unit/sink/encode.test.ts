import { describe, expect, it } from "vitest"
import { flattenBundles, INSERT_ORDER, UnstorableRecordError, visitBundleRows } from "../../../src/flatten/index.js"
import { CompactRowEncoder, encoderFor, TsvRowEncoder } from "../../../src/sink/encode.js"
import { realBundle, syntheticBundle } from "../store/records.js"

const bundles = [realBundle(), ...[1000, 1001, 1002].map(syntheticBundle)]

const decode = (columns: ReadonlyArray<string>, body: Buffer) => {
  const text = body.toString("utf8")
  expect(text.endsWith("\n")).toBe(true)
  return text
    .slice(0, -1)
    .split("\n")
    .map((line) => Object.fromEntries((JSON.parse(line) as Array<unknown>).map((v, i) => [columns[i], v])))
}

describe("CompactRowEncoder", () => {
  it("encodes every table's rows as lines of the first row's columns that read back as the rows", () => {
    const rows = flattenBundles(bundles)
    for (const table of INSERT_ORDER) {
      const encoder = new CompactRowEncoder(table)
      for (const row of rows[table]) encoder.add(row)
      const { columns, body, rows: n } = encoder.finish()
      expect(n).toBe(rows[table].length)
      if (n === 0) {
        expect(body.length).toBe(0)
        continue
      }
      expect(columns).toEqual(Object.keys(rows[table][0]!))
      expect(decode(columns, body)).toEqual(JSON.parse(JSON.stringify(rows[table])))
    }
  })

  it("keeps the lines whole and in order across byte slices", () => {
    const encoder = new CompactRowEncoder("message_contents")
    const rows = Array.from({ length: 3000 }, (_, i) => ({ hash: `h${i}`, boc: "é".repeat(400 + (i % 7)) }))
    for (const row of rows) encoder.add(row)
    const { columns, body } = encoder.finish()
    expect(body.length).toBeGreaterThan(2 << 20)
    expect(decode(columns, body)).toEqual(rows)
    expect(encoder.finish().rows).toBe(0)
  })

  it("refuses a row that lacks a column instead of letting a default stand in", () => {
    const encoder = new CompactRowEncoder("mc_blocks_done")
    encoder.add({ mc_seqno: 1, block_count: 1, tx_count: 0 })
    expect(() => encoder.add({ mc_seqno: 2, block_count: undefined, tx_count: 0 })).toThrow(UnstorableRecordError)
  })
})

/** TabSeparated as ClickHouse reads it: fields split on raw tabs, escapes undone, Array(String) from its quoted text. */
const unescape = (s: string) => s.replace(/\\(.)/g, (_, c: string) => ({ t: "\t", n: "\n", r: "\r" })[c] ?? c)
const readArray = (s: string): Array<string> => {
  expect(s.startsWith("[") && s.endsWith("]")).toBe(true)
  const out: Array<string> = []
  const re = /'((?:[^'\\]|\\.)*)'/g
  for (const m of s.slice(1, -1).matchAll(re)) out.push(unescape(m[1]!))
  return out
}
const decodeTsv = (
  columns: ReadonlyArray<string>,
  body: Buffer,
  arrays: ReadonlySet<string>,
  numbers: ReadonlySet<string>
) => {
  const text = body.toString("utf8")
  expect(text.endsWith("\n")).toBe(true)
  return text
    .slice(0, -1)
    .split("\n")
    .map((line) => {
      const fields = line.split("\t")
      expect(fields.length).toBe(columns.length)
      return Object.fromEntries(
        fields.map((f, i) => {
          const c = columns[i]!
          return [c, arrays.has(c) ? readArray(f) : numbers.has(c) ? Number(f) : unescape(f)]
        })
      )
    })
}

describe("TsvRowEncoder", () => {
  it("encodes tx_pages rows as TabSeparated lines that read back as the rows", () => {
    const rows = flattenBundles(bundles).tx_pages
    const encoder = encoderFor("tx_pages")
    expect(encoder.format).toBe("TabSeparated")
    for (const row of rows) encoder.add(row)
    const { columns, body, rows: n } = encoder.finish()
    expect(n).toBe(rows.length)
    expect(columns).toEqual(Object.keys(rows[0]!))
    const numbers = new Set(
      Object.entries(rows[0]!)
        .filter(([, v]) => typeof v === "number")
        .map(([k]) => k)
    )
    expect(decodeTsv(columns, body, new Set(["book"]), numbers)).toEqual(JSON.parse(JSON.stringify(rows)))
  })

  it("escapes backslashes, tabs, line breaks and, inside arrays, quotes", () => {
    const encoder = new TsvRowEncoder("t")
    const row = { n: 7, s: "a\\b\tc\nd\re\"f'g", book: ["0:AB", "x'y\\z\t"] }
    encoder.add(row)
    const { columns, body } = encoder.finish()
    expect(body.toString("utf8")).toBe("7\ta\\\\b\\tc\\nd\\re\"f'g\t['0:AB','x\\'y\\\\z\\t']\n")
    expect(decodeTsv(columns, body, new Set(["book"]), new Set(["n"]))).toEqual([row])
  })

  it("refuses values TabSeparated could store differently (null, boolean, object)", () => {
    for (const v of [null, true, { a: 1 }, [1, "x"], [Number.NaN], [null]]) {
      const encoder = new TsvRowEncoder("t")
      expect(() => encoder.add({ a: "x", v })).toThrow(UnstorableRecordError)
    }
  })

  it("writes arrays of numbers as the engine reads them", () => {
    const encoder = new TsvRowEncoder("t")
    encoder.add({ n: 1, ranks: [3, 1, 2], none: [] })
    expect(encoder.finish().body.toString("utf8")).toBe("1\t[3,1,2]\t[]\n")
  })

  it("is the sink's encoder for the page tables only (tx_pages, v3_pages, v2_pages, mc_shards_kv)", () => {
    for (const table of INSERT_ORDER) {
      const pages = table === "tx_pages" || table === "v3_pages" || table === "v2_pages" || table === "mc_shards_kv"
      expect(encoderFor(table).format).toBe(pages ? "TabSeparated" : "JSONCompactEachRow")
    }
  })
})

describe("visitBundleRows", () => {
  it("hands over exactly the rows flattenBundles collects, table by table in order", () => {
    const seen = new Map<string, Array<unknown>>()
    visitBundleRows([...bundles, bundles[1]!], (table, row) => {
      if (!seen.has(table)) seen.set(table, [])
      seen.get(table)!.push(row)
    })
    const rows = flattenBundles(bundles)
    for (const table of INSERT_ORDER) expect(seen.get(table) ?? []).toEqual(rows[table])
  })
})
