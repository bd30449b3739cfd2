/**
 * toncenter v3 (ton-index-go) Transaction, Message, AccountState and address-book shapes, in two versions: `current`
 * (API 1.2.6: `extra_flags` and `decoded_opcode` on messages, bodies decoded by TL-B, `finality` on transactions,
 * address-book `interfaces`) and `2025-09`, the field set of the answers recorded before those keys existed.
 * Invariant: keys come out in the Go struct order; `omitempty` pointer fields are absent when null, the others are
 * printed as null; 64-bit quantities and `created_at` are strings, shard is "%X", opcode "0x%08x".
 */
import { Cell } from "@ton/core"
import { goJson, goKeyOrder, goSorted } from "../api/json.js"
import { toFriendly } from "./address.js"
import { friendlyForm } from "./friendlyForm.js"
import type {
  AccountStateRecord,
  ExtraCurrencies,
  HashB64,
  MessageRecord,
  RawAddress,
  TransactionRecord,
  TxDescription
} from "./record.js"
import { type DecodedBody, decodeMessageBody, opcodeName } from "./bodies/decode.js"
import { interfacesOf, namedCodeHashes } from "./bodies/interfaces.js"
import { goString, loadSnakeLenient } from "./text.js"

/** a < b for unsigned decimal strings without leading zeros (the record's 64-bit figures), without BigInt. */
const decimalLess = (a: string, b: string): boolean => a.length < b.length || (a.length === b.length && a < b)

/**
 * Which toncenter generation to render: `current` is what toncenter serves today and what the product serves;
 * `2025-09` is the shape of the recorded answers in test/fixtures/real (before decoded bodies, `decoded_opcode`,
 * `extra_flags`, `finality` and `interfaces` existed), kept so those recordings stay exact expectations.
 */
export type V3Shape = "current" | "2025-09"

/** 2025-09's comment-only `decoded`; the current shape carries any decoded TL-B body instead. */
export type V3DecodedContent = { readonly type: "text_comment"; readonly comment: string } | DecodedBody

export interface V3MessageContent {
  readonly hash: string
  readonly body: string
  readonly decoded: V3DecodedContent | null
}

export interface V3Message {
  readonly hash: string
  readonly source: string | null
  readonly destination: string | null
  readonly value: string | null
  readonly value_extra_currencies: ExtraCurrencies | null
  readonly fwd_fee: string | null
  readonly ihr_fee: string | null
  readonly extra_flags?: string | null
  readonly created_lt: string | null
  readonly created_at: string | null
  readonly opcode: string | null
  readonly decoded_opcode?: string | null
  readonly ihr_disabled: boolean | null
  readonly bounce: boolean | null
  readonly bounced: boolean | null
  readonly import_fee: string | null
  readonly message_content: V3MessageContent | null
  readonly init_state: V3MessageContent | null
  readonly hash_norm?: string
}

export interface V3AccountState {
  readonly hash: string
  readonly balance: string | null
  readonly extra_currencies: ExtraCurrencies | null
  readonly account_status: string | null
  readonly frozen_hash: string | null
  readonly data_hash: string | null
  readonly code_hash: string | null
}

export interface V3Transaction {
  readonly account: string
  readonly hash: string
  readonly lt: string
  readonly now: number
  readonly mc_block_seqno: number
  readonly trace_id?: string
  readonly prev_trans_hash: string
  readonly prev_trans_lt: string
  readonly orig_status: string
  readonly end_status: string
  readonly total_fees: string
  readonly total_fees_extra_currencies: ExtraCurrencies
  readonly description: Record<string, unknown>
  readonly block_ref: { readonly workchain: number; readonly shard: string; readonly seqno: number }
  readonly in_msg: V3Message | null
  readonly out_msgs: ReadonlyArray<V3Message>
  readonly account_state_before: V3AccountState
  readonly account_state_after: V3AccountState
  readonly emulated: false
  readonly finality?: "finalized"
}

export interface V3AddressBookEntry {
  readonly user_friendly: string
  readonly domain: string | null
  readonly interfaces?: ReadonlyArray<string> | null
}

