/**
 * The v3 Transaction JSON written as text straight from the record: what `goJson(renderV3Transaction(tx, states,
 * shape))` gives, without the object tree and the serializer's walk over it, and with each message body's decoding
 * rendered once per body hash (the producer renders an internal message twice: as its sender's out-message and as
 * its receiver's in-message), or taken from the texts a bundle record brought (the producer's, at the same body
 * decoder release). Invariant: byte-identical to the object renderers of v3.ts through goJson, which stay
 * the reference (test/unit/ton/v3Text.test.ts compares them over every fixture and a generated chain's transactions).
 */
import { Cell } from "@ton/core"
import { goJson } from "../api/json.js"
import { decodeBodyBoc, opcodeName, rememberedBody } from "./bodies/decode.js"
import { BODY_DECODER_VERSION } from "./bodies/version.js"
import type {
  AccountStateRecord,
  DecodedBodies,
  ExtraCurrencies,
  HashB64,
  MessageRecord,
  TransactionRecord,
  TxDescription
} from "./record.js"
import { goString, loadSnakeLenient } from "./text.js"
import { opcodeHex, shardHex, type V3Shape } from "./v3.js"
import { Lru, type LruStats } from "../trace/Lru.js"

// A string JSON and Go write as it stands between quotes: printable ASCII without '"', '\' and Go's <, >, &.
const PLAIN = /^[\x20\x21\x23-\x25\x27-\x3b\x3d\x3f-\x5b\x5d-\x7e]*$/

/** A string as Go's encoding/json writes it; `null` for null. */
const str = (s: string | null): string => (s === null ? "null" : PLAIN.test(s) ? `"${s}"` : goJson(s))

const bool = (b: boolean | null): string => (b === null ? "null" : b ? "true" : "false")

/** An extra-currency map (insertion order, as JSON.stringify keeps it); `{}` without entries. */
const currencies = (c: ExtraCurrencies | null): string => {
  if (c === null) return "null"
  for (const _ in c) return goJson(c)
  return "{}"
}

/** Most text the decodings kept below take together, per thread (UTF-16 units, ~bytes for their ASCII). */
export const BODY_TEXT_MEMO_CHARS = 16 * 1024 * 1024

const textMemo = (chars: number) => new Lru<HashB64, string>(4096, { maxWeight: chars, weigh: (t) => 32 + t.length })
let texts = textMemo(BODY_TEXT_MEMO_CHARS)

/** This thread's text memo (weight in characters). */
export const bodyTextMemoStats = (): LruStats => texts.stats()

/** A fresh, empty text memo of at most `chars` on this thread (benches measuring what a size catches). */
export const resetBodyTextMemo = (chars: number = BODY_TEXT_MEMO_CHARS): void => {
  texts = textMemo(chars)
}

/** A bundle, or what of it the shipped texts are read from. */
type WithBodies = { readonly decoded_bodies?: DecodedBodies | undefined }

// While a bundle that brought its bodies' texts is flattened: those texts (see withShippedBodies).
let shipped: Readonly<Record<HashB64, string>> | undefined
// While the producer drafts a bundle: every non-null text rendered, by hash (see gatherBodyTexts).
let gathered: Map<HashB64, string> | undefined

/**
 * `goJson(decodeMessageBody(hash, boc))`, remembered by the body's hash as text: a body met again (the same message
 * seen from its other side, a repeated payload) is neither decoded nor serialized again. A decoding the object memo
 * already holds is taken from it; one decoded here is not kept as objects (the text is all this path needs). Inside
 * `withShippedBodies` the texts its bundle brought answer, and nothing is decoded.
 */
export const decodedBodyText = (hash: HashB64, boc: string): string => {
  if (shipped !== undefined) {
    const given = shipped[hash]
    return typeof given === "string" ? given : "null"
  }
  let text = texts.get(hash)
  if (text === undefined) {
    const known = rememberedBody(hash)
    text = goJson(known !== undefined ? known.value : decodeBodyBoc(boc))
    texts.set(hash, text)
  }
  if (gathered !== undefined && text !== "null") gathered.set(hash, text)
  return text
}

