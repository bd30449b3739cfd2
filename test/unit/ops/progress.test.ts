import { describe, expect, it } from "vitest"
import { formatProgress, ProgressReporter, ProgressTracker } from "../../../src/ops/progress.js"

describe("ProgressTracker", () => {
  it("computes rates, lag and ETA over the window", () => {
    const t = new ProgressTracker(10_000, 0)
    for (let i = 1; i <= 10; i++) t.record(100 + i, 3, 30, i * 1_000)
    const v = t.view(130, 10_000)!
    expect(v.mcSeqno).toBe(110)
    expect(v.blocksPerSec).toBeCloseTo(3)
    expect(v.txPerSec).toBeCloseTo(30)
    expect(v.mcPerSec).toBeCloseTo(1)
    expect(v.lag).toBe(20)
    expect(v.etaSec).toBeCloseTo(20)
    expect(formatProgress("p", v, 10)).toBe("p mc 110 | 3.0 blk/s | 30.0 tx/s (last 10s) | lag 20 | ETA 20s")
  })

  it("forgets a start-up burst once the window has passed", () => {
    const t = new ProgressTracker(30_000, 0)
    // 1000 bundles in the first 100 ms, then one per second for a minute.
    for (let i = 0; i < 1000; i++) t.record(i, 1, 10, i / 10)
    for (let s = 1; s <= 60; s++) t.record(1000 + s, 1, 10, s * 1_000)
    const v = t.view(undefined, 60_000)!
    expect(v.mcPerSec).toBeCloseTo(1, 1)
    expect(v.txPerSec).toBeCloseTo(10, 0)
    expect(v.lag).toBeUndefined()
    expect(formatProgress("c", v)).toBe("c mc 1060 | 1.0 blk/s | 10.0 tx/s")
  })

  it("counts the time before the first record, so the first rate is not inflated", () => {
    const t = new ProgressTracker(30_000, 0)
    t.record(5, 4, 40, 4_999)
    const v = t.view(undefined, 5_000)!
    expect(v.blocksPerSec).toBeCloseTo(0.8)
  })

  it("has no ETA while nothing moves", () => {
    const t = new ProgressTracker(10_000, 0)
    t.record(1, 1, 1, 0)
    const v = t.view(50, 60_000)!
    expect(v.lag).toBe(49)
    expect(v.etaSec).toBeUndefined()
    expect(formatProgress("p", v)).toContain("lag 49 | ETA ?")
  })
})

describe("ProgressReporter", () => {
  it("reports while working, says once that a backfill finished, then stays quiet", () => {
    const tracker = new ProgressTracker(30_000, 0)
    const r = new ProgressReporter("producer", tracker)
    expect(r.tick(1_000, 20)).toBeUndefined()
    tracker.record(10, 2, 5, 4_000)
    expect(r.tick(5_000, 20)).toMatch(/^producer mc 10 \| .* \| lag 10 \| ETA /)
    tracker.record(20, 2, 5, 9_000)
    expect(r.tick(10_000, 20, true)).toBe(
      "producer finished at mc 20 (2 mc blocks, 10 transactions so far); quiet until there is more to do"
    )
    expect(r.tick(15_000, 20, true)).toBeUndefined()
    expect(r.tick(60_000, 20, true)).toBeUndefined()
  })

  it("follows the head quietly and speaks again when it falls behind", () => {
    const tracker = new ProgressTracker(30_000, 0)
    const r = new ProgressReporter("producer", tracker)
    tracker.record(100, 1, 1, 1_000)
    expect(r.tick(5_000, 100)).toMatch(/^producer caught up at mc 100 /)
    tracker.record(101, 1, 1, 6_000)
    expect(r.tick(10_000, 102)).toBeUndefined()
    tracker.record(102, 1, 1, 11_000)
    expect(r.tick(15_000, 110)).toMatch(/^producer mc 102 \| .* \| lag 8 \|/)
    tracker.record(110, 1, 1, 16_000)
    expect(r.tick(20_000, 110)).toMatch(/^producer caught up at mc 110 /)
  })

  it("says once that it went idle without a target, and resumes when data arrives", () => {
    const tracker = new ProgressTracker(30_000, 0)
    const r = new ProgressReporter("consumer", tracker)
    tracker.record(7, 3, 9, 1_000)
    expect(r.tick(5_000, undefined)).toMatch(/^consumer mc 7 \|/)
    expect(r.tick(10_000, undefined)).toBe(
      "consumer idle at mc 7 (1 mc blocks, 9 transactions so far); quiet until it moves"
    )
    expect(r.tick(15_000, undefined)).toBeUndefined()
    tracker.record(8, 3, 9, 16_000)
    expect(r.tick(20_000, undefined)).toMatch(/^consumer mc 8 \|/)
  })

  it("names the lag when it stalls behind its target", () => {
    const tracker = new ProgressTracker(30_000, 0)
    const r = new ProgressReporter("producer", tracker)
    tracker.record(7, 1, 1, 1_000)
    r.tick(5_000, 50)
    expect(r.tick(10_000, 50)).toBe(
      "producer idle at mc 7, 43 behind mc 50 (1 mc blocks, 1 transactions so far); quiet until it moves"
    )
  })
})
