/**
 * Integers read from a @ton/core Slice without bigints: @ton/core's loadUint reads every value as a bigint (one
 * bigint power of two per set bit, or one bigint with installFastCellHash's `_preloadUint`) and then checks it against
 * two more bigints it makes each time, which made the body interpreter's fixed-width fields, nibbles and
 * snake-string bytes about a fifth of its time and much of its garbage. Read here bit by bit into numbers, joined as
 * bigints 32 bits at a time only above 48 bits. Invariant: the values and the
 * slice's position are those of loadUintBig / loadIntBig / preloadUint, and reading past the slice's bits throws as
 * they do (test/unit/ton/bodyBits.test.ts compares them).
 */
import type { Slice } from "@ton/core"

/** The fields of @ton/core's Slice, BitReader and BitString the reads below look under (0.63's layout). */
interface RawSlice {
  readonly _reader?: { _offset?: unknown; readonly _bits?: { readonly _data?: unknown; readonly _offset?: unknown; readonly _length?: unknown } }
}

/**
 * n bits at `bit` of `data`, n <= 48, as a number: a byte (or its part) at a time, multiplied rather than shifted so
 * that widths above 31 bits stay exact.
 */
const bitsAt = (data: Uint8Array, bit: number, n: number): number => {
  let v = 0
  let p = bit
  let left = n
  while (left > 0) {
    const within = p & 7
    const take = Math.min(8 - within, left)
    v = v * (1 << take) + ((data[p >> 3]! >> (8 - within - take)) & ((1 << take) - 1))
    p += take
    left -= take
  }
  return v
}

/**
 * n bits ahead of the slice's position read from the bytes under it, n <= 48, or -1 when the slice is not laid out
 * as known or the bits are not all there (the caller then reads through the slice's own methods, whose errors stand).
 */
const rawAhead = (s: Slice, n: number): number => {
  const reader = (s as unknown as RawSlice)._reader
  const bits = reader?._bits
  const data = bits?._data
  const base = bits?._offset
  const offset = reader?._offset
  const length = bits?._length
  if (!(data instanceof Uint8Array) || typeof base !== "number" || typeof offset !== "number") return -1
  if (typeof length !== "number" || n < 0 || offset + n > length) return -1
  return bitsAt(data, base + offset, n)
}

/** An unsigned value of n bits, 0 <= n <= 48, as a number (Slice.loadUint). */
export const loadSmallUint = (s: Slice, n: number): number => {
  const fast = rawAhead(s, n)
  if (fast >= 0) {
    s.skip(n)
    return fast
  }
  let v = 0
  for (let i = 0; i < n; i++) v = v * 2 + (s.loadBit() ? 1 : 0)
  return v
}

/** An unsigned value of n bits, as a bigint (Slice.loadUintBig). */
export const loadUintBits = (s: Slice, n: number): bigint => {
  if (n <= 48) return BigInt(loadSmallUint(s, n))
  const head = n % 32
  let v = BigInt(loadSmallUint(s, head))
  for (let left = n - head; left > 0; left -= 32) v = (v << 32n) | BigInt(loadSmallUint(s, 32))
  return v
}

/** A two's-complement value of n bits, as a bigint (Slice.loadIntBig). */
export const loadIntBits = (s: Slice, n: number): bigint => {
  if (n === 0) return 0n
  if (n <= 48) {
    const u = loadSmallUint(s, n)
    return BigInt(u >= 2 ** (n - 1) ? u - 2 ** n : u)
  }
  return BigInt.asIntN(n, loadUintBits(s, n))
}

/** An unsigned value of n <= 48 bits ahead of the slice's position, which stays where it is (Slice.preloadUint). */
export const preloadSmallUint = (s: Slice, n: number): number => {
  const fast = rawAhead(s, n)
  return fast >= 0 ? fast : loadSmallUint(s.clone(), n)
}
