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
export const uint32Array = (xs: ReadonlyArray<number>): string => {
  if (xs.length === 0) throw new RangeError("empty array literal")
  return `[${xs.map(uint32).join(",")}]`
}
