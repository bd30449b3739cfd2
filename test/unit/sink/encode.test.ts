import { describe, expect, it } from "vitest"
import { flattenBundles, INSERT_ORDER, UnstorableRecordError, visitBundleRows } from "../../../src/flatten/index.js"
import {
  BinaryRowEncoder,
  CompactRowEncoder,
  encoderFor,
  textEncoderFor,
  TsvRowEncoder
} from "../../../src/sink/encode.js"
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

  it("is the sink's encoder for tx_pages and mc_shards_kv, the text encoder of v3_pages and v2_pages", () => {
    for (const table of INSERT_ORDER) {
      const tsv = table === "tx_pages" || table === "mc_shards_kv"
      if (tsv) expect(encoderFor(table).format).toBe("TabSeparated")
      const text = tsv || table === "v3_pages" || table === "v2_pages"
      expect(textEncoderFor(table).format).toBe(text ? "TabSeparated" : "JSONCompactEachRow")
    }
  })
})

describe("BinaryRowEncoder", () => {
  it("is the sink's encoder for the tables of the most insert bytes, and only for those", () => {
    const binary = ["transactions", "messages", "message_contents", "v3_pages", "v2_pages"]
    for (const table of INSERT_ORDER) {
      expect(encoderFor(table).format).toBe(binary.includes(table) ? "RowBinary" : textEncoderFor(table).format)
    }
  })

  it("writes each type's bytes as RowBinary lays them out", () => {
    const encoder = new BinaryRowEncoder("t", {
      a: "UInt32",
      b: "Int64",
      c: "Nullable(UInt128)",
      d: "FixedString(4)",
      e: "String",
      f: "Enum8('x' = 0, 'y' = 5)",
      g: "Array(UInt32)",
      h: "Map(UInt32, UInt256)",
      i: "LowCardinality(Nullable(String))",
      j: "Bool",
      k: "UInt16"
    })
    encoder.add({
      a: 4294967295,
      b: "-2",
      c: null,
      d: "ab",
      e: "é",
      f: "y",
      g: [1, 256],
      h: { "7": "1" },
      i: "q",
      j: true,
      k: null
    })
    encoder.add({
      a: "1",
      b: "-9223372036854775808",
      c: "340282366920938463463374607431768211455",
      d: "abcd",
      e: "",
      f: "x",
      g: [],
      h: {},
      i: null,
      j: false,
      k: 65535
    })
    const hex = encoder.finish().body.toString("hex")
    expect(hex).toBe(
      "ffffffff" +
        "feffffffffffffff" +
        "01" +
        "61620000" +
        "02c3a9" +
        "05" +
        "02" +
        "01000000" +
        "00010000" +
        "01" +
        "07000000" +
        "01" +
        "00".repeat(31) +
        "00" +
        "0171" +
        "01" +
        "0000" +
        "01000000" +
        "0000000000000080" +
        "00" +
        "ff".repeat(16) +
        "61626364" +
        "00" +
        "00" +
        "00" +
        "00" +
        "01" +
        "00" +
        "ffff"
    )
  })

  it("reads decimal strings of every length as integers", () => {
    const encoder = new BinaryRowEncoder("t", { a: "Int64" })
    for (const a of ["0", "-0", "007", "123456789012345", "1234567890123456", "-9007199254740993"]) encoder.add({ a })
    const body = encoder.finish().body
    expect([0, 1, 2, 3, 4, 5].map((i) => body.readBigInt64LE(i * 8))).toEqual([
      0n,
      0n,
      7n,
      123456789012345n,
      1234567890123456n,
      -9007199254740993n
    ])
  })

  it("writes string lengths of every size, across the one-byte and two-byte length boundaries and chunks", () => {
    const encoder = new BinaryRowEncoder("t", { s: "String" }, 300)
    const values = [0, 1, 42, 127, 128, 129, 300, 16383, 16384, 70000].flatMap((n) => ["x".repeat(n), "é".repeat(n)])
    for (const s of values) encoder.add({ s })
    const body = encoder.finish().body
    const read: Array<string> = []
    for (let p = 0; p < body.length;) {
      let n = 0
      let shift = 1
      for (;;) {
        const b = body[p++]!
        n += (b & 0x7f) * shift
        shift *= 128
        if (b < 0x80) break
      }
      read.push(body.toString("utf8", p, p + n))
      p += n
    }
    expect(read).toEqual(values)
  })

  it("writes a string larger than a chunk across chunks, characters of every UTF-8 width and lone surrogates whole", () => {
    // chunk sizes of every remainder by 4, so a character's bytes meet a chunk's end at each offset
    const parts = ["a", "é", "€", "😀", "\ud800", "\udfff", "z"]
    const long = Array.from({ length: 3000 }, (_, i) => parts[(i * 7 + (i >> 3)) % parts.length]).join("")
    expect(Buffer.byteLength(long, "utf8")).toBeGreaterThan(1000)
    for (const chunk of [300, 301, 302, 303]) {
      const encoder = new BinaryRowEncoder("t", { s: "String", n: "UInt8" }, chunk)
      encoder.add({ s: "head", n: 1 })
      encoder.add({ s: long, n: 2 })
      encoder.add({ s: "tail", n: 3 })
      const { chunks, bytes } = encoder.finishChunks()
      const body = Buffer.concat(chunks)
      expect(body.length).toBe(bytes)
      // no buffer larger than a chunk was taken for it
      expect(chunks.every((c) => c.buffer.byteLength === chunk)).toBe(true)
      const n = Buffer.byteLength(long, "utf8")
      const length: Array<number> = []
      for (let x = n; ; x = Math.floor(x / 128)) {
        length.push(x >= 128 ? (x % 128) | 0x80 : x)
        if (x < 128) break
      }
      expect(body.equals(Buffer.concat([Buffer.from([4]), Buffer.from("head"), Buffer.from([1]), Buffer.from(length), Buffer.from(long, "utf8"), Buffer.from([2, 4]), Buffer.from("tail"), Buffer.from([3])]))).toBe(true)
    }
  })

  it("refuses a value its column cannot hold, leaving nothing of the row behind", () => {
    const encoder = new BinaryRowEncoder("t", { a: "UInt8", b: "FixedString(2)", c: "Enum8('x' = 0)", d: "UInt64" })
    encoder.add({ a: 1, b: "ab", c: "x", d: "18446744073709551615" })
    const before = encoder.finish().body
    encoder.add({ a: 1, b: "ab", c: "x", d: "18446744073709551615" })
    for (const bad of [
      { a: 256 },
      { a: -1 },
      { b: "abc" },
      { c: "z" },
      { d: "18446744073709551616" },
      { d: "1.5" },
      // only decimal digits, at every length: Number() would read these short ones
      { d: "1e5" },
      { d: "0x10" },
      { d: "" },
      { d: " 1" },
      { d: "1 " },
      { d: "+1" },
      { d: "-" },
      { d: "1".repeat(16) + "e5" },
      { a: undefined }
    ]) {
      expect(() => encoder.add({ a: 1, b: "ab", c: "x", d: 0, ...bad })).toThrow(UnstorableRecordError)
    }
    expect(() => new BinaryRowEncoder("t", { a: "UInt8" }).add({ z: 1 })).toThrow(UnstorableRecordError)
    const after = encoder.finish()
    expect(after.rows).toBe(1)
    expect(after.body.equals(before)).toBe(true)
  })

  it("writes a null in a column that is not Nullable as the type's default, as the text formats read it", () => {
    const types = { a: "UInt32", b: "String", c: "FixedString(2)", d: "Array(String)", e: "Enum8('p' = 3, 'q' = 4)" }
    const nulls = new BinaryRowEncoder("t", types)
    nulls.add({ a: null, b: null, c: null, d: null, e: null })
    const defaults = new BinaryRowEncoder("t", types)
    defaults.add({ a: 0, b: "", c: "", d: [], e: "p" })
    expect(nulls.finish().body.toString("hex")).toBe(defaults.finish().body.toString("hex"))
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
