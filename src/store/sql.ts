/**
 * SQL literals for the store's reads. Embedded chdb runs statements that carry query parameters one at a time across
 * the whole process (its parameter binding is not isolated per connection), so reads that should be able to run side
 * by side on several connections spell their values as literals instead.
 * Invariant: every value reaches the SQL text through one of these functions: numbers only when they are integers of
 * the stated range, strings always quoted with backslash and quote escaped, so no value can end its literal.
 */

const integer = (n: number, lo: number, hi: number, what: string): string => {
  if (!Number.isSafeInteger(n) || n < lo || n > hi) throw new RangeError(`${what}: ${n} is not an integer in range`)
  return String(n)
}

export const uint32 = (n: number): string => integer(n, 0, 0xffffffff, "UInt32")
export const int32 = (n: number): string => integer(n, -0x80000000, 0x7fffffff, "Int32")
export const uint64Number = (n: number): string => integer(n, 0, Number.MAX_SAFE_INTEGER, "UInt64")

/** A 64-bit integer given as decimal text, typed so that its range is the column's, not the literal's. */
export const int64 = (s: string): string => {
  if (!/^-?\d{1,19}$/.test(s)) throw new RangeError(`Int64: ${JSON.stringify(s)} is not decimal text`)
  return `toInt64(${str(s)})`
}
export const uint64 = (s: string): string => {
  if (!/^\d{1,20}$/.test(s)) throw new RangeError(`UInt64: ${JSON.stringify(s)} is not decimal text`)
  return `toUInt64(${str(s)})`
}

export const str = (s: string): string => `'${s.replace(/\\/g, "\\\\").replace(/'/g, "\\'")}'`

/** A non-empty array of strings (an empty one has no element type to infer). */
export const strArray = (xs: ReadonlyArray<string>): string => {
  if (xs.length === 0) throw new RangeError("empty array literal")
  return `[${xs.map(str).join(",")}]`
}
/**
 * A non-empty set of keys for `IN`, as the split of one string literal when no key is empty or holds a space (hashes,
 * raw addresses, block ids): the engine's parser then reads one literal instead of one per key, ~3 us of CPU less per
 * key (a shared lookups statement carries ~2,000 of them); otherwise an array literal. The key condition is the same:
 * a key-value table is still read by point lookups, a sorted table by its key ranges.
 */
export const strKeys = (xs: ReadonlyArray<string>): string => {
  if (xs.length === 0) throw new RangeError("empty array literal")
  return xs.every((x) => x.length > 0 && !x.includes(" ")) ? `splitByChar(' ', ${str(xs.join(" "))})` : strArray(xs)
}
export const uint32Array = (xs: ReadonlyArray<number>): string => {
  if (xs.length === 0) throw new RangeError("empty array literal")
  return `[${xs.map(uint32).join(",")}]`
}
