// The sink's encoders (bytes written straight into one buffer, escaping found in the bytes) against the encoders they
// replaced (test/support/sink/referenceEncode.ts): byte-identical insert bodies for every table's rows of decoded
// real mainnet blocks, of the real fixture bundle plus synthetic ones and of generated chains (the ingest benchmark's
// kind: real transactions mixed into generated blocks), and for generated strings made of the characters either
// format escapes, non-ASCII text, lone surrogates and lengths on both sides of the byte-scan threshold.
import { describe, expect, it } from "vitest"
import { flattenBundles, INSERT_ORDER, type TableRows, UnstorableRecordError } from "../../../src/flatten/index.js"
import { assembleBundle, pipelineDecode } from "../../../src/producer/assemble.js"
import { BinaryRowEncoder, CHUNK_BYTES, CompactRowEncoder, textEncoderFor, TsvRowEncoder } from "../../../src/sink/encode.js"
import type { MasterchainBundle } from "../../../src/ton/record.js"
import { mixedChain } from "../../../tools/fake/mixedChain.js"
import { rawBundle } from "../../support/pipeline/chainUpstream.js"
import { ReferenceCompactRowEncoder, ReferenceTsvRowEncoder } from "../../support/sink/referenceEncode.js"
import { realBlockBundles } from "../store/realBlocks.js"
import { realBundle, syntheticBundle } from "../store/records.js"

const reference = (table: string) =>
  textEncoderFor(table).format === "TabSeparated" ? new ReferenceTsvRowEncoder(table) : new ReferenceCompactRowEncoder(table)

/**
 * Every table's rows through both encoders, in batches as the sink cuts them; ours also with chunks smaller than
 * many of the values (each such value gets a chunk of its own size), so rows straddle chunks everywhere.
 */
const expectSameBodies = (rows: TableRows) => {
  for (const chunkBytes of [CHUNK_BYTES, 300]) expectSameBodiesIn(rows, chunkBytes)
}

const expectSameBodiesIn = (rows: TableRows, chunkBytes: number) => {
  for (const table of INSERT_ORDER) {
    const ours = textEncoderFor(table, chunkBytes)
    const ref = reference(table)
    for (const row of rows[table]) {
      ours.add(row)
      ref.add(row)
    }
    const a = ours.finish()
    const b = ref.finish()
    expect(a.rows, table).toBe(b.rows)
    expect(a.columns, table).toEqual(b.columns)
    const sizes = `${a.body.length} vs ${b.body.length} bytes`
    expect(a.body.equals(b.body), `${table} (${chunkBytes} B chunks): ${sizes}`).toBe(true)
  }
}

const chainBundles = (seed: number, mcBlocks: number, txPerBlock: number): Array<MasterchainBundle> => {
  const chain = mixedChain(seed, mcBlocks, txPerBlock)
  const out: Array<MasterchainBundle> = []
  for (let s = chain.first; s <= chain.last; s++) {
    const raw = rawBundle(chain, s)
    if (raw !== undefined) out.push(assembleBundle(raw, "mainnet", pipelineDecode).bundle)
  }
  return out
}

/** A deterministic generator of awkward strings. */
const strings = (seed: number, count: number): Array<string> => {
  let x = seed >>> 0
  const next = () => {
    x = (Math.imul(x, 1664525) + 1013904223) >>> 0
    return x
  }
  const alphabet = ["a", "Z", "0", "\\", "'", '"', "\t", "\n", "\r", " ", ",", "[", "]", "é", "€", "😀", "\ud800", "\udc00", "\u2028", "{}"]
  const lengths = [0, 1, 2, 17, 255, 256, 257, 1000, 20_000]
  return Array.from({ length: count }, () => {
    const n = lengths[next() % lengths.length]!
    let s = ""
    for (let i = 0; i < n; i++) s += next() % 3 === 0 ? alphabet[next() % alphabet.length]! : "x"
    return s
  })
}

