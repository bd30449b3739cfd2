// The toncenter adapter's pacing decision on a simulated clock: slots `1/rps` apart on the schedule, late wake-ups
// not lost, and an interval shorter than a timer's millisecond served several slots per wake-up, so a high rate is
// reached and never exceeded (any rps + 1 consecutive slots span about a second).
import { describe, expect, it } from "vitest"
import { pacingLeeway, type Pacing, takeSlot } from "../../../src/source/ToncenterHttp.js"

const pacing = (rps: number): Pacing => {
  const interval = 1000 / rps
  return { interval, early: pacingLeeway(interval), last: -Infinity }
}

/** A busy caller on a clock whose timers wake whole milliseconds late by `late()`: the times slots were given. */
const run = (rps: number, slots: number, late: () => number) => {
  const p = pacing(rps)
  const given: Array<number> = []
  let now = 1_000
  while (given.length < slots) {
    const wait = takeSlot(p, now)
    if (wait === 0) given.push(now)
    else now += Math.max(1, Math.ceil(wait)) + late()
  }
  return given
}

/** The shortest time any `n + 1` consecutive slots span. */
const tightest = (at: ReadonlyArray<number>, n: number) => {
  let min = Infinity
  for (let i = 0; i + n < at.length; i++) min = Math.min(min, at[i + n]! - at[i]!)
  return min
}

describe("toncenter pacing", () => {
  it("an interval of a millisecond or more lets one slot go per interval", () => {
    for (const rps of [1, 10, 25, 1000]) {
      const p = pacing(rps)
      expect(p.early).toBe(0)
      expect(takeSlot(p, 5_000)).toBe(0)
      // the first slot counts from a quarter interval back (its time may have come late)
      expect(takeSlot(p, 5_000)).toBeCloseTo(0.75 * (1000 / rps))
      expect(takeSlot(p, 5_000 + 0.75 * (1000 / rps))).toBe(0)
      expect(takeSlot(p, 5_000 + 0.75 * (1000 / rps))).toBeCloseTo(1000 / rps)
    }
  })

  it("a sub-millisecond interval lets a millisecond's slots go at one wake-up, and at most two milliseconds' from idle", () => {
    for (const rps of [2_500, 10_000, 50_000]) {
      const p = pacing(rps)
      let given = 0
      while (takeSlot(p, 5_000) === 0) given++
      expect(given, `rps ${rps}`).toBeGreaterThanOrEqual(rps / 1000)
      expect(given, `rps ${rps}`).toBeLessThanOrEqual((2 * rps) / 1000)
      // then a millisecond later, about a millisecond's worth again
      let next = 0
      while (takeSlot(p, 5_001) === 0) next++
      expect(next, `rps ${rps}`).toBeGreaterThanOrEqual(rps / 1000 - 1)
      expect(next, `rps ${rps}`).toBeLessThanOrEqual(rps / 1000 + 1)
    }
  })

  it("a busy caller on millisecond timers reaches the configured rate and never exceeds it", () => {
    for (const rps of [10, 25, 400, 1000, 2_500, 10_000, 50_000]) {
      const at = run(rps, 3 * rps + 1, () => 0)
      const seconds = (at.at(-1)! - at[0]!) / 1000
      expect((at.length - 1) / seconds, `rps ${rps}`).toBeGreaterThanOrEqual(rps * 0.95)
      expect(tightest(at, rps), `rps ${rps}`).toBeGreaterThanOrEqual(975)
    }
  })

  it("timers that wake late: the lateness is made up, within a second's budget", () => {
    let seed = 7
    const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31)
    for (const rps of [10, 25, 1000, 10_000]) {
      const at = run(rps, 3 * rps + 1, () => (random() < 0.2 ? Math.floor(random() * 3 * (1000 / rps + 1)) : 0))
      expect(tightest(at, rps), `rps ${rps}`).toBeGreaterThanOrEqual(975)
      const seconds = (at.at(-1)! - at[0]!) / 1000
      expect((at.length - 1) / seconds, `rps ${rps}`).toBeGreaterThanOrEqual(rps * 0.6)
    }
  })
})