/**
 * `f`'s result and the non-null texts of the bodies it rendered, by hash in the order first rendered (the producer
 * drafting a bundle: every body of it, in_msg and out_msgs of each transaction, which are the bundle's
 * `decoded_bodies`).
 */
export const gatherBodyTexts = <A>(f: () => A): [A, Record<HashB64, string>] => {
  const outer = gathered
  const mine = new Map<HashB64, string>()
  gathered = mine
  try {
    return [f(), Object.fromEntries(mine)]
  } finally {
    gathered = outer
  }
}

/** What a bundle brought of its bodies' texts, if it was decoded by this build's body decoder and is well formed. */
export const shippedBodyTexts = (b: WithBodies): Readonly<Record<HashB64, string>> | undefined => {
  const d: unknown = b.decoded_bodies
  if (typeof d !== "object" || d === null) return undefined
  const { decoder_version: version, texts: given } = d as Partial<DecodedBodies>
  if (version !== BODY_DECODER_VERSION) return undefined
  if (typeof given !== "object" || given === null || Array.isArray(given)) return undefined
  for (const k in given) if (typeof given[k] !== "string") return undefined
  return given
}

/**
 * `f` with the bodies' texts bundle `b` brought standing for their decoding (a body of it the texts do not name
 * decodes to null: the producer ships every non-null one); a bundle without them, or from another release of the
 * body decoder, is decoded here as before. The shipped texts are taken as they are: they are this project's
 * producer's, made by the same renderer at the same release, and what its transactions topic published.
 */
export const withShippedBodies = <A>(b: WithBodies, f: () => A): A => {
  const given = shippedBodyTexts(b)
  if (given === undefined) return f()
  const outer = shipped
  shipped = given
  try {
    return f()
  } finally {
    shipped = outer
  }
}

/** The 2025-09 indexer's `decoded` (v3.ts decodedComment) as text. */
const decodedCommentText = (m: MessageRecord): string => {
  if (m.opcode !== 0) return "null"
  const bytes = loadSnakeLenient(Cell.fromBase64(m.body.boc), 32)
  return `{"type":"text_comment","comment":${goJson(bytes === null ? "" : goString(bytes))}}`
}

/** renderV3Message through goJson. */
export const v3MessageText = (m: MessageRecord, shape: V3Shape = "current"): string => {
  const current = shape === "current"
  const decoded = current ? decodedBodyText(m.body.hash, m.body.boc) : decodedCommentText(m)
  const ihrFee = m.ihr_fee === null ? "null" : '"0"'
  let out =
    `{"hash":${str(m.hash)},"source":${str(m.source)},"destination":${str(m.destination)},"value":${str(m.value)}` +
    `,"value_extra_currencies":${currencies(m.value_extra_currencies)},"fwd_fee":${str(m.fwd_fee)},"ihr_fee":${ihrFee}`
  if (current) out += `,"extra_flags":${str(m.ihr_fee)}`
  out +=
    `,"created_lt":${str(m.created_lt)},"created_at":${m.created_at === null ? "null" : `"${m.created_at}"`}` +
    `,"opcode":${str(opcodeHex(m.opcode))}`
  if (current) out += `,"decoded_opcode":${str(opcodeName(m.opcode))}`
  out +=
    `,"ihr_disabled":${bool(m.ihr_disabled)},"bounce":${bool(m.bounce)},"bounced":${bool(m.bounced)}` +
    `,"import_fee":${str(m.import_fee)},"message_content":{"hash":${str(m.body.hash)},"body":${str(m.body.boc)}` +
    `,"decoded":${decoded}},"init_state":`
  out +=
    m.init_state === null
      ? "null"
      : `{"hash":${str(m.init_state.hash)},"body":${str(m.init_state.boc)},"decoded":null}`
  if (m.hash_norm !== null) out += `,"hash_norm":${str(m.hash_norm)}`
  return out + "}"
}

