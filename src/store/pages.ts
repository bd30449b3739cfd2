/**
 * The read path's pre-rendered pieces (`tx_pages`, sql/0100): per transaction, its v3 JSON up to the account states,
 * its whole v2 JSON and the addresses its v3 address book lists, made once at ingest (or by the backfill) with the
 * same renderers the API uses; and the few read-time parts (account states, address book, page envelopes).
 * Invariant: an answer assembled from these pieces is byte-identical to rendering the assembled records, because the
 * pieces ARE that rendering, cut at a place whose remainder is recomputed from the same inputs (`txPageRow` checks
 * the cut against the recomputed remainder and refuses a transaction where they differ).
 */
import { goJson, pythonJson } from "../api/json.js"
import type { AccountStateRecord, RawAddress, TransactionRecord } from "../ton/record.js"
import { renderV2Transaction } from "../ton/v2.js"
import { renderV3AccountState, v3TransactionClosing } from "../ton/v3.js"
import { v3TransactionText } from "../ton/v3Text.js"
import type { V3PageText } from "./TxStore.js"

export interface TxPageRow {
  readonly mc_block_seqno: number
  readonly block_workchain: number
  readonly block_shard: string
  readonly block_seqno: number
  readonly account: string
  readonly lt: string
  readonly state_before: string
  readonly state_after: string
  readonly book: ReadonlyArray<RawAddress>
  readonly v3: string
  readonly v2: string
}

/** A transaction whose rendering cannot be cut where the read path expects: a renderer contract change. */
export class PageRenderError extends Error {
  override readonly name = "PageRenderError"
}

const NO_STATES: ReadonlyMap<string, AccountStateRecord> = new Map()
const STATES_KEY = ',"account_state_before":'

// The JSON of a state `states` does not hold, around its hash's JSON: every other field null (no character Go
// escapes outside the hash), so it is cut once from the rendering of a placeholder hash.
const [ABSENT_HEAD, ABSENT_TAIL] = ((): [string, string] => {
  const text = goJson(renderV3AccountState("x", NO_STATES))
  const at = text.indexOf('"x"')
  return [text.slice(0, at), text.slice(at + 3)]
})()

/**
 * Whether a state field of a `v3_pages` line is the state's JSON embedded by its writer (src/flatten/v3_pages.ts) rather
 * than its hash: JSON starts with `{`, a base64 hash never does.
 */
export const isEmbeddedState = (field: string): boolean => field.charCodeAt(0) === 0x7b

/**
 * A known state's JSON as a page renders it (`v3StateJson` with the state in `states`): what a writer embeds in a
 * `v3_pages` line. Give it the state as the read path would read it back from `account_lookups_kv` (extra currencies
 * null exactly when the balance is), never a hash-only one (the read path renders that as absent).
 */
export const embeddedStateJson = (s: AccountStateRecord): string =>
  goJson(renderV3AccountState(s.hash, new Map([[s.hash, s]])))

/**
 * `goJson(renderV3AccountState(hash, states))`, without the object walk for a state `states` does not hold; a field
 * holding the state's embedded JSON (isEmbeddedState) is that JSON.
 */
const v3StateJson = (field: string, states: ReadonlyMap<string, AccountStateRecord>): string =>
  isEmbeddedState(field)
    ? field
    : states.has(field)
      ? goJson(renderV3AccountState(field, states))
      : ABSENT_HEAD + goJson(field) + ABSENT_TAIL

/**
 * What follows a transaction's `v3` piece: its account states as `states` holds them (or as embedded in the fields),
 * then the closing keys.
 */
export const v3Tail = (before: string, after: string, states: ReadonlyMap<string, AccountStateRecord>): string =>
  `${STATES_KEY}${v3StateJson(before, states)},"account_state_after":` +
  `${v3StateJson(after, states)}${v3TransactionClosing()}`

const PAGE_HEAD = '{"transactions":['
const PAGE_BOOK = '],"address_book":'

/**
 * A v3 transactions answer from a page's pieces and its address book's JSON text (`{}` without one), as bytes: the
 * pieces are copied once, from the store's bytes into the answer, never decoded into text and encoded again.
 * Equal to the UTF-8 of `{"transactions":[piece + v3Tail, ...],"address_book":book}`.
 */
export const v3PageAnswer = (page: V3PageText, book: string): Buffer => {
  const tails = page.txs.map((t) => v3Tail(t.before, t.after, page.states))
  // a UTF-16 unit is at most 3 bytes of UTF-8: room enough, the answer is the written prefix
  let room = PAGE_HEAD.length + PAGE_BOOK.length + 1 + 3 * book.length
  for (let i = 0; i < tails.length; i++) room += page.txs[i]!.v3.length + 3 * tails[i]!.length + 1
  const out = Buffer.allocUnsafe(room)
  let at = out.write(PAGE_HEAD, 0, "latin1")
  for (let i = 0; i < tails.length; i++) {
    if (i > 0) out[at++] = 0x2c // ,
    at += page.txs[i]!.v3.copy(out, at)
    at += out.write(tails[i]!, at, "utf8")
  }
  at += out.write(PAGE_BOOK, at, "latin1")
  at += out.write(book, at, "utf8")
  out[at++] = 0x7d // }
  return out.subarray(0, at)
}

/** The raw addresses of a transaction's address-book entries (account, in-message source, out destinations). */
export const bookAddresses = (tx: TransactionRecord): Array<RawAddress> => {
  const seen = new Set<RawAddress>([tx.account])
  if (tx.in_msg?.source) seen.add(tx.in_msg.source)
  for (const m of tx.out_msgs) if (m.destination) seen.add(m.destination)
  return [...seen]
}

export const txPageRow = (tx: TransactionRecord): TxPageRow => {
  const full = v3TransactionText(tx, NO_STATES)
  const cut = full.lastIndexOf(STATES_KEY)
  if (cut < 0 || full.slice(cut) !== v3Tail(tx.account_state_hash_before, tx.account_state_hash_after, NO_STATES)) {
    throw new PageRenderError(`tx ${tx.hash}: v3 rendering does not end with the account states`)
  }
  const v3 = full.slice(0, cut)
  const v2 = pythonJson(renderV2Transaction(tx))
  // The read path takes pieces as raw tab-separated text: compact JSON never holds a raw tab or newline.
  if (v3.includes("\t") || v3.includes("\n") || v2.includes("\t") || v2.includes("\n")) {
    throw new PageRenderError(`tx ${tx.hash}: a piece holds a raw tab or newline`)
  }
  return {
    mc_block_seqno: tx.mc_block_seqno,
    block_workchain: tx.block.workchain,
    block_shard: tx.block.shard,
    block_seqno: tx.block.seqno,
    account: tx.account,
    lt: tx.lt,
    state_before: tx.account_state_hash_before,
    state_after: tx.account_state_hash_after,
    book: bookAddresses(tx),
    v3,
    v2
  }
}

/** The columns of `tx_pages` in the order `txPageRow` makes them (insert statements name them). */
export const TX_PAGE_COLUMNS: ReadonlyArray<keyof TxPageRow> = [
  "mc_block_seqno",
  "block_workchain",
  "block_shard",
  "block_seqno",
  "account",
  "lt",
  "state_before",
  "state_after",
  "book",
  "v3",
  "v2"
]
