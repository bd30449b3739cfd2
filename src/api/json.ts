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

/** A copy of a string-keyed map with keys in Go's map order (byte-wise ascending). */
export const sortedRecord = <V>(entries: Iterable<readonly [string, V]>): Record<string, V> => {
  const list = Array.from(entries).sort(([a], [b]) => goKeyOrder(a, b))
  const out: Record<string, V> = {}
  for (const [k, v] of list) out[k] = v
  return out
}