/** Code hashes of wallet contracts, whose owners get non-bounceable user-friendly addresses (ton-index-go). */
export const WALLET_CODE_HASHES: ReadonlySet<string> = new Set([
  "oM/CxIruFqJx8s/AtzgtgXVs7LEBfQd/qqs7tgL2how=",
  "1JAvzJ+tdGmPqONTIgpo2g3PcuMryy657gQhfBfTBiw=",
  "WHzHie/xyE9G7DeX5F/ICaFP9a4k8eDHpqmcydyQYf8=",
  "XJpeaMEI4YchoHxC+ZVr+zmtd+xtYktgxXbsiO7mUyk=",
  "/pUw0yQ4Uwg+8u8LTCkIwKv2+hwx6iQ6rKpb+MfXU/E=",
  "thBBpYp5gLlG6PueGY48kE0keZ/6NldOpCUcQaVm9YE=",
  "hNr6RJ+Ypph3ibojI1gHK8D3bcRSQAKl0JGLmnXS1Zk=",
  "ZN1UgFUixb6KnbWc6gEFzPDQh4bKeb64y3nogKjXMi0=",
  "/rX/aCDi/w2Ug+fg1iyBfYRniftK5YDIeIZtlZ2r1cA=",
  "89fKU0k97trCizgZhqhJQDy6w9LFhHea8IEGWvCsS5M=",
  "IINLe3KxEhR+Gy+0V7hOdNGjDwT3N9T2KmaOlVLSty8="
])

/** Shard id as ton-index-go prints it: the unsigned 64-bit value in upper-case hex without padding. */
export const shardHex = (signedDecimal: string): string =>
  BigInt.asUintN(64, BigInt(signedDecimal)).toString(16).toUpperCase()

export const opcodeHex = (opcode: number | null): string | null =>
  opcode === null ? null : `0x${(opcode >>> 0).toString(16).padStart(8, "0")}`

/** The 2025-09 indexer's `decoded`: a text comment whenever the body starts with op 0, read leniently. */
const decodedComment = (m: MessageRecord): V3DecodedContent | null => {
  if (m.opcode !== 0) return null
  const bytes = loadSnakeLenient(Cell.fromBase64(m.body.boc), 32)
  return { type: "text_comment", comment: bytes === null ? "" : goString(bytes) }
}

/**
 * A message in v3's Message shape. Each shape's object is written as one literal in Go struct order rather than
 * spread from parts: spreading made the renderer a tenth of the decode worker's time (the spread-built original is
 * the reference in test/support/v3Reference.ts, compared in test/unit/ton/v3Differential.test.ts).
 */
export const renderV3Message = (m: MessageRecord, shape: V3Shape = "current"): V3Message => {
  const content: V3MessageContent = {
    hash: m.body.hash,
    body: m.body.boc,
    decoded: shape === "current" ? decodeMessageBody(m.body.hash, m.body.boc) : decodedComment(m)
  }
  const init: V3MessageContent | null =
    m.init_state === null ? null : { hash: m.init_state.hash, body: m.init_state.boc, decoded: null }
  // Since global version 12 that slot holds extra_flags; the indexer reads it as such and reports ihr_fee 0.
  const ihrFee = m.ihr_fee === null ? null : "0"
  const createdAt = m.created_at === null ? null : String(m.created_at)
  const out: { -readonly [K in keyof V3Message]: V3Message[K] } =
    shape === "current"
      ? {
          hash: m.hash,
          source: m.source,
          destination: m.destination,
          value: m.value,
          value_extra_currencies: m.value_extra_currencies,
          fwd_fee: m.fwd_fee,
          ihr_fee: ihrFee,
          extra_flags: m.ihr_fee,
          created_lt: m.created_lt,
          created_at: createdAt,
          opcode: opcodeHex(m.opcode),
          decoded_opcode: opcodeName(m.opcode),
          ihr_disabled: m.ihr_disabled,
          bounce: m.bounce,
          bounced: m.bounced,
          import_fee: m.import_fee,
          message_content: content,
          init_state: init
        }
      : {
          hash: m.hash,
          source: m.source,
          destination: m.destination,
          value: m.value,
          value_extra_currencies: m.value_extra_currencies,
          fwd_fee: m.fwd_fee,
          ihr_fee: ihrFee,
          created_lt: m.created_lt,
          created_at: createdAt,
          opcode: opcodeHex(m.opcode),
          ihr_disabled: m.ihr_disabled,
          bounce: m.bounce,
          bounced: m.bounced,
          import_fee: m.import_fee,
          message_content: content,
          init_state: init
        }
  if (m.hash_norm !== null) out.hash_norm = m.hash_norm
  return out
}