/** a < b for unsigned decimal strings without leading zeros (v3.ts's rule for the swapped gas figures). */
const decimalLess = (a: string, b: string): boolean => a.length < b.length || (a.length === b.length && a < b)

/** `,"key":value` when the value is neither null nor undefined (renderV3Description's `put`). */
const opt = (key: string, v: string | boolean | number | null | undefined): string =>
  v === null || v === undefined ? "" : `,"${key}":${typeof v === "string" ? str(v) : String(v)}`

const size = (s: { readonly cells: string; readonly bits: string }): string =>
  `{"cells":${str(s.cells)},"bits":${str(s.bits)}}`

/** renderV3Description through goJson. */
export const v3DescriptionText = (d: TxDescription): string => {
  let o =
    `{"type":${str(d.type)}` +
    opt("aborted", d.aborted) +
    opt("destroyed", d.destroyed) +
    opt("credit_first", d.credit_first) +
    opt("is_tock", d.is_tock) +
    opt("installed", d.installed)
  const sp = d.storage_ph
  if (sp) {
    const s =
      opt("storage_fees_collected", sp.storage_fees_collected) +
      opt("storage_fees_due", sp.storage_fees_due) +
      opt("status_change", sp.status_change)
    o += `,"storage_ph":{${s.slice(1)}}`
  }
  const cr = d.credit_ph
  if (cr) {
    let c = opt("due_fees_collected", cr.due_fees_collected) + opt("credit", cr.credit)
    const extra = currencies(cr.credit_extra_currencies)
    if (extra !== "{}") c += `,"credit_extra_currencies":${extra}`
    o += `,"credit_ph":{${c.slice(1)}}`
  }
  const cp = d.compute_ph
  if (cp) {
    if (cp.skipped) {
      o += `,"compute_ph":{"skipped":true,"reason":${str(cp.reason)}}`
    } else {
      const swapped = decimalLess(cp.gas_fees, cp.gas_used)
      o +=
        `,"compute_ph":{"skipped":false,"success":${cp.success},"msg_state_used":${cp.msg_state_used}` +
        `,"account_activated":${cp.account_activated}` +
        `,"gas_fees":${str(swapped ? cp.gas_used : cp.gas_fees)},"gas_used":${str(swapped ? cp.gas_fees : cp.gas_used)}` +
        `,"gas_limit":${str(cp.gas_limit)}${opt("gas_credit", cp.gas_credit)},"mode":${cp.mode}` +
        `,"exit_code":${cp.exit_code}${opt("exit_arg", cp.exit_arg)},"vm_steps":${cp.vm_steps}` +
        `,"vm_init_state_hash":${str(cp.vm_init_state_hash)},"vm_final_state_hash":${str(cp.vm_final_state_hash)}}`
    }
  }
  const a = d.action
  if (a) {
    o +=
      `,"action":{"success":${a.success},"valid":${a.valid},"no_funds":${a.no_funds}` +
      `,"status_change":${str(a.status_change)}${opt("total_fwd_fees", a.total_fwd_fees)}` +
      `${opt("total_action_fees", a.total_action_fees)},"result_code":${a.result_code}${opt("result_arg", a.result_arg)}` +
      `,"tot_actions":${a.tot_actions},"spec_actions":${a.spec_actions},"skipped_actions":${a.skipped_actions}` +
      `,"msgs_created":${a.msgs_created},"action_list_hash":${str(a.action_list_hash)}` +
      `,"tot_msg_size":${size(a.tot_msg_size)}}`
  }
  const b = d.bounce
  if (b) {
    o += `,"bounce":{"type":${str(b.type)}`
    if (b.type !== "negfunds") o += `,"msg_size":${size(b.msg_size)}`
    if (b.type === "nofunds") o += `,"req_fwd_fees":${str(b.req_fwd_fees)}`
    if (b.type === "ok") o += `,"msg_fees":${str(b.msg_fees)},"fwd_fees":${str(b.fwd_fees)}`
    o += "}"
  }
  const si = d.split_info
  if (si) {
    o +=
      `,"split_info":{"cur_shard_pfx_len":${si.cur_shard_pfx_len},"acc_split_depth":${si.acc_split_depth}` +
      `,"this_addr":${str(si.this_addr)},"sibling_addr":${str(si.sibling_addr)}}`
  }
  return o + "}"
}

