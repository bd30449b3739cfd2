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

/** An unsigned value of n bits, 0 <= n <= 48, as a number (Slice.loadUint). */
export const loadSmallUint = (s: Slice, n: number): number => {
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
export const preloadSmallUint = (s: Slice, n: number): number => loadSmallUint(s.clone(), n)
