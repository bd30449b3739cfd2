// A table's insert body moved to its spool file as it is encoded (src/clickhouse/spool.ts, ByteRowEncoder.spillTo):
// the file followed by what the encoder still holds is byte for byte the body it writes without one, for every
// encoder and table of real and generated bundles; the encoder then holds about `afterBytes` and a chunk, whatever the
// body's size; a refused row leaves the body as it was; the file's life (nothing made when nothing was spooled,
// removal, a write that fails) and the process directory's sweep of dead processes' leftovers.
import { spawnSync } from "node:child_process"
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { processSpoolDir, SpoolFile, SpoolWriteError } from "../../../src/clickhouse/spool.js"
import { flattenBundles, INSERT_ORDER, UnstorableRecordError } from "../../../src/flatten/index.js"
import { BinaryRowEncoder, encoderFor, type RowEncoder, textEncoderFor, TsvRowEncoder } from "../../../src/sink/encode.js"
import { realBlockBundles } from "../store/realBlocks.js"
import { realBundle, syntheticBundle } from "../store/records.js"

const dir = mkdtempSync(join(tmpdir(), "spool-test-"))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
let serial = 0
const path = () => join(dir, `${++serial}.body`)

/** The whole body `e` wrote with `spool` beside it. */
const bodyOf = (e: RowEncoder, spool: SpoolFile): Buffer => {
  const { chunks } = e.finishChunks()
  const body = spool.finish(chunks)
  if (Array.isArray(body)) return Buffer.concat(body as ReadonlyArray<Buffer>)
  const file = body as { file: string; bytes: number }
  const bytes = readFileSync(file.file)
  expect(bytes.length).toBe(file.bytes)
  return bytes
}

const { bundles: real } = realBlockBundles()
const rows = flattenBundles([...real, realBundle(), ...[1000, 1001, 1002].map(syntheticBundle)])

describe("insert bodies spooled as they are encoded", () => {
  for (const [name, make] of [
    ["the sink's encoders", encoderFor],
    ["the text encoders", textEncoderFor]
  ] as const) {
    it(`give the same bytes as in memory, for every table (${name}, chunks of 300 and the default)`, () => {
      let spooled = 0
      for (const chunkBytes of [300, undefined]) {
        for (const afterBytes of [1, 700, 5000]) {
          for (const table of INSERT_ORDER) {
            const plain = make(table, chunkBytes)
            const e = make(table, chunkBytes)
            const spool = new SpoolFile(path(), afterBytes)
            e.spillTo(spool)
            for (const row of rows[table]) {
              plain.add(row)
              e.add(row)
            }
            const expected = plain.finish().body
            const got = bodyOf(e, spool)
            if (spool.bytes > 0) spooled++
            expect(got.equals(expected), `${table}, ${chunkBytes} B chunks, spilled after ${afterBytes}`).toBe(true)
            spool.remove()
          }
        }
      }
      // most tables' bodies of these bundles are larger than 700 bytes: the files were used, not just made
      expect(spooled).toBeGreaterThan(INSERT_ORDER.length)
    })
  }

  it("leave the encoder holding about afterBytes and a chunk, however large the body", () => {
    const row = { n: 1, s: "z".repeat(1000), t: "ok" }
    for (const make of [
      () => new TsvRowEncoder("t", 4096),
      () => new BinaryRowEncoder("t", { n: "UInt32", s: "String", t: "String" }, 4096)
    ]) {
      const e = make()
      const spool = new SpoolFile(path(), 16_384)
      e.spillTo(spool)
      let most = 0
      for (let i = 0; i < 5_000; i++) {
        e.add(row)
        most = Math.max(most, e.capacity)
      }
      // ~5 MB written, at most 16 KiB + a row's bytes of finished chunks and the one being written held at any time
      expect(spool.bytes).toBeGreaterThan(4_900_000)
      expect(most).toBeLessThanOrEqual(16_384 + 1024 + 2 * 4096)
      const body = bodyOf(e, spool)
      expect(body.length).toBeGreaterThan(5_000_000)
      expect(e.capacity).toBe(0)
      spool.remove()
    }
  })

  it("put a refused row back from what is still in memory, after earlier rows went to the file", () => {
    const long = "x".repeat(2000)
    const plain = textEncoderFor("tx_pages", 256)
    const e = textEncoderFor("tx_pages", 256)
    const spool = new SpoolFile(path(), 1000)
    e.spillTo(spool)
    const ok = (i: number) => ({ s: `${long}${i}`, list: [i] })
    for (let i = 0; i < 20; i++) {
      plain.add(ok(i))
      e.add(ok(i))
    }
    expect(spool.bytes).toBeGreaterThan(0)
    // its first value fills chunks before the second is refused
    const refused = { s: long, list: [long, 3] }
    expect(() => e.add(refused)).toThrow(UnstorableRecordError)
    expect(() => plain.add(refused)).toThrow(UnstorableRecordError)
    for (let i = 20; i < 25; i++) {
      plain.add(ok(i))
      e.add(ok(i))
    }
    expect(bodyOf(e, spool).equals(plain.finish().body)).toBe(true)
    spool.remove()
  })
})

