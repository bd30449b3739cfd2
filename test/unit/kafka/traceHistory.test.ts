// The publish step's off-heap trace history against the Lru it replaced: the same answers to the same sequence of
// lookups and stores (recency moved by lookups, the least recent evicted first), including keys that share buckets,
// re-stored keys and keys that are not base64 hashes.
import { createHash } from "node:crypto"
import { describe, expect, it } from "vitest"
import { TraceHistory } from "../../../src/kafka/traceHistory.js"
import { Lru } from "../../../src/trace/Lru.js"

const hash = (i: number, salt = "m") => createHash("sha256").update(`${salt}${i}`).digest("base64")

/** Deterministic pseudo-random numbers (xorshift32), so a failure replays. */
const rng = (seed: number) => () => {
  seed ^= seed << 13
  seed ^= seed >>> 17
  seed ^= seed << 5
  return (seed >>> 0) / 2 ** 32
}

describe("TraceHistory", () => {
  it("answers as an Lru of the same capacity over a random mix of lookups and stores", () => {
    for (const capacity of [1, 2, 7, 100, 1000]) {
      const ours = new TraceHistory(capacity)
      const ref = new Lru<string, string>(capacity)
      const next = rng(capacity * 7919 + 1)
      const universe = capacity * 3 + 5
      let hits = 0
      for (let step = 0; step < 20_000; step++) {
        const key = hash(Math.floor(next() * universe))
        if (next() < 0.5) {
          const got = ours.get(key)
          expect(got).toBe(ref.get(key))
          if (got !== undefined) hits++
        } else {
          const value = hash(Math.floor(next() * 1e9), "t")
          ours.set(key, value)
          ref.set(key, value)
        }
        expect(ours.size).toBe(ref.size)
      }
      // Both outcomes must occur, or the comparison proves little.
      expect(hits).toBeGreaterThan(100)
    }
  })

  it("evicts the least recently used entry, a lookup making an entry recent", () => {
    const h = new TraceHistory(3)
    h.set(hash(1), hash(1, "t"))
    h.set(hash(2), hash(2, "t"))
    h.set(hash(3), hash(3, "t"))
    expect(h.get(hash(1))).toBe(hash(1, "t"))
    h.set(hash(4), hash(4, "t"))
    expect(h.get(hash(2))).toBeUndefined()
    expect(h.get(hash(1))).toBe(hash(1, "t"))
    expect(h.get(hash(3))).toBe(hash(3, "t"))
    expect(h.get(hash(4))).toBe(hash(4, "t"))
    // A key stored again takes its new value and becomes recent.
    h.set(hash(1), hash(9, "t"))
    h.set(hash(5), hash(5, "t"))
    expect(h.get(hash(3))).toBeUndefined()
    expect(h.get(hash(1))).toBe(hash(9, "t"))
    expect(h.size).toBe(3)
  })

  it("finds keys that share a bucket (same first twelve characters)", () => {
    const h = new TraceHistory(64)
    const keys = Array.from({ length: 40 }, (_, i) => `AAAAAAAAAAAA${hash(i).slice(12)}`)
    keys.forEach((k, i) => h.set(k, hash(i, "t")))
    keys.forEach((k, i) => expect(h.get(k)).toBe(hash(i, "t")))
    expect(h.get(`AAAAAAAAAAAA${hash(99).slice(12)}`)).toBeUndefined()
  })

  it("keeps keys and values that are not base64 hashes, exactly", () => {
    const h = new TraceHistory(4)
    h.set("short", hash(1, "t"))
    h.set(hash(2), "not-a-hash")
    h.set(hash(3), hash(3, "t"))
    expect(h.get("short")).toBe(hash(1, "t"))
    expect(h.get(hash(2))).toBe("not-a-hash")
    expect(h.get(hash(3))).toBe(hash(3, "t"))
    expect(h.size).toBe(3)
  })
})

describe("TraceHistory, entries that are not plain hashes", () => {
  it("moves a key between its table and the side map as its value changes kind", () => {
    const h = new TraceHistory(4)
    h.set(hash(1), hash(1, "t"))
    h.set(hash(1), "odd")
    expect(h.get(hash(1))).toBe("odd")
    expect(h.size).toBe(1)
    h.set(hash(1), hash(2, "t"))
    expect(h.get(hash(1))).toBe(hash(2, "t"))
    expect(h.size).toBe(1)
    // The slot freed above is reused, and the table still fills to its capacity.
    for (let i = 2; i <= 6; i++) h.set(hash(i), hash(i, "t"))
    expect(h.size).toBe(4)
    expect(h.get(hash(6))).toBe(hash(6, "t"))
    expect(h.get(hash(2))).toBeUndefined()
  })
})
