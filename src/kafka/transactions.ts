/**
 * The transactions topic's records: one per transaction, valued with the v3 `Transaction` JSON the API serves for it
 * (Go dialect; `trace_id`, `mc_block_seqno` and `block_ref` filled) and keyed by the account in raw form. A draft is
 * rendered where the bundle is decoded (any thread); the publish step, which sees bundles in masterchain order,
 * completes it with what only history knows: trace ids whose root is in an earlier bundle, and account states an
 * earlier bundle described. Invariant: a completed value is byte-identical to
 * `goJson(renderV3Transaction(tx, states))` for the fully traced transaction and the states stored up to its bundle.
 */
import { accountStateRows } from "../flatten/account_states.js"
import { assembleAccountState } from "../store/assemble.js"
import type { AccountStateRecord, HashB64, MasterchainBundle, RawAddress, TransactionRecord } from "../ton/record.js"
import { goJsonStringify, renderV3AccountState, shardHex } from "../ton/v3.js"
import { v3TransactionPieces } from "../ton/v3Text.js"
import { Lru } from "../trace/Lru.js"
import { assignTraceIds, type TraceNode } from "../trace/traceIds.js"
import type { EncodedMessage } from "./codec.js"
import { PLAIN_HASH, TraceHistory } from "./traceHistory.js"

export const TRANSACTIONS_SCHEMA_VERSION = 1

/** A transaction's record before the publish step: where its v3 JSON lies in its bundle's `Drafts`, and what tracing needs. */
export interface TransactionDraft extends TraceNode {
  readonly account: RawAddress
  /** `workchain:SHARD:seqno` of the block holding the transaction (the `block` header). */
  readonly block: string
  /** The record's bytes in the bundle's draft bytes: `[start, end)`, its trace id included. */
  readonly start: number
  readonly end: number
  /**
   * Where the trace id's 44 characters go: the bytes hold `,"trace_id":"` before them and `"` after, right after
   * `mc_block_seqno` and before `prev_trans_hash` (Go struct order); the publish step writes the id in place.
   */
  readonly gap: number
  /** State hashes the bundle does not describe, rendered hash-only: history may know them. */
  readonly unknownStates: ReadonlyArray<HashB64>
}

/**
 * A bundle's drafts: every transaction's v3 JSON (UTF-8, the bundle's own account states, room left for its trace
 * id) one after the other in one buffer that owns its memory, so that a decode worker moves it to the main thread
 * instead of copying a string per transaction, and the publish step's records are views of it (no copy either).
 */
export interface Drafts {
  readonly bytes: Uint8Array
  readonly list: ReadonlyArray<TransactionDraft>
}

export const NO_DRAFTS: Drafts = { bytes: new Uint8Array(0), list: [] }

/** The account states as the store gives them back to the API (the row round trip, the fuller row per hash). */
export const storedStates = (states: ReadonlyArray<AccountStateRecord>): Map<HashB64, AccountStateRecord> => {
  const out = new Map<HashB64, AccountStateRecord>()
  for (const r of accountStateRows(states)) out.set(r.hash, assembleAccountState(r))
  return out
}

export const blockName = (tx: Pick<TransactionRecord, "block">): string =>
  `${tx.block.workchain}:${shardHex(tx.block.shard)}:${tx.block.seqno}`

/** A base64 hash as JSON writes it: 44 characters that need no escaping. */
const TRACE_ID_CHARS = 44
const TRACE_HEAD = ',"trace_id":"'
const TRACE_ROOM = TRACE_HEAD.length + TRACE_ID_CHARS + 1

/** The internal out-messages' type and hash, in order (a loop of the module: no closure made per transaction). */
const internalOuts = (msgs: TransactionRecord["out_msgs"]): Array<{ type: "int"; hash: HashB64 }> => {
  const out: Array<{ type: "int"; hash: HashB64 }> = []
  for (let i = 0; i < msgs.length; i++) {
    const m = msgs[i]!
    if (m.type === "int") out.push({ type: m.type, hash: m.hash })
  }
  return out
}

/**
 * What a draft carries besides its bytes: the trace fields, the account and block for the record's key and headers,
 * and the state hashes the bundle does not describe (rendered hash-only: history may know them).
 */
export const draftFields = (tx: TransactionRecord, states: ReadonlyMap<HashB64, AccountStateRecord>) => {
  const unknown = new Set<HashB64>()
  for (const h of [tx.account_state_hash_before, tx.account_state_hash_after]) if (!states.has(h)) unknown.add(h)
  return {
    account: tx.account,
    hash: tx.hash,
    lt: tx.lt,
    trace_id: tx.trace_id,
    in_msg: tx.in_msg === null ? null : { type: tx.in_msg.type, hash: tx.in_msg.hash },
    out_msgs: internalOuts(tx.out_msgs),
    description: { type: tx.description.type },
    block: blockName(tx),
    unknownStates: [...unknown]
  }
}

