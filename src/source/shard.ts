/**
 * Shard identifier arithmetic on toncenter's signed-decimal shard ids (the form BlockIdExt carries).
 * Invariant: every function is exact 64-bit arithmetic on bigint; nothing goes through floating point, so ids
 * round-trip byte for byte between toncenter's JSON, the canonical records and the fake upstream.
 */

const MASK64 = (1n << 64n) - 1n

/** The masterchain's (and an unsplit workchain's) shard id, as toncenter prints it. */
export const FULL_SHARD = "-9223372036854775808"

export const toUnsigned = (shard: string): bigint => BigInt.asUintN(64, BigInt(shard))

export const toSigned = (shard: bigint): string => BigInt.asIntN(64, shard).toString()

export const toHex = (shard: string): string => toUnsigned(shard).toString(16).toUpperCase().padStart(16, "0")

const lowBit = (x: bigint): bigint => x & -x & MASK64

/** Number of prefix bits the shard fixes (0 for the full shard). */
export const prefixLength = (shard: string): number => {
  let l = lowBit(toUnsigned(shard))
  let n = 63
  while (l > 1n) {
    l >>= 1n
    n -= 1
  }
  return n
}

export const children = (shard: string): readonly [string, string] => {
  const x = toUnsigned(shard)
  const half = lowBit(x) >> 1n
  if (half === 0n) throw new Error(`shard ${shard} cannot split further`)
  return [toSigned(x - half), toSigned(x + half)]
}

export const parent = (shard: string): string => {
  const x = toUnsigned(shard)
  const l = lowBit(x)
  if (l === 1n << 63n) throw new Error("the full shard has no parent")
  return toSigned(((x - l) | (l << 1n)) & MASK64)
}

/** True when `outer` is `inner` or one of its ancestors. */
export const contains = (outer: string, inner: string): boolean => {
  const a = toUnsigned(outer)
  const b = toUnsigned(inner)
  const la = lowBit(a)
  if (lowBit(b) > la) return false
  const keep = ~((la << 1n) - 1n) & MASK64
  return ((a ^ b) & keep) === 0n
}

export const overlaps = (a: string, b: string): boolean => contains(a, b) || contains(b, a)

/** True when the 256-bit account id (64 hex digits) belongs to the shard. */
export const containsAccount = (shard: string, accountHex: string): boolean => {
  const top = BigInt("0x" + accountHex.slice(0, 16))
  return contains(shard, toSigned(top | 1n))
}

/** Total order used for shard blocks everywhere: workchain, then shard as a signed 64-bit number, then seqno. */
export const compareBlockIds = (
  a: { readonly workchain: number; readonly shard: string; readonly seqno: number },
  b: { readonly workchain: number; readonly shard: string; readonly seqno: number }
): number => {
  if (a.workchain !== b.workchain) return a.workchain - b.workchain
  const sa = BigInt(a.shard)
  const sb = BigInt(b.shard)
  if (sa !== sb) return sa < sb ? -1 : 1
  return a.seqno - b.seqno
}

export const blockKey = (id: { readonly workchain: number; readonly shard: string; readonly seqno: number }): string =>
  `${id.workchain}:${id.shard}:${id.seqno}`
