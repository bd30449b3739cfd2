// The engine's memory gauge never holds a scrape longer than ENGINE_READ_WAIT_MS: its statement may queue behind an
// insert of the same session, and then the scrape tells the last value read (none before the first answer).
import { describe, expect, it } from "vitest"
import { ENGINE_READ_WAIT_MS, makeMetrics } from "../../../src/ops/Metrics.js"

const engineLine = async (metrics: ReturnType<typeof makeMetrics>) =>
  (await metrics.registry.metrics()).split("\n").find((l) => l.startsWith("ton_engine_memory_tracked_bytes "))

describe("engine memory gauge", () => {
  it("tells each reading when it answers in time, the last one when the engine is busy", async () => {
    const metrics = makeMetrics(false)
    let answer: (v: number) => void = () => undefined
    let value = 100
    let busy = false
    metrics.trackEngineMemory(() => (busy ? new Promise<number>((r) => (answer = r)) : Promise.resolve(value)))
    expect(await engineLine(metrics)).toBe("ton_engine_memory_tracked_bytes 100")
    value = 200
    expect(await engineLine(metrics)).toBe("ton_engine_memory_tracked_bytes 200")
    busy = true
    const started = Date.now()
    expect(await engineLine(metrics)).toBe("ton_engine_memory_tracked_bytes 200")
    expect(Date.now() - started).toBeLessThan(ENGINE_READ_WAIT_MS + 1_000)
    // The reading still queued answers later; the next scrape tells it without starting another one meanwhile.
    answer(300)
    await new Promise((r) => setTimeout(r, 10))
    busy = false
    value = 400
    expect(await engineLine(metrics)).toBe("ton_engine_memory_tracked_bytes 400")
  })

  it("is absent from a process without an embedded engine", async () => {
    expect(await engineLine(makeMetrics(false))).toBeUndefined()
  })
})
