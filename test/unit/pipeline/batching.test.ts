import { Option } from "effect"
import { describe, expect, it } from "vitest"
import type { MasterchainBundle } from "../../../src/ton/record.js"
import { BatchBuffer, estimateRows } from "../../../src/consumer/buffer.js"
import { startSeqno } from "../../../src/producer/Producer.js"
import { insertToken, batchDigest } from "../../../src/sink/tokens.js"
import { bundle, msg, tx } from "./records.js"

describe("BatchBuffer", () => {
  it("flushes on rows or age, replaces redelivered bundles and commits one past the highest offset", () => {
    const buf = new BatchBuffer()
    const b1 = bundle(10, [tx("a", 1, msg("e", "ext_in"), [msg("a->b")])])
    buf.add({ bundle: b1, digest: "d1", offset: 5n, rows: estimateRows(b1), bytes: 100 }, 1000)
    expect(buf.due(1_000, 500, 1100)).toBe(false)
    expect(buf.due(1_000, 500, 1500)).toBe(true)
    expect(buf.due(estimateRows(b1), 10_000, 1100)).toBe(true)
    buf.add({ bundle: b1, digest: "d1", offset: 7n, rows: estimateRows(b1), bytes: 120 }, 1200)
    buf.add({ bundle: bundle(11), digest: "d2", offset: 6n, rows: 1, bytes: 30 }, 1200)
    expect(buf.rows).toBe(estimateRows(b1) + 1)
    expect(buf.bytes).toBe(150)
    const { items, commitOffset } = buf.take()
    expect(items.map((i) => i.bundle.mc_seqno)).toEqual([10, 11])
    expect(commitOffset).toBe(8n)
    expect(buf.size).toBe(0)
  })

  it("flushes on bytes too, counting a redelivered bundle once", () => {
    const buf = new BatchBuffer()
    buf.add({ bundle: bundle(10), digest: "d1", offset: 1n, rows: 1, bytes: 600 }, 0)
    expect(buf.due(1_000, 10_000, 0, 1_000)).toBe(false)
    buf.add({ bundle: bundle(10), digest: "d1", offset: 2n, rows: 1, bytes: 600 }, 0)
    expect(buf.due(1_000, 10_000, 0, 1_000)).toBe(false)
    buf.add({ bundle: bundle(11), digest: "d2", offset: 3n, rows: 1, bytes: 400 }, 0)
    expect(buf.due(1_000, 10_000, 0, 1_000)).toBe(true)
    expect(buf.due(1_000, 10_000, 0)).toBe(false)
    buf.take()
    expect(buf.bytes).toBe(0)
  })

  it("says when a record would take a batch past its byte bound (never an empty batch)", () => {
    const buf = new BatchBuffer()
    expect(buf.wouldPass(5_000, 1_000)).toBe(false)
    buf.add({ bundle: bundle(10), digest: "d1", offset: 1n, rows: 1, bytes: 600 }, 0)
    expect(buf.wouldPass(400, 1_000)).toBe(false)
    expect(buf.wouldPass(401, 1_000)).toBe(true)
    buf.take()
    expect(buf.wouldPass(5_000, 1_000)).toBe(false)
  })

  it("lets the offset move past undecodable records", () => {
    const buf = new BatchBuffer()
    buf.skip(3n)
    expect(buf.due(1, 1, 0)).toBe(true)
    expect(buf.take()).toEqual({ items: [], commitOffset: 4n, commitOffsets: new Map([[0, 4n]]) })
  })

  it("commits each partition of a partitioned bundle topic past its own highest offset", () => {
    const buf = new BatchBuffer()
    const item = (mc_seqno: number, partition: number, offset: bigint) => ({
      bundle: { mc_seqno } as MasterchainBundle,
      digest: "",
      offset,
      partition,
      rows: 1,
      bytes: 1
    })
    buf.add(item(10, 0, 5n), 0)
    buf.add(item(11, 1, 7n), 0)
    buf.add(item(13, 1, 8n), 0)
    buf.skip(6n, 0)
    buf.add(item(12, 2, 2n), 0)
    const { items, commitOffsets } = buf.take()
    expect(items.map((i) => i.bundle.mc_seqno)).toEqual([10, 11, 12, 13])
    expect([...commitOffsets].sort()).toEqual([
      [0, 7n],
      [1, 9n],
      [2, 3n]
    ])
  })
})

describe("startSeqno (no gap, no repeat)", () => {
  it("backfill resumes inside its range and starts at FROM otherwise", () => {
    const run = { mode: "backfill" as const, from: 100, to: 200 }
    expect(startSeqno(run, Option.none(), 0)).toBe(100)
    expect(startSeqno(run, Option.some(150), 0)).toBe(151)
    expect(startSeqno(run, Option.some(200), 0)).toBe(201)
    expect(startSeqno(run, Option.some(5000), 0)).toBe(100)
    expect(startSeqno(run, Option.some(50), 0)).toBe(100)
  })

  it("resume continues after the tail; follow starts at the head unless the tail is ahead", () => {
    expect(startSeqno({ mode: "resume" }, Option.some(41), 90)).toBe(42)
    expect(startSeqno({ mode: "resume", from: 7 }, Option.none(), 90)).toBe(7)
    expect(startSeqno({ mode: "resume" }, Option.none(), 90)).toBe(90)
    expect(startSeqno({ mode: "follow" }, Option.some(41), 90)).toBe(90)
    expect(startSeqno({ mode: "follow" }, Option.some(95), 90)).toBe(96)
  })
})

describe("insert tokens", () => {
  it("depend on table, range, content and generation", () => {
    const b = bundle(1, [tx("a", 1, msg("e", "ext_in"))])
    const d = batchDigest([{ bundle: b, digest: "x" }])
    expect(d).toBe(batchDigest([{ bundle: b, digest: "x" }]))
    const traced = { ...b, transactions: [{ ...b.transactions[0]!, trace_id: "T" }] }
    expect(batchDigest([{ bundle: traced, digest: "x" }])).not.toBe(d)
    expect(insertToken("messages", 1, 9, d, "g1")).toBe(`messages:1-9:${d}:g1`)
  })
})