/**
 * Drafts of every transaction of a bundle, in the bundle's order. Pure; runs where the bundle was decoded. Each
 * transaction's JSON is written as text in the two pieces around its trace id (v3Text.ts), straight into the drafts'
 * bytes: no object tree, no serializer walk and no search for the cut (the first form, through goJson of
 * renderV3Transaction, is the reference in test/support/draftsReference.ts).
 */
export const draftTransactions = (bundle: MasterchainBundle): Drafts => {
  const states = storedStates(bundle.account_states)
  const txs = bundle.transactions
  const heads = new Array<string>(txs.length)
  const tails = new Array<string>(txs.length)
  let bytes = 0
  for (let i = 0; i < txs.length; i++) {
    const [head, tail] = v3TransactionPieces(txs[i]!, states)
    heads[i] = head
    tails[i] = tail
    bytes += Buffer.byteLength(head, "utf8") + Buffer.byteLength(tail, "utf8") + TRACE_ROOM
  }
  const out = Buffer.allocUnsafeSlow(bytes)
  let at = 0
  const list = new Array<TransactionDraft>(txs.length)
  for (let i = 0; i < txs.length; i++) {
    const start = at
    at += out.write(heads[i]!, at, "utf8")
    at += out.write(TRACE_HEAD, at, "latin1")
    const gap = at
    out.fill(0x20, at, at + TRACE_ID_CHARS)
    at += TRACE_ID_CHARS
    out[at++] = 0x22
    at += out.write(tails[i]!, at, "utf8")
    list[i] = { ...draftFields(txs[i]!, states), start, end: at, gap }
  }
  return { bytes: out, list }
}

export interface HistoryLimits {
  /**
   * Sets how many out-message hash -> trace id entries are kept (least recently used go first): this many bytes at
   * TRACE_ENTRY_BYTES each; default 32 MiB.
   */
  readonly traceBytes?: number
  /** Heap the account states kept by hash may take (least recently used go first); default 32 MiB. */
  readonly stateBytes?: number
}

/**
 * What one out-message hash -> trace id entry counts for against `traceBytes`: what it took on the heap as a Map of
 * two base64 strings (166 bytes measured with 200,000 entries; the consumer's trace cache, the same kind of entry,
 * 187). Kept as the unit, so the history keeps as many entries as before (~176,000 at the default) and resolves the
 * same traces; it holds them outside the JS heap now, TRACE_HISTORY_ENTRY_BYTES (108) each (traceHistory.ts).
 */
export const TRACE_ENTRY_BYTES = 190
export const PUBLISH_HISTORY_TRACE_BYTES = 32 * 1024 * 1024
export const PUBLISH_HISTORY_STATE_BYTES = 32 * 1024 * 1024

/** A string's heap: a 16-byte header and one byte per character (ours are ASCII), in 8-byte steps. */
const stringBytes = (s: string | null): number => (s === null ? 0 : 16 + ((s.length + 7) & ~7))

/**
 * Heap an account state takes in the history: its strings, the object and the map's slot (150 bytes besides the
 * strings; 461 bytes in all measured for a typical active account with code and data, the hash shared with its key).
 */
export const accountStateBytes = (s: AccountStateRecord): number =>
  150 +
  stringBytes(s.hash) +
  stringBytes(s.account) +
  stringBytes(s.balance) +
  stringBytes(s.frozen_hash) +
  stringBytes(s.data_hash) +
  stringBytes(s.code_hash) +
  (s.extra_currencies === null ? 0 : 2 * JSON.stringify(s.extra_currencies).length)

/**
 * What the publish step remembers of the bundles it published: trace ids by the hash of the internal messages they
 * sent (outside the JS heap, ~19 MB when full), and account states by hash. Fed in masterchain order; bounded like
 * the consumer's trace cache: at the defaults about 176,000 out-messages and 70,000 account states (unbounded in
 * entries, a million-transaction backfill held ~175 MB here). A sender older than what is kept starts a new trace and a state older than that is
 * published hash-only, as after a restart, which re-reads only `historyBlocks` masterchain blocks.
 */
export class PublishHistory {
  readonly traces: TraceHistory
  readonly states: Lru<HashB64, AccountStateRecord>

  /** Set once the history holds what precedes the bundles being published (learned as published, or re-read). */
  warm = false

  /** assignTraceIds's `learn`: one function per history, not a closure per bundle. */
  readonly learn = (messageHash: HashB64, traceId: HashB64): void => this.traces.set(messageHash, traceId)

  constructor(limits: HistoryLimits = {}) {
    const traceBytes = limits.traceBytes ?? PUBLISH_HISTORY_TRACE_BYTES
    this.traces = new TraceHistory(Math.max(1, Math.floor(traceBytes / TRACE_ENTRY_BYTES)))
    this.states = new Lru(Number.MAX_SAFE_INTEGER, {
      maxWeight: limits.stateBytes ?? PUBLISH_HISTORY_STATE_BYTES,
      weigh: accountStateBytes
    })
  }

