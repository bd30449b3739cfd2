// The record-batch codecs the project registers in kafkajs: each one round-trips real bundle JSON, lz4 writes the
// LZ4 frame format Kafka requires (magic 0x184D2204), zstd a zstd frame (magic 0xFD2FB528), gzip a gzip member, and
// every codec is registered in kafkajs's table so a consumer reads whatever a producer chose; the CPU they report is
// the calling thread's own, however busy the process's other threads are.
import { readFileSync, readdirSync } from "node:fs"
import { join } from "node:path"
import { Worker } from "node:worker_threads"
import kafkajs, { CompressionTypes } from "kafkajs"
import { describe, expect, it } from "vitest"
import { KAFKA_COMPRESSIONS } from "../../../src/config.js"
import { codecStats } from "../../../src/kafka/codecStats.js"
import { compressionType, compressWith, decompressWith, installKafkaCodecs } from "../../../src/kafka/compression.js"
import { threadCpuSeconds } from "../../../src/ops/cpu.js"

const fixtureDir = join(import.meta.dirname, "../../fixtures/real/blocks")
const sample = (): Buffer => {
  const files = readdirSync(fixtureDir).filter((f) => f.endsWith(".json")).slice(0, 3)
  return Buffer.from(files.map((f) => readFileSync(join(fixtureDir, f), "utf8")).join("\n"))
}

describe("Kafka record-batch codecs", () => {
  it("round-trip real data, each in its own frame format, and smaller than the input", async () => {
    const input = sample()
    expect(input.length).toBeGreaterThan(10_000)
    const magic = { gzip: "1f8b", lz4: "04224d18", zstd: "28b52ffd" } as const
    for (const codec of ["gzip", "lz4", "zstd"] as const) {
      const packed = await compressWith(codec, input)
      expect(packed.subarray(0, codec === "gzip" ? 2 : 4).toString("hex")).toBe(magic[codec])
      expect(packed.length).toBeLessThan(input.length)
      expect((await decompressWith(codec, packed)).equals(input)).toBe(true)
    }
  })

  it("are registered in kafkajs for every setting value, and count their bytes", async () => {
    installKafkaCodecs()
    const before = codecStats.compressInBytes
    for (const c of KAFKA_COMPRESSIONS) {
      const type = compressionType(c)
      if (c === "none") {
        expect(type).toBe(CompressionTypes.None)
        continue
      }
      const codec = (kafkajs.CompressionCodecs as Record<number, () => { compress: (e: { buffer: Buffer }) => Promise<Buffer>; decompress: (b: Buffer) => Promise<Buffer> }>)[type]!()
      const input = Buffer.from(`{"setting":"${c}"}`.repeat(100))
      const packed = await codec.compress({ buffer: input })
      expect((await codec.decompress(packed)).equals(input)).toBe(true)
    }
    expect(codecStats.compressInBytes - before).toBeGreaterThan(0)
  })

  it("count the calling thread's CPU alone, with another thread of the process busy meanwhile", async () => {
    // a thread that spins until told to stop: a process clock would add its CPU to every compress in the loop below
    const flag = new Int32Array(new SharedArrayBuffer(4))
    const spinner = new Worker(
      `const flag = new Int32Array(require("node:worker_threads").workerData)
       Atomics.store(flag, 0, 1)
       while (Atomics.load(flag, 0) === 1) {}`,
      { eval: true, workerData: flag.buffer }
    )
    try {
      while (Atomics.load(flag, 0) !== 1) await new Promise((r) => setTimeout(r, 5))
      const input = Buffer.concat(Array.from({ length: 24 }, () => sample()))
      const before = codecStats.compressSeconds
      const mine = threadCpuSeconds()
      for (let i = 0; i < 30; i++) await compressWith("zstd", input)
      const own = threadCpuSeconds() - mine
      const counted = codecStats.compressSeconds - before
      // the sections lie inside the loop on the same clock, so their sum cannot exceed the loop's own CPU
      expect(counted).toBeGreaterThan(0)
      expect(counted).toBeLessThanOrEqual(own + 1e-9)
    } finally {
      Atomics.store(flag, 0, 0)
      await spinner.terminate()
    }
  })
})
