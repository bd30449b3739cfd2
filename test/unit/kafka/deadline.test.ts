import { describe, expect, it } from "vitest"
import { DeadlineError, withDeadline } from "../../../src/kafka/deadline.js"

const after = <A>(ms: number, a: A) => new Promise<A>((r) => setTimeout(() => r(a), ms))

describe("withDeadline", () => {
  it("passes a step's result through when it settles in time", async () => {
    let released = false
    await expect(withDeadline("quick step", 1_000, () => after(5, 42), () => (released = true))).resolves.toBe(42)
    expect(released).toBe(false)
  })

  it("passes a step's own failure through", async () => {
    await expect(withDeadline("failing step", 1_000, () => Promise.reject(new Error("boom")))).rejects.toThrow("boom")
  })

  it("rejects a step that never settles with an error naming it, and releases what it holds", async () => {
    let released = false
    const never = () => new Promise<number>(() => undefined)
    const result = withDeadline("fencing transactional id t1", 30, never, () => (released = true))
    await expect(result).rejects.toBeInstanceOf(DeadlineError)
    await expect(result).rejects.toThrow("fencing transactional id t1: no answer from Kafka within 30 ms")
    expect(released).toBe(true)
  })

  it("ignores a late answer after the deadline", async () => {
    const result = withDeadline("slow step", 10, () => after(50, 1))
    await expect(result).rejects.toBeInstanceOf(DeadlineError)
    await after(60, undefined) // the late resolution must not throw or resolve anything
  })
})