/** renderV3AccountState through goJson. */
export const v3AccountStateText = (hash: HashB64, states: ReadonlyMap<string, AccountStateRecord>): string => {
  const s = states.get(hash)
  if (s === undefined) {
    return `{"hash":${str(hash)},"balance":null,"extra_currencies":null,"account_status":null,"frozen_hash":null,"data_hash":null,"code_hash":null}`
  }
  return (
    `{"hash":${str(hash)},"balance":${str(s.balance)},"extra_currencies":${currencies(s.extra_currencies)}` +
    `,"account_status":${str(s.account_status)},"frozen_hash":${str(s.frozen_hash)},"data_hash":${str(s.data_hash)}` +
    `,"code_hash":${str(s.code_hash)}}`
  )
}

const byCreatedLt = (a: MessageRecord, b: MessageRecord): number => {
  const x = BigInt(a.created_lt ?? "0")
  const y = BigInt(b.created_lt ?? "0")
  return x < y ? -1 : x > y ? 1 : 0
}

// The last shard printed: a bundle's transactions come block by block, so most ask for the one before.
let lastShard = ""
let lastShardHex = ""
const shardText = (shard: string): string => {
  if (shard !== lastShard) {
    lastShardHex = shardHex(shard)
    lastShard = shard
  }
  return lastShardHex
}

/**
 * A transaction's v3 JSON in two pieces around where `trace_id` goes (after `mc_block_seqno`, Go struct order):
 * `head + tail` is the JSON without a trace id, `head + ',"trace_id":' + id + tail` with one. The tail starts at
 * `,"prev_trans_hash":`.
 */
export const v3TransactionPieces = (
  tx: TransactionRecord,
  states: ReadonlyMap<string, AccountStateRecord>,
  shape: V3Shape = "current"
): [head: string, tail: string] => {
  const head = `{"account":${str(tx.account)},"hash":${str(tx.hash)},"lt":${str(tx.lt)},"now":${tx.now},"mc_block_seqno":${tx.mc_block_seqno}`
  let tail =
    `,"prev_trans_hash":${str(tx.prev_trans_hash)},"prev_trans_lt":${str(tx.prev_trans_lt)}` +
    `,"orig_status":${str(tx.orig_status)},"end_status":${str(tx.end_status)},"total_fees":${str(tx.total_fees)}` +
    `,"total_fees_extra_currencies":${currencies(tx.total_fees_extra_currencies)}` +
    `,"description":${v3DescriptionText(tx.description)}` +
    `,"block_ref":{"workchain":${tx.block.workchain},"shard":"${shardText(tx.block.shard)}","seqno":${tx.block.seqno}}` +
    `,"in_msg":${tx.in_msg === null ? "null" : v3MessageText(tx.in_msg, shape)},"out_msgs":[`
  const outs = tx.out_msgs.length < 2 ? tx.out_msgs : [...tx.out_msgs].sort(byCreatedLt)
  for (let i = 0; i < outs.length; i++) tail += (i === 0 ? "" : ",") + v3MessageText(outs[i]!, shape)
  tail +=
    `],"account_state_before":${v3AccountStateText(tx.account_state_hash_before, states)}` +
    `,"account_state_after":${v3AccountStateText(tx.account_state_hash_after, states)}` +
    (shape === "current" ? ',"emulated":false,"finality":"finalized"}' : ',"emulated":false}')
  return [head, tail]
}

/** `goJson(renderV3Transaction(tx, states, shape))`, written as text. */
export const v3TransactionText = (
  tx: TransactionRecord,
  states: ReadonlyMap<string, AccountStateRecord>,
  shape: V3Shape = "current"
): string => {
  const [head, tail] = v3TransactionPieces(tx, states, shape)
  return tx.trace_id === null ? head + tail : `${head},"trace_id":${str(tx.trace_id)}${tail}`
}
