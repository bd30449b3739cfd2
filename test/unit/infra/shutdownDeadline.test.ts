import { afterEach, beforeEach, describe, expect, it, vi } from "vitest"

// The module keeps the process's one deadline: a fresh copy per test.
const load = async () => {
  vi.resetModules()
  return import("../../../src/infra/shutdownDeadline.js")
}

describe("shutdown deadline", () => {
  beforeEach(() => {
    vi.useFakeTimers()
    vi.spyOn(process.stdout, "write").mockImplementation(() => true)
  })
  afterEach(() => {
    vi.useRealTimers()
    vi.restoreAllMocks()
  })

  it("fires once the deadline passes when nothing asks for more", async () => {
    const m = await load()
    const overrun = vi.fn()
    m.startShutdownDeadline(overrun)
    vi.advanceTimersByTime(m.SHUTDOWN_DEADLINE_MS - 1)
    expect(overrun).not.toHaveBeenCalled()
    vi.advanceTimersByTime(1)
    expect(overrun).toHaveBeenCalledWith(m.SHUTDOWN_DEADLINE_MS)
  })

  it("moves later by what a slow stop asks for, printing why, and never earlier", async () => {
    const m = await load()
    const overrun = vi.fn()
    m.startShutdownDeadline(overrun)
    vi.advanceTimersByTime(5_000)
    m.allowLongerShutdown(20_000, "broker: writing its archive")
    expect(process.stdout.write).toHaveBeenCalledWith("broker: writing its archive\n")
    m.allowLongerShutdown(1_000, "a short one")
    vi.advanceTimersByTime(19_999)
    expect(overrun).not.toHaveBeenCalled()
    vi.advanceTimersByTime(1)
    expect(overrun).toHaveBeenCalledTimes(1)
    expect(overrun).toHaveBeenCalledWith(25_000)
  })

  it("keeps an extension asked for before the signal", async () => {
    const m = await load()
    const overrun = vi.fn()
    m.allowLongerShutdown(10_000, "early")
    m.startShutdownDeadline(overrun)
    vi.advanceTimersByTime(m.SHUTDOWN_DEADLINE_MS + 9_999)
    expect(overrun).not.toHaveBeenCalled()
    vi.advanceTimersByTime(1)
    expect(overrun).toHaveBeenCalledWith(m.SHUTDOWN_DEADLINE_MS + 10_000)
  })
})