describe("sink encoders against the reference encoders", () => {
  it("match byte for byte on decoded real mainnet blocks", () => {
    const { bundles } = realBlockBundles()
    expect(bundles.length).toBeGreaterThan(0)
    expectSameBodies(flattenBundles(bundles))
  })

  it("match byte for byte on the real fixture bundle and synthetic bundles", () => {
    expectSameBodies(flattenBundles([realBundle(), ...[1000, 1001, 1002, 1003].map(syntheticBundle)]))
  })

  it.each([
    [42, 3, 20],
    [7, 3, 8]
  ])("match byte for byte on a generated chain (seed %i, %i masterchain blocks, %i tx per block)", (seed, mc, tx) => {
    const bundles = chainBundles(seed, mc, tx)
    expect(bundles.reduce((n, b) => n + b.transactions.length, 0)).toBeGreaterThan(50)
    expectSameBodies(flattenBundles(bundles))
  })

  it("match byte for byte on strings of escaped characters, non-ASCII text and lone surrogates", () => {
    const values = strings(1, 400)
    const ours = new TsvRowEncoder("t")
    const ref = new ReferenceTsvRowEncoder("t")
    const compact = new CompactRowEncoder("t")
    const compactRef = new ReferenceCompactRowEncoder("t")
    for (let i = 0; i < values.length; i++) {
      const row = { n: i, s: values[i]!, list: [values[(i * 7) % values.length]!, values[(i * 13) % values.length]!], ranks: [i, 2 * i] }
      ours.add(row)
      ref.add(row)
      compact.add(row)
      compactRef.add(row)
    }
    const a = ours.finish()
    expect(a.body.length).toBeGreaterThan(1 << 18)
    expect(a.body.equals(ref.finish().body)).toBe(true)
    expect(compact.finish().body.equals(compactRef.finish().body)).toBe(true)
  })

  it("match byte for byte on JSON values of every kind (numbers, booleans, null, objects, arrays, strings)", () => {
    const numbers = [0, -0, 1, -1, 7.5, -0.125, 1e21, 1e-7, 2 ** 53, -(2 ** 63), 123456789012, NaN, Infinity, -Infinity]
    const texts = strings(2, 120)
    const kinds: Array<unknown> = [
      ...numbers,
      true,
      false,
      null,
      {},
      [],
      { a: 1, b: "x\"y", c: [null, { d: "é" }] },
      ["a", 1, null, true],
      [NaN, () => 1],
      "",
      "plain ascii 0123",
      "\x7f",
      "tab\tin",
      "x".repeat(300) + "\u0001"
    ]
    for (const chunkBytes of [CHUNK_BYTES, 40]) {
      const ours = new CompactRowEncoder("t", chunkBytes)
      const ref = new ReferenceCompactRowEncoder("t")
      for (let i = 0; i < kinds.length * 3; i++) {
        const row = {
          a: kinds[i % kinds.length],
          b: kinds[(i * 5 + 1) % kinds.length],
          s: texts[i % texts.length],
          c: kinds[(i * 11 + 2) % kinds.length]
        }
        ours.add(row)
        ref.add(row)
      }
      const a = ours.finish()
      const b = ref.finish()
      expect(a.body.toString("utf8")).toBe(b.body.toString("utf8"))
      expect(a.body.equals(b.body)).toBe(true)
    }
  })

  it("refuse a bigint in a JSON row as JSON.stringify does, leaving nothing of the row behind", () => {
    const ours = new CompactRowEncoder("t")
    const ref = new ReferenceCompactRowEncoder("t")
    for (const e of [ours, ref]) {
      e.add({ a: "head", b: 1 })
      expect(() => e.add({ a: "x".repeat(500), b: 2n })).toThrow(TypeError)
      e.add({ a: "tail", b: 3 })
    }
    expect(ours.finish().body.equals(ref.finish().body)).toBe(true)
  })

  it("leave nothing of a refused row behind", () => {
    const ours = new TsvRowEncoder("t")
    const ref = new ReferenceTsvRowEncoder("t")
    const long = "y\\".repeat(300)
    for (const row of [
      { s: long, list: ["a"] },
      { s: long, list: ["b", 3] },
      { s: "tail", list: [long] }
    ]) {
      let refused = 0
      for (const e of [ours, ref]) {
        try {
          e.add(row)
        } catch (err) {
          expect(err).toBeInstanceOf(UnstorableRecordError)
          refused++
        }
      }
      expect(refused === 0 || refused === 2).toBe(true)
    }
    const a = ours.finish()
    expect(a.rows).toBe(2)
    expect(a.body.equals(ref.finish().body)).toBe(true)
  })

  it("start empty again after finish", () => {
    const ours = new TsvRowEncoder("t")
    ours.add({ s: "x".repeat(100_000) })
    expect(ours.finish().rows).toBe(1)
    const again = ours.finish()
    expect(again.rows).toBe(0)
    expect(again.body.length).toBe(0)
  })

  it("leave nothing of a refused row behind when the row had started new chunks", () => {
    const ours = new TsvRowEncoder("t", 64)
    const ref = new ReferenceTsvRowEncoder("t")
    const long = "y\\".repeat(100)
    ours.add({ s: "head", list: ["a"] })
    ref.add({ s: "head", list: ["a"] })
    // the first value fills chunks of its own before the second is refused
    expect(() => ours.add({ s: long, list: [long, 3] })).toThrow(UnstorableRecordError)
    expect(() => ref.add({ s: long, list: [long, 3] })).toThrow(UnstorableRecordError)
    for (const row of [{ s: long, list: [long] }, { s: "tail", list: [] }]) {
      ours.add(row)
      ref.add(row)
    }
    expect(ours.finish().body.equals(ref.finish().body)).toBe(true)
  })

  it("hold little more than their bytes when every row carries a value larger than a chunk, and write what one chunk would", () => {
    // A page's text in each row: the values after it go on in the room of the chunk it left, not in a new chunk each.
    const rows = Array.from({ length: 400 }, (_, i) => ({ n: i, s: `${"p".repeat(900 + (i % 7) * 50)}\t${i}`, t: "x" }))
    const makers = [
      (chunk: number) => new TsvRowEncoder("t", chunk),
      (chunk: number) => new CompactRowEncoder("t", chunk),
      (chunk: number) => new BinaryRowEncoder("t", { n: "UInt32", s: "String", t: "String" }, chunk)
    ]
    for (const make of makers) {
      const small = make(256)
      const whole = make(1 << 24)
      let written = 0
      for (const row of rows) {
        small.add(row)
        whole.add(row)
        written += row.s.length + 12
        // each row's large value in a buffer of its own, the rest in chunks filled one after the other (a new chunk
        // per row would hold ~256 bytes more for each)
        expect(small.capacity).toBeLessThanOrEqual(written * 1.01 + 4 * 256)
      }
      const a = small.finishChunks()
      const b = whole.finish()
      expect(a.chunks.length).toBeGreaterThan(rows.length)
      expect(Buffer.concat(a.chunks).equals(b.body)).toBe(true)
      expect(a.bytes).toBe(b.body.length)
      expect(small.capacity).toBe(0)
    }
  })

  it("hold no more than their bytes, the unused end of each chunk below a value's size, and one chunk", () => {
    const row = { n: 1, s: "z".repeat(1000) }
    for (const make of [() => new TsvRowEncoder("t"), () => new CompactRowEncoder("t")]) {
      const e = make()
      expect(e.capacity).toBe(0)
      for (let i = 0; i < 5_000; i++) {
        e.add(row)
        // Each chunk may leave unused less than one row's bytes (~1010) at its end; the current one is whole.
        const chunks = Math.ceil(e.capacity / CHUNK_BYTES)
        expect(e.capacity).toBeLessThanOrEqual((i + 1) * 1010 + chunks * 1010 + CHUNK_BYTES)
      }
      const { chunks, bytes } = e.finishChunks()
      expect(chunks.length).toBeGreaterThan(10)
      expect(chunks.slice(0, -1).every((c) => c.length <= CHUNK_BYTES && c.length > CHUNK_BYTES - 1010)).toBe(true)
      expect(bytes).toBe(chunks.reduce((n, c) => n + c.length, 0))
      expect(e.capacity).toBe(0)
    }
  })
})