const put = (o: Record<string, unknown>, key: string, value: unknown): void => {
  if (value !== undefined && value !== null) o[key] = value
}

/** TransactionDescr in Go field order; every pointer field is omitted when the transaction type lacks it. */
export const renderV3Description = (d: TxDescription): Record<string, unknown> => {
  const o: Record<string, unknown> = { type: d.type }
  put(o, "aborted", d.aborted)
  put(o, "destroyed", d.destroyed)
  put(o, "credit_first", d.credit_first)
  put(o, "is_tock", d.is_tock)
  put(o, "installed", d.installed)
  if (d.storage_ph) {
    const s: Record<string, unknown> = {}
    put(s, "storage_fees_collected", d.storage_ph.storage_fees_collected)
    put(s, "storage_fees_due", d.storage_ph.storage_fees_due)
    put(s, "status_change", d.storage_ph.status_change)
    o.storage_ph = s
  }
  if (d.credit_ph) {
    const c: Record<string, unknown> = {}
    put(c, "due_fees_collected", d.credit_ph.due_fees_collected)
    put(c, "credit", d.credit_ph.credit)
    // The indexer stores no extra-currency map for a plain TON credit, so the key is absent then.
    const extra = d.credit_ph.credit_extra_currencies
    if (Object.keys(extra).length > 0) c.credit_extra_currencies = extra
    o.credit_ph = c
  }
  const cp = d.compute_ph
  if (cp) {
    if (cp.skipped) {
      o.compute_ph = { skipped: true, reason: cp.reason }
    } else {
      // toncenter's v3 reader swaps the two when gas_fees < gas_used (a repair of rows an old indexer wrote
      // swapped; ton-index-go's ScanTransaction), so accounts that pay no gas (the masterchain's system
      // transactions: gas_fees 0) are served with the figures exchanged. Served as toncenter serves them; the
      // stored rows keep the chain's values.
      const swapped = decimalLess(cp.gas_fees, cp.gas_used)
      const c: Record<string, unknown> = {
        skipped: false,
        success: cp.success,
        msg_state_used: cp.msg_state_used,
        account_activated: cp.account_activated,
        gas_fees: swapped ? cp.gas_used : cp.gas_fees,
        gas_used: swapped ? cp.gas_fees : cp.gas_used,
        gas_limit: cp.gas_limit
      }
      put(c, "gas_credit", cp.gas_credit)
      c.mode = cp.mode
      c.exit_code = cp.exit_code
      put(c, "exit_arg", cp.exit_arg)
      c.vm_steps = cp.vm_steps
      c.vm_init_state_hash = cp.vm_init_state_hash
      c.vm_final_state_hash = cp.vm_final_state_hash
      o.compute_ph = c
    }
  }
  const a = d.action
  if (a) {
    const r: Record<string, unknown> = {
      success: a.success,
      valid: a.valid,
      no_funds: a.no_funds,
      status_change: a.status_change
    }
    put(r, "total_fwd_fees", a.total_fwd_fees)
    put(r, "total_action_fees", a.total_action_fees)
    r.result_code = a.result_code
    put(r, "result_arg", a.result_arg)
    r.tot_actions = a.tot_actions
    r.spec_actions = a.spec_actions
    r.skipped_actions = a.skipped_actions
    r.msgs_created = a.msgs_created
    r.action_list_hash = a.action_list_hash
    r.tot_msg_size = { cells: a.tot_msg_size.cells, bits: a.tot_msg_size.bits }
    o.action = r
  }
  const b = d.bounce
  if (b) {
    const r: Record<string, unknown> = { type: b.type }
    if (b.type !== "negfunds") r.msg_size = { cells: b.msg_size.cells, bits: b.msg_size.bits }
    if (b.type === "nofunds") r.req_fwd_fees = b.req_fwd_fees
    if (b.type === "ok") {
      r.msg_fees = b.msg_fees
      r.fwd_fees = b.fwd_fees
    }
    o.bounce = r
  }
  if (d.split_info) {
    o.split_info = {
      cur_shard_pfx_len: d.split_info.cur_shard_pfx_len,
      acc_split_depth: d.split_info.acc_split_depth,
      this_addr: d.split_info.this_addr,
      sibling_addr: d.split_info.sibling_addr
    }
  }
  return o
}

