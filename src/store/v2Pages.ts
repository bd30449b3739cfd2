/**
 * The v2 page of a block cut from its `v2_pages` row (sql/0132, rows made by src/flatten/v2_pages.ts): the first
 * transaction after the cursor is found by a binary search over the row's fixed-width keys, the page's pieces are
 * the span of the row's text from that piece on, `count` pieces long. Measured cheaper than letting the engine cut
 * the row (a lambda over the keys and an array slice cost the engine more than handing over the whole value; see
 * BENCHMARKS.md), and the row is read whole by the key lookup either way.
 * Invariant: the page is the one `SELECT v2 FROM tx_pages ... AND (account, lt) > cursor ORDER BY account, lt LIMIT
 * count` answers for the same pieces: the keys order as (account, lt) do and compare with the cursor as they do.
 */
import { V2_KEY_WIDTH, v2TxKey } from "../flatten/v2_pages.js"
import type { AccountCursor } from "./TxStore.js"

export interface V2PageCut {
  /** The page's pieces joined by commas (the body of the answer's `transactions` array). */
  readonly text: string
  readonly count: number
}

/** Index of the first key after the cursor (0 without one): keys of equal width compare like (account, lt). */
const firstAfter = (keys: string, total: number, after: AccountCursor | null): number => {
  if (after === null) return 0
  const x = v2TxKey(after.account.toUpperCase(), after.lt)
  let lo = 0
  let hi = total
  while (lo < hi) {
    const m = (lo + hi) >>> 1
    const at = m * V2_KEY_WIDTH
    if (keys.slice(at, at + V2_KEY_WIDTH) <= x) lo = m + 1
    else hi = m
  }
  return lo
}

/**
 * Up to `count` pieces after the cursor (a cursor account of 64 hex digits and an lt of at most 20 digits, as the
 * store checks before). Throws on a row whose keys and pieces disagree.
 */
export const cutV2Page = (keys: string, v2: string, after: AccountCursor | null, count: number): V2PageCut => {
  if (keys.length % V2_KEY_WIDTH !== 0) throw new Error(`v2_pages: keys of ${keys.length} characters`)
  const total = keys.length / V2_KEY_WIDTH
  const from = firstAfter(keys, total, after)
  const n = Math.min(count, total - from)
  if (n <= 0) return { text: "", count: 0 }
  let start = 0
  for (let i = 0; i < from; i++) {
    const nl = v2.indexOf("\n", start)
    if (nl < 0) throw new Error(`v2_pages: ${i + 1} pieces for ${total} keys`)
    start = nl + 1
  }
  let end = start
  for (let i = 0; i < n; i++) {
    const nl = v2.indexOf("\n", end)
    if (nl < 0) {
      if (from + i + 1 !== total) throw new Error(`v2_pages: ${from + i + 1} pieces for ${total} keys`)
      end = v2.length + 1
      break
    }
    end = nl + 1
  }
  return { text: v2.slice(start, end - 1).replaceAll("\n", ","), count: n }
}