describe("a spool file", () => {
  it("is not made when nothing was spooled: the body is the slices as they were", () => {
    const p = path()
    const spool = new SpoolFile(p, 10)
    const tail = [Buffer.from("a"), Buffer.from("b")]
    expect(spool.finish(tail)).toBe(tail)
    expect(existsSync(p)).toBe(false)
    spool.remove()
  })

  it("is removed by remove, after finish or before it, and takes no write after finish", () => {
    const a = new SpoolFile(path(), 1)
    a.write([Buffer.from("abc")])
    const body = a.finish([Buffer.from("def")])
    expect(body).toEqual({ file: a.path, bytes: 6 })
    expect(readFileSync(a.path, "utf8")).toBe("abcdef")
    expect(() => a.write([Buffer.from("g")])).toThrow(SpoolWriteError)
    a.remove()
    a.remove()
    expect(existsSync(a.path)).toBe(false)

    const b = new SpoolFile(path(), 1)
    b.write([Buffer.from("abc")])
    b.remove()
    expect(existsSync(b.path)).toBe(false)
  })

  it("fails with SpoolWriteError naming the file when it cannot be written", () => {
    const p = join(dir, "no-such-dir", "x.body")
    const spool = new SpoolFile(p, 1)
    expect(() => spool.write([Buffer.from("abc")])).toThrow(SpoolWriteError)
    expect(() => spool.write([Buffer.from("abc")])).toThrow(p)
    spool.remove()
  })
})

describe("a process's spool directory under the temporary one", () => {
  it("is made on first use, and removes the directories of processes no longer running", () => {
    const base = mkdtempSync(join(tmpdir(), "spool-base-"))
    try {
      const done = spawnSync(process.execPath, ["-e", "0"])
      const deadPid = done.pid!
      const dead = join(base, `ton-exporter-inserts-${deadPid}`)
      mkdirSync(dead)
      writeFileSync(join(dead, "1.body"), "left behind")
      const live = join(base, `ton-exporter-inserts-${process.ppid}`)
      mkdirSync(live)
      const other = join(base, "something-else")
      mkdirSync(other)
      const own = processSpoolDir(base)
      expect(own).toBe(join(base, `ton-exporter-inserts-${process.pid}`))
      expect(readdirSync(base).sort()).toEqual(
        [`ton-exporter-inserts-${process.pid}`, `ton-exporter-inserts-${process.ppid}`, "something-else"].sort()
      )
      expect(existsSync(dead)).toBe(false)
      expect(processSpoolDir(base)).toBe(own)
    } finally {
      rmSync(base, { recursive: true, force: true })
    }
  })
})