/** An account state by hash; the indexer keeps only the last state per account and block, others are hash-only. */
export const renderV3AccountState = (
  hash: HashB64,
  states: ReadonlyMap<string, AccountStateRecord>
): V3AccountState => {
  const s = states.get(hash)
  return {
    hash,
    balance: s?.balance ?? null,
    extra_currencies: s?.extra_currencies ?? null,
    account_status: s?.account_status ?? null,
    frozen_hash: s?.frozen_hash ?? null,
    data_hash: s?.data_hash ?? null,
    code_hash: s?.code_hash ?? null
  }
}

const byCreatedLt = (a: MessageRecord, b: MessageRecord): number => {
  const x = BigInt(a.created_lt ?? "0")
  const y = BigInt(b.created_lt ?? "0")
  return x < y ? -1 : x > y ? 1 : 0
}

/** What follows `account_state_after` in a Transaction of the shape (the pre-rendered pages cut before it). */
export const v3TransactionClosing = (shape: V3Shape = "current"): string =>
  shape === "current" ? ',"emulated":false,"finality":"finalized"}' : ',"emulated":false}'

/** A transaction in v3's Transaction shape; written key by key in Go struct order, as renderV3Message is. */
export const renderV3Transaction = (
  tx: TransactionRecord,
  states: ReadonlyMap<string, AccountStateRecord>,
  shape: V3Shape = "current"
): V3Transaction => {
  const out: { -readonly [K in keyof V3Transaction]: V3Transaction[K] } = {
    account: tx.account,
    hash: tx.hash,
    lt: tx.lt,
    now: tx.now,
    mc_block_seqno: tx.mc_block_seqno
  } as V3Transaction
  if (tx.trace_id !== null) out.trace_id = tx.trace_id
  out.prev_trans_hash = tx.prev_trans_hash
  out.prev_trans_lt = tx.prev_trans_lt
  out.orig_status = tx.orig_status
  out.end_status = tx.end_status
  out.total_fees = tx.total_fees
  out.total_fees_extra_currencies = tx.total_fees_extra_currencies
  out.description = renderV3Description(tx.description)
  out.block_ref = { workchain: tx.block.workchain, shard: shardHex(tx.block.shard), seqno: tx.block.seqno }
  out.in_msg = tx.in_msg === null ? null : renderV3Message(tx.in_msg, shape)
  const outMsgs = tx.out_msgs.length < 2 ? tx.out_msgs : [...tx.out_msgs].sort(byCreatedLt)
  out.out_msgs = outMsgs.map((m) => renderV3Message(m, shape))
  out.account_state_before = renderV3AccountState(tx.account_state_hash_before, states)
  out.account_state_after = renderV3AccountState(tx.account_state_hash_after, states)
  out.emulated = false
  // The store holds only blocks committed by a masterchain block it has read: all of them final.
  if (shape === "current") out.finality = "finalized"
  return out
}

/** toncenter's rule: unknown code or a wallet code means the address is shown non-bounceable. */
export const isBounceableByCode = (codeHash: string | null | undefined): boolean =>
  codeHash !== null && codeHash !== undefined && !WALLET_CODE_HASHES.has(codeHash)

/**
 * The address book for a set of transactions: every account, in-message source and out-message destination, keyed by
 * raw address and sorted as Go sorts map keys.
 */
export const renderAddressBook = (
  txs: ReadonlyArray<TransactionRecord>,
  codeHashes: ReadonlyMap<RawAddress, string | null>,
  opts: { readonly testnet: boolean; readonly shape?: V3Shape }
): Record<string, V3AddressBookEntry> => {
  const addrs = new Set<RawAddress>()
  for (const tx of txs) {
    addrs.add(tx.account)
    if (tx.in_msg?.source) addrs.add(tx.in_msg.source)
    for (const m of tx.out_msgs) if (m.destination) addrs.add(m.destination)
  }
  return renderAddressBookOf(addrs, codeHashes, opts)
}

