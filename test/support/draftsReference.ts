/**
 * The transactions topic's drafts as first written (src/kafka/transactions.ts before the v3 text renderer): each
 * transaction's v3 object tree (renderV3Transaction) through goJson, cut at `prev_trans_hash` for the trace id's room.
 * Kept as the reference the project's drafts are compared with (test/unit/kafka/draftsDifferential.test.ts) and
 * measured against (bench/decodeWorker.ts).
 */
import { draftFields, type Drafts, storedStates, type TransactionDraft } from "../../src/kafka/transactions.js"
import type { MasterchainBundle } from "../../src/ton/record.js"
import { goJsonStringify, renderV3Transaction } from "../../src/ton/v3.js"

const PREV_KEY = ',"prev_trans_hash":'
const TRACE_ID_CHARS = 44
const TRACE_HEAD = ',"trace_id":"'
const TRACE_ROOM = TRACE_HEAD.length + TRACE_ID_CHARS + 1

export const draftTransactionsReference = (bundle: MasterchainBundle): Drafts => {
  const states = storedStates(bundle.account_states)
  const jsons: Array<string> = []
  let bytes = 0
  for (const tx of bundle.transactions) {
    const json = goJsonStringify(renderV3Transaction({ ...tx, trace_id: null }, states))
    jsons.push(json)
    bytes += Buffer.byteLength(json, "utf8") + TRACE_ROOM
  }
  const out = Buffer.allocUnsafeSlow(bytes)
  let at = 0
  const list = bundle.transactions.map((tx, i): TransactionDraft => {
    const json = jsons[i]!
    const cut = json.indexOf(PREV_KEY)
    const start = at
    at += out.write(json.slice(0, cut), at, "utf8")
    at += out.write(TRACE_HEAD, at, "latin1")
    const gap = at
    out.fill(0x20, at, at + TRACE_ID_CHARS)
    at += TRACE_ID_CHARS
    out[at++] = 0x22
    at += out.write(json.slice(cut), at, "utf8")
    return {
      ...draftFields(tx, states),
      start,
      end: at,
      gap
    }
  })
  return { bytes: out, list }
}
