// The calling thread's CPU clock the stage metrics use: it never goes back, and it advances when the thread works
// (10 ms ticks on Linux, so the work below runs until the clock has moved rather than for a fixed time).
import { describe, expect, it } from "vitest"
import { processCpuSeconds, threadCpuSeconds } from "../../../src/ops/cpu.js"

describe("threadCpuSeconds", () => {
  it("is monotonic and advances with the thread's own work, never past the process's", () => {
    const p0 = processCpuSeconds()
    const t0 = threadCpuSeconds()
    let last = t0
    let x = 0
    for (let round = 0; round < 10_000 && last === t0; round++) {
      for (let i = 0; i < 100_000; i++) x = (x * 31 + i) % 1_000_003
      const t = threadCpuSeconds()
      expect(t).toBeGreaterThanOrEqual(last)
      last = t
    }
    expect(x).toBeGreaterThanOrEqual(0)
    expect(last).toBeGreaterThan(t0)
    // The thread's clock counts in 10 ms ticks; the process's (every thread) in microseconds.
    expect(last - t0).toBeLessThanOrEqual(processCpuSeconds() - p0 + 0.02)
  })
})
