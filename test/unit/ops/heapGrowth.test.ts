// The producer's bound on heap growth (PRODUCER_HEAP_GROWTH_PERCENT, 100 by default): a process that keeps a steady
// live set and promotes everything it has in flight, as the producer does, holds far less heap with the bound set at
// run time than with V8's own factor. Each side runs in a process of its own, since the flag is process-wide.
import { describe, expect, it } from "vitest"
import { limitHeapGrowth } from "../../../src/ops/heapGrowth.js"
import { runScript, srcUrl } from "../../support/scriptProcess.js"

const moduleUrl = srcUrl("ops/heapGrowth.ts")

/** Largest heap total (MB) of a run that keeps ~30 MB live and ~40 batches in flight, with the bound or without. */
const churn = (percent: number | undefined): { maxTotalMb: number; liveMb: number } =>
  JSON.parse(
    runScript(
      `import v8 from "node:v8"
import { limitHeapGrowth } from ${JSON.stringify(moduleUrl)}
${percent === undefined ? "" : `limitHeapGrowth(${percent})`}
const live = []
for (let i = 0; i < 150_000; i++) live.push({ s: "x".repeat(64) + i, n: [i, i + 1] })
const inFlight = []
let maxTotal = 0
for (let round = 0; round < 600; round++) {
  const batch = []
  for (let i = 0; i < 2000; i++) batch.push({ s: "y".repeat(48) + i, n: [i] })
  inFlight.push(batch)
  if (inFlight.length > 40) inFlight.shift()
  maxTotal = Math.max(maxTotal, v8.getHeapStatistics().total_heap_size)
}
inFlight.length = 0
globalThis.gc()
process.stdout.write(JSON.stringify({ maxTotalMb: maxTotal / 1048576, liveMb: v8.getHeapStatistics().used_heap_size / 1048576, kept: live.length }))
`,
      { nodeArgs: ["--expose-gc"] }
    )
  ) as { maxTotalMb: number; liveMb: number }

describe("limitHeapGrowth", () => {
  it("keeps a churning heap within a fraction of what V8's own factor lets it grow to", () => {
    const free = churn(undefined)
    const bounded = churn(50)
    // Same live data either way; V8's own factor lets the heap reach several times it.
    expect(bounded.liveMb).toBeGreaterThan(15)
    expect(Math.abs(bounded.liveMb - free.liveMb)).toBeLessThan(10)
    expect(bounded.maxTotalMb).toBeLessThan(0.7 * free.maxTotalMb)
  }, 60_000)

  it("rejects a percent that is not a whole number of at least 0", () => {
    expect(() => limitHeapGrowth(-1)).toThrow(/heap growth percent/)
    expect(() => limitHeapGrowth(1.5)).toThrow(/heap growth percent/)
  })
})
