/**
 * JSON request bodies whose integers may exceed 2^53 (JSON-RPC clients send shards such as
 * 2305843009213693952 as bare numbers). Invariant: every integer literal that a double cannot hold
 * exactly reaches the handler as its exact decimal text; all other values parse as JSON.parse would.
 */

const isDigit = (c: number): boolean => c >= 48 && c <= 57

/** JSON.parse, except that integer literals outside the safe range become decimal strings. */
export const parseJsonExact = (text: string): unknown => {
  let out = ""
  let last = 0
  let i = 0
  const n = text.length
  while (i < n) {
    const c = text.charCodeAt(i)
    if (c === 34) {
      // skip a string literal, honouring escapes
      i++
      while (i < n) {
        const d = text.charCodeAt(i)
        if (d === 92) i += 2
        else if (d === 34) break
        else i++
      }
      i++
    } else if (c === 45 || isDigit(c)) {
      const start = i
      i++
      while (i < n && isDigit(text.charCodeAt(i))) i++
      const next = i < n ? text[i] : ""
      const isInteger = next !== "." && next !== "e" && next !== "E"
      if (isInteger) {
        const literal = text.slice(start, i)
        if (!Number.isSafeInteger(Number(literal)) && /^-?(0|[1-9][0-9]*)$/.test(literal)) {
          out += text.slice(last, start) + `"${literal}"`
          last = i
        }
      } else {
        while (i < n && /[0-9.eE+-]/.test(text[i]!)) i++
      }
    } else {
      i++
    }
  }
  return JSON.parse(last === 0 ? text : out + text.slice(last))
}