/** The address book of the given raw addresses (any order, no duplicates), keyed and sorted as Go sorts map keys. */
export const renderAddressBookOf = (
  addrs: Iterable<RawAddress>,
  codeHashes: ReadonlyMap<RawAddress, string | null>,
  opts: { readonly testnet: boolean; readonly shape?: V3Shape }
): Record<string, V3AddressBookEntry> => {
  const book: Record<string, V3AddressBookEntry> = {}
  const current = (opts.shape ?? "current") === "current"
  for (const raw of [...addrs].sort(goKeyOrder)) {
    const code = codeHashes.get(raw)
    const entry = {
      user_friendly: toFriendly(raw, { bounceable: isBounceableByCode(code), testnet: opts.testnet }),
      domain: null
    }
    book[raw] = current ? { ...entry, interfaces: interfacesOf(code) } : entry
  }
  return book
}

// What an address-book entry prints for an account's code hash: its form's bounceable flag and its `interfaces` JSON
// (Go-escaped), from isBounceableByCode and interfacesOf themselves. A hash neither names is printed as any other
// unrecognised hash is, so one entry stands for all of them.
interface CodeFacts {
  readonly bounceable: boolean
  readonly interfaces: string
}
const codeFactsOf = (code: string | null | undefined): CodeFacts => ({
  bounceable: isBounceableByCode(code),
  interfaces: goJson(interfacesOf(code))
})
const NAMED_CODE_FACTS: ReadonlyMap<string, CodeFacts> = new Map(
  [...WALLET_CODE_HASHES, ...namedCodeHashes()].map((h) => [h, codeFactsOf(h)])
)
const UNNAMED_CODE_FACTS = codeFactsOf("")
const NO_CODE_FACTS = codeFactsOf(null)
const NOTHING_KNOWN_FACTS = codeFactsOf(undefined)
const codeFacts = (code: string | null | undefined): CodeFacts =>
  code === undefined
    ? NOTHING_KNOWN_FACTS
    : code === null
      ? NO_CODE_FACTS
      : (NAMED_CODE_FACTS.get(code) ?? UNNAMED_CODE_FACTS)

/**
 * `goJson(renderAddressBookOf(addrs, codeHashes, opts))`, written as text straight away: one sort, no entry objects
 * and no serializer walk over them (an uncached v3 page's book has hundreds of entries). An address's friendly form
 * is made only from a well-formed raw form ("wc:" and 64 hex digits; friendlyForm throws on anything else), so the
 * raw form and its friendly form (base64url) are JSON strings as they stand, with nothing Go escapes, as are the
 * `interfaces` texts: no JSON.stringify per string, no escaping pass over the text. A repeated address is written
 * once, as the object's key would be.
 */
export const renderAddressBookText = (
  addrs: Iterable<RawAddress>,
  codeHashes: ReadonlyMap<RawAddress, string | null>,
  opts: { readonly testnet: boolean; readonly shape?: V3Shape }
): string => {
  const current = (opts.shape ?? "current") === "current"
  const sorted = goSorted(addrs)
  let out = "{"
  let prev: string | undefined
  for (const raw of sorted) {
    if (raw === prev) continue
    const facts = codeFacts(codeHashes.get(raw))
    const friendly = friendlyForm(raw, facts.bounceable, opts.testnet, true)
    out +=
      (prev === undefined ? '"' : ',"') +
      raw +
      '":{"user_friendly":"' +
      friendly +
      (current ? '","domain":null,"interfaces":' + facts.interfaces + "}" : '","domain":null}')
    prev = raw
  }
  return out + "}"
}

/**
 * JSON text as Go's encoding/json writes it (what ton-index-go sends): compact, with <, >, & and U+2028/U+2029
 * escaped; the one implementation is the API's `goJson` (src/api/json.ts), named here for the renderers' callers.
 */
export const goJsonStringify: (value: unknown) => string = goJson
