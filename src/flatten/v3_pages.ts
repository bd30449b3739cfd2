/**
 * A masterchain block's `tx_pages` rows -> its one `v3_pages` row (sql/0131): per transaction one line
 * `state_before \t state_after \t book \t v3` (the address-book addresses space-joined, the v3 piece last), the lines
 * in the order a descending v3 page lists them (lt descending, then account ascending: the `tx_pages` statement's
 * order), and per line its position in an ascending page (lt ascending, then account ascending: not the reverse
 * where lts tie), 1-based. A page of any offset, limit and order is then one key lookup and a cut of that row
 * (ClickHouseTxStore.v3PageText). Every done masterchain block has a row, one without transactions an empty one.
 * A state field is the state's hash, or, when the writer knew the state (`stateJson`), the state's v3 JSON as the read
 * path renders it from `account_lookups_kv` (it starts with `{`, which no base64 hash does): the reader then looks up
 * only the hashes left (src/store/pages.ts v3StateJson). A state is immutable per hash, so the JSON never goes stale.
 * Invariant: the row holds exactly the block's pieces, so a page cut from it is the page read from `tx_pages`.
 */
import type { TxPageRow } from "../store/pages.js"

export interface V3PageRow {
  readonly mc_block_seqno: number
  /** Per line, its 1-based position in ascending page order. */
  readonly asc_rank: Array<number>
  readonly lines: Array<string>
}

/** The piece fields a row is made of (the consumer's TxPageRow has them; a backfill reads only these). */
export type V3PagePiece = Pick<TxPageRow, "account" | "lt" | "state_before" | "state_after" | "book" | "v3">

const ltCompare = (a: V3PagePiece, b: V3PagePiece): number => {
  const la = BigInt(a.lt)
  const lb = BigInt(b.lt)
  return la === lb ? 0 : la < lb ? -1 : 1
}

/** Accounts compare as the engine compares strings: by bytes (raw addresses are ASCII). */
const accountCompare = (a: V3PagePiece, b: V3PagePiece): number =>
  a.account < b.account ? -1 : a.account > b.account ? 1 : 0

/** Descending page order: lt descending, then account ascending. */
export const descOrder = (a: V3PagePiece, b: V3PagePiece): number => -ltCompare(a, b) || accountCompare(a, b)

/** Ascending page order: lt ascending, then account ascending. */
export const ascOrder = (a: V3PagePiece, b: V3PagePiece): number => ltCompare(a, b) || accountCompare(a, b)

/** A raw tab, newline or carriage return (`includes` scans: a regex costs ~20x more per character of the pieces). */
const holdsTabOrNewline = (s: string): boolean => s.includes("\t") || s.includes("\n") || s.includes("\r")

/**
 * A known state's v3 JSON by its hash, undefined for a state the writer does not know (its line keeps the hash). It
 * must answer what the read path renders from the state's `account_lookups_kv` row (src/store/pages.ts
 * embeddedStateJson), and nothing for a hash-only state.
 */
export type StateJson = (hash: string) => string | undefined

const NO_STATE_JSON: StateJson = () => undefined

/**
 * The row of masterchain block `mc_block_seqno` from all its pieces (none: the empty row), each state the writer
 * knows (`stateJson`) embedded as its JSON.
 */
export const v3PageRow = (
  mc_block_seqno: number,
  pieces: ReadonlyArray<V3PagePiece>,
  stateJson: StateJson = NO_STATE_JSON
): V3PageRow => {
  // Each lt read as a number once (descOrder and ascOrder read two per comparison); index sorts, stable as theirs.
  const lts = pieces.map((p) => BigInt(p.lt))
  const byLt = (i: number, j: number): number => (lts[i]! === lts[j]! ? 0 : lts[i]! < lts[j]! ? -1 : 1)
  const byAccount = (i: number, j: number): number => accountCompare(pieces[i]!, pieces[j]!)
  const order = pieces.map((_, i) => i)
  const desc = [...order].sort((i, j) => byLt(j, i) || byAccount(i, j))
  const rank = new Array<number>(pieces.length)
  order.sort((i, j) => byLt(i, j) || byAccount(i, j)).forEach((k, r) => (rank[k] = r + 1))
  const lines = desc.map((k) => {
    const p = pieces[k]!
    const book = p.book.join(" ")
    const before = stateJson(p.state_before) ?? p.state_before
    const after = stateJson(p.state_after) ?? p.state_after
    for (const field of [before, after, book, p.v3]) {
      // the line's fields split at tabs, the page's lines at newlines (compact JSON holds neither raw)
      if (holdsTabOrNewline(field)) throw new Error(`v3_pages: a field of ${p.account} ${p.lt} holds a tab or newline`)
    }
    return `${before}\t${after}\t${book}\t${p.v3}`
  })
  return { mc_block_seqno, asc_rank: desc.map((k) => rank[k]!), lines }
}