  /**
   * Learns from a bundle record already in the topic (a restarted producer re-reading the tail). Its transactions
   * carry the trace ids the publish step gave them; a bundle from before that step leaves some unknown, and they
   * are not learned.
   */
  learnPublished(bundle: MasterchainBundle): void {
    for (const tx of bundle.transactions) {
      if (tx.trace_id === null) continue
      for (const m of tx.out_msgs) if (m.type === "int") this.traces.set(m.hash, tx.trace_id)
    }
    for (const [h, s] of storedStates(bundle.account_states)) this.states.set(h, s)
  }
}

export interface CompletedBundle {
  /**
   * Transaction records in lt order: the bundle lists transactions by block, and after a split or merge one account
   * can have transactions in two blocks of a bundle listed against their lt order.
   */
  readonly records: Array<EncodedMessage>
  /** The trace ids of the transactions that had none in the draft, in the bundle's order (for the bundle record). */
  readonly filled: Array<HashB64>
}

const hashOnly = (hash: HashB64) => goJsonStringify(renderV3AccountState(hash, new Map()))

/**
 * Completes one bundle's drafts (bundles must come in masterchain order) and learns from them. A trace whose root is
 * neither in this bundle nor in history starts at the transaction itself, as the consumer's rule has it.
 */
export const completeBundle = (
  mcSeqno: number,
  drafts: Drafts,
  states: ReadonlyArray<AccountStateRecord>,
  history: PublishHistory
): CompletedBundle => {
  const [traced] = assignTraceIds([drafts.list], history.traces, "own-hash", history.learn)
  const own = storedStates(states)
  const records: Array<{ lt: bigint; hash: string; record: EncodedMessage }> = []
  const filled: Array<HashB64> = []
  const mc = String(mcSeqno)
  const version = String(TRANSACTIONS_SCHEMA_VERSION)
  const bytes = drafts.bytes
  const all = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  for (let i = 0; i < drafts.list.length; i++) {
    const d = drafts.list[i]!
    const traceId = traced![i]!.trace_id!
    if (d.trace_id === null) filled.push(traceId)
    let value: Buffer
    if (PLAIN_HASH.test(traceId)) {
      // The id written into the room left for it: the record is a view of the drafts' bytes.
      all.write(traceId, d.gap, TRACE_ID_CHARS, "latin1")
      value = all.subarray(d.start, d.end)
    } else {
      const head = d.gap - TRACE_HEAD.length
      value = Buffer.concat([
        all.subarray(d.start, head),
        Buffer.from(`,"trace_id":${JSON.stringify(traceId)}`, "utf8"),
        all.subarray(d.gap + TRACE_ID_CHARS + 1, d.end)
      ])
    }
    let json: string | undefined
    for (const h of d.unknownStates) {
      const known = history.states.get(h)
      if (known === undefined) continue
      json ??= value.toString("utf8")
      json = json.replaceAll(hashOnly(h), goJsonStringify(renderV3AccountState(h, new Map([[h, known]]))))
    }
    records.push({
      lt: BigInt(d.lt),
      hash: d.hash,
      record: {
        key: d.account,
        value: json === undefined ? value : Buffer.from(json, "utf8"),
        headers: { schema_version: version, mc_seqno: mc, block: d.block }
      }
    })
  }
  for (const [h, s] of own) history.states.set(h, s)
  records.sort(byLtThenHash)
  const ordered = new Array<EncodedMessage>(records.length)
  for (let i = 0; i < records.length; i++) ordered[i] = records[i]!.record
  return { records: ordered, filled }
}

// Functions of the module rather than closures made per bundle: V8 keeps a closure's optimized code only while a
// closure made at that site lives, so per-call closures were compiled again after full collections.
const byLtThenHash = (a: { lt: bigint; hash: string }, b: { lt: bigint; hash: string }): number =>
  a.lt < b.lt ? -1 : a.lt > b.lt ? 1 : a.hash < b.hash ? -1 : a.hash > b.hash ? 1 : 0

const NULL_TRACE = Buffer.from('"trace_id":null')

/**
 * The bundle record with the publish step's trace ids written in: the k-th `"trace_id":null` of the JSON is the k-th
 * transaction without one (only transaction records have the key, and inside a JSON string the quotes would be
 * escaped). Equal to encoding the traced bundle afresh, at the cost of one scan instead of a serialisation.
 */
export const fillBundleTraceIds = (value: Buffer, ids: ReadonlyArray<HashB64>): Buffer => {
  if (ids.length === 0) return value
  const parts: Array<Buffer> = []
  let from = 0
  for (const id of ids) {
    const at = value.indexOf(NULL_TRACE, from)
    if (at < 0) throw new Error(`bundle record has fewer null trace ids than the ${ids.length} resolved`)
    parts.push(value.subarray(from, at), Buffer.from(`"trace_id":${JSON.stringify(id)}`))
    from = at + NULL_TRACE.length
  }
  if (value.indexOf(NULL_TRACE, from) >= 0) throw new Error("bundle record has more null trace ids than resolved")
  parts.push(value.subarray(from))
  return Buffer.concat(parts)
}
