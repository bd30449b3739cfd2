// The body interpreter's integer reads (src/ton/bodies/bits.ts) against @ton/core's own, their reference: random bit
// strings read at random offsets with every width from 0 to 257 bits give the same values and leave the slice at the
// same position; a read past the slice's bits throws in both.
import { beginCell, BitString, Cell, type Slice } from "@ton/core"
import { describe, expect, it } from "vitest"
import { loadIntBits, loadSmallUint, loadUintBits, preloadSmallUint } from "../../../src/ton/bodies/bits.js"

// a small deterministic generator (mulberry32), so that a failure is reproducible
const random = (seed: number) => () => {
  seed = (seed + 0x6d2b79f5) | 0
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296
}

const slices = (next: () => number, bits: number, skip: number): [Slice, Slice] => {
  const b = beginCell()
  for (let i = 0; i < bits; i++) b.storeBit(next() < 0.5)
  const cell = b.endCell()
  const [x, y] = [cell.beginParse(), cell.beginParse()]
  x.skip(skip)
  y.skip(skip)
  return [x, y]
}

describe("body interpreter's integer reads against @ton/core's", () => {
  it("read the same values and leave the slice at the same position", () => {
    const next = random(20261127)
    let reads = 0
    for (let round = 0; round < 12; round++) {
      for (let n = 0; n <= 257; n++) {
        const skip = Math.floor(next() * 40)
        const [ours, theirs] = slices(next, Math.min(1023, skip + n + Math.floor(next() * 8)), skip)
        expect(loadUintBits(ours, n)).toBe(theirs.loadUintBig(n))
        expect(ours.remainingBits).toBe(theirs.remainingBits)
        const [a, b] = slices(next, Math.min(1023, skip + n), skip)
        expect(loadIntBits(a, n)).toBe(n === 0 ? 0n : b.loadIntBig(n))
        expect(a.remainingBits).toBe(b.remainingBits)
        if (n <= 48) {
          const [c, d] = slices(next, skip + n, skip)
          expect(preloadSmallUint(c, n)).toBe(d.preloadUint(n))
          expect(c.remainingBits).toBe(d.remainingBits)
          expect(loadSmallUint(c, n)).toBe(d.loadUint(n))
          expect(c.remainingBits).toBe(d.remainingBits)
        }
        reads++
      }
    }
    expect(reads).toBe(12 * 258)
  })

  it("read bits that start inside a larger buffer (a cell of a parsed bag) as @ton/core does", () => {
    // a bag's reader makes each cell's bits a window on the bag's bytes: the reads start at the window's offset
    const next = random(20261128)
    const bytes = Buffer.from(Array.from({ length: 96 }, () => Math.floor(next() * 256)))
    for (let base = 0; base < 40; base += 3) {
      const length = 700 - base
      const cell = new Cell({ bits: new BitString(bytes, base, length) })
      for (let skip = 0; skip < 20; skip += 7) {
        for (const n of [0, 1, 4, 7, 8, 9, 13, 31, 32, 33, 47, 48]) {
          const [ours, theirs] = [cell.beginParse(), cell.beginParse()]
          ours.skip(skip)
          theirs.skip(skip)
          expect(preloadSmallUint(ours, n)).toBe(theirs.preloadUint(n))
          expect(loadSmallUint(ours, n)).toBe(theirs.loadUint(n))
          expect(ours.remainingBits).toBe(theirs.remainingBits)
          expect(loadUintBits(ours, 257)).toBe(theirs.loadUintBig(257))
          expect(loadIntBits(ours, 64)).toBe(theirs.loadIntBig(64))
          expect(ours.remainingBits).toBe(theirs.remainingBits)
        }
      }
    }
  })

  it("reads all-ones and the sign bit alone as @ton/core does", () => {
    for (const n of [1, 8, 31, 32, 33, 47, 48, 49, 63, 64, 65, 128, 256, 257]) {
      for (const fill of [true, false]) {
        const b = beginCell()
        for (let i = 0; i < n; i++) b.storeBit(fill || i === 0)
        const cell = b.endCell()
        expect(loadUintBits(cell.beginParse(), n)).toBe(cell.beginParse().loadUintBig(n))
        expect(loadIntBits(cell.beginParse(), n)).toBe(cell.beginParse().loadIntBig(n))
      }
    }
  })

  it("throws on a read past the slice's bits, as @ton/core does", () => {
    const cell = beginCell().storeUint(5, 10).endCell()
    expect(() => cell.beginParse().loadUintBig(11)).toThrow()
    expect(() => loadUintBits(cell.beginParse(), 11)).toThrow()
    expect(() => loadIntBits(cell.beginParse(), 60)).toThrow()
    expect(() => loadSmallUint(cell.beginParse(), 11)).toThrow()
    expect(() => preloadSmallUint(cell.beginParse(), 11)).toThrow()
  })
})
