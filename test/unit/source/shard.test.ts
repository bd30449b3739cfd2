import { describe, expect, it } from "vitest"
import {
  children,
  compareBlockIds,
  contains,
  containsAccount,
  FULL_SHARD,
  overlaps,
  parent,
  prefixLength,
  toHex
} from "../../../src/source/shard.js"

// the four basechain shards of a real mainnet /shards answer (drpc fixture, Nov 2024)
const real = ["2305843009213693952", "6917529027641081856", "-6917529027641081856", "-2305843009213693952"]

describe("shard arithmetic on toncenter's signed decimal ids", () => {
  it("splits and merges exactly", () => {
    expect(children(FULL_SHARD)).toEqual(["4611686018427387904", "-4611686018427387904"])
    expect(children("4611686018427387904")).toEqual([real[0], real[1]])
    expect(children("-4611686018427387904")).toEqual([real[2], real[3]])
    for (const s of real) expect(children(parent(s))).toContain(s)
    expect(parent("4611686018427387904")).toBe(FULL_SHARD)
    expect(toHex(real[0]!)).toBe("2000000000000000")
    expect(toHex(FULL_SHARD)).toBe("8000000000000000")
  })

  it("knows prefix lengths, containment and overlap", () => {
    expect(prefixLength(FULL_SHARD)).toBe(0)
    expect(real.map(prefixLength)).toEqual([2, 2, 2, 2])
    expect(contains(FULL_SHARD, real[3]!)).toBe(true)
    expect(contains(real[3]!, FULL_SHARD)).toBe(false)
    expect(contains("4611686018427387904", real[2]!)).toBe(false)
    expect(overlaps(real[0]!, real[1]!)).toBe(false)
    expect(overlaps(real[0]!, "4611686018427387904")).toBe(true)
  })

  it("places accounts by their top bits", () => {
    expect(containsAccount(real[0]!, "1F" + "0".repeat(62))).toBe(true)
    expect(containsAccount(real[0]!, "40" + "0".repeat(62))).toBe(false)
    expect(containsAccount(real[3]!, "E3" + "0".repeat(62))).toBe(true)
    expect(containsAccount(FULL_SHARD, "FF".repeat(32))).toBe(true)
  })

  it("orders blocks by workchain, signed shard, seqno", () => {
    const ids = real.map((shard, i) => ({ workchain: 0, shard, seqno: 10 - i }))
    const mc = { workchain: -1, shard: FULL_SHARD, seqno: 99 }
    const sorted = [...ids, mc].sort(compareBlockIds)
    expect(sorted[0]).toBe(mc)
    expect(sorted.slice(1).map((b) => b.shard)).toEqual([real[2], real[3], real[0], real[1]])
  })
})
