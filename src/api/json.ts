/**
 * The two JSON dialects the API must reproduce byte for byte. ton-http-api (v2) answers with Python's
 * `json.dumps(separators=(",", ":"), ensure_ascii=False)`, which equals JSON.stringify for the values we
 * send; ton-index-go (v3) answers with Go's encoding/json, which additionally escapes <, >, & and U+2028/9.
 * Invariant: key order is the insertion order of the objects we build; nothing here reorders or coerces.
 */

export const pythonJson = (value: unknown): string => JSON.stringify(value)

const goEscapes: Record<string, string> = {
  "<": "\\u003c",
  ">": "\\u003e",
  "&": "\\u0026",
  "\u2028": "\\u2028",
  "\u2029": "\\u2029"
}

/**
 * Whether JSON text holds a character Go escapes: five scans by `includes` (memchr-like) instead of one regular
 * expression, which costs ~20x more per character and ran over every rendered transaction, most holding none.
 */
export const holdsGoEscaped = (text: string): boolean =>
  text.includes("<") || text.includes(">") || text.includes("&") || text.includes("\u2028") || text.includes("\u2029")

// These characters cannot occur in JSON outside string literals, so a global replace only touches strings.
/** JSON text (JSON.stringify's) with the characters Go escapes escaped as Go does. */
export const goEscaped = (text: string): string =>
  holdsGoEscaped(text) ? text.replace(/[<>&\u2028\u2029]/g, (c) => goEscapes[c]!) : text

export const goJson = (value: unknown): string => goEscaped(JSON.stringify(value))

/** Go's map key order for the keys the API writes (ASCII: byte-wise ascending), as a sort comparator. */
export const goKeyOrder = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0)

// goSorted packs a key's first 6 characters (7 bits each) and its index (11 bits) into one exact double
const PACKED_CHARS = 6
const PACKED_INDEXES = 2048

/**
 * `Array.from(keys).sort(goKeyOrder)`, made by sorting numbers: each key's first six characters and its position
 * packed into a Float64Array, sorted natively (no comparator call per comparison, no string comparison for keys
 * that differ early), keys sharing those characters then ordered among themselves by goKeyOrder. Lists longer than
 * 2,048 keys, or with a character above U+007F among the first six, are sorted by goKeyOrder as they are.
 */
export const goSorted = (keys: Iterable<string>): Array<string> => {
  const list = Array.from(keys)
  const n = list.length
  if (n < 2) return list
  if (n > PACKED_INDEXES) return list.sort(goKeyOrder)
  const packed = new Float64Array(n)
  for (let i = 0; i < n; i++) {
    const s = list[i]!
    let k = 0
    for (let j = 0; j < PACKED_CHARS; j++) {
      // a key shorter than six characters is padded with 0, which sorts it before its extensions (ties are compared)
      const c = j < s.length ? s.charCodeAt(j) : 0
      if (c > 127) return list.sort(goKeyOrder)
      k = k * 128 + c
    }
    packed[i] = k * PACKED_INDEXES + i
  }
  packed.sort()
  const out = new Array<string>(n)
  for (let i = 0; i < n; i++) out[i] = list[packed[i]! % PACKED_INDEXES]!
  let start = 0
  for (let i = 1; i <= n; i++) {
    if (i < n && Math.floor(packed[i]! / PACKED_INDEXES) === Math.floor(packed[start]! / PACKED_INDEXES)) continue
    if (i - start > 1) {
      const run = out.slice(start, i).sort(goKeyOrder)
      for (let j = 0; j < run.length; j++) out[start + j] = run[j]!
    }
    start = i
  }
  return out
}

/** A copy of a string-keyed map with keys in Go's map order (byte-wise ascending). */
export const sortedRecord = <V>(entries: Iterable<readonly [string, V]>): Record<string, V> => {
  const list = Array.from(entries).sort(([a], [b]) => goKeyOrder(a, b))
  const out: Record<string, V> = {}
  for (const [k, v] of list) out[k] = v
  return out
}
