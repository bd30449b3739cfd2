/**
 * trace_id at ingest: the hash of the transaction that started the trace. A transaction without an internal in-msg
 * (external-in, tick-tock, other system transactions) starts its own trace; one with an internal in-msg inherits the
 * trace of the transaction that sent that message, found by the message hash among earlier out messages.
 * Invariant: the result depends only on the transactions seen so far in masterchain order, so replays agree. An id a
 * transaction already carries (the producer resolves them before publishing) stands: it was computed by this rule.
 */
import type { HashB64, TransactionRecord } from "../ton/record.js"

/** What trace assignment reads of a transaction: full records, or the producer's compact drafts. */
export type TraceNode = Pick<TransactionRecord, "hash" | "lt" | "trace_id"> & {
  readonly in_msg: Pick<NonNullable<TransactionRecord["in_msg"]>, "type" | "hash"> | null
  readonly out_msgs: ReadonlyArray<Pick<TransactionRecord["out_msgs"][number], "type" | "hash">>
  readonly description: Pick<TransactionRecord["description"], "type">
}

/** Out-message hash -> trace id of the transaction that sent it. */
export interface TraceLookup {
  readonly get: (messageHash: HashB64) => HashB64 | undefined
}

export type ParentMissing = "own-hash" | "leave-null"

const startsTrace = (tx: TraceNode): boolean =>
  tx.in_msg === null || tx.in_msg.type !== "int" || tx.description.type === "tick_tock"

/**
 * In-msg hashes whose sender must be looked up in history first: those of the transactions `assignTraceIds` would
 * ask history about (no trace id yet, not starting a trace) whose sender is not among `txs`. A transaction that
 * already carries its id (the producer resolves them before publishing) needs none: asking for its parent anyway
 * cost a lookup in storage per batch for every sender outside it, whose answer went unused.
 * Only transactions in masterchain order are given, so "earlier" means an earlier bundle.
 */
export const externalParents = (txs: ReadonlyArray<TraceNode>): ReadonlyArray<HashB64> => {
  const sent = new Set<HashB64>()
  for (const tx of txs) for (const m of tx.out_msgs) if (m.type === "int") sent.add(m.hash)
  const missing = new Set<HashB64>()
  for (const tx of txs) {
    if (tx.trace_id !== null || startsTrace(tx)) continue
    const m = tx.in_msg!
    if (!sent.has(m.hash)) missing.add(m.hash)
  }
  return [...missing]
}

/** Causal order: a message is created at its sender's lt and consumed at a strictly greater lt. */
const byLt = (a: TraceNode, b: TraceNode): number => {
  const la = BigInt(a.lt)
  const lb = BigInt(b.lt)
  return la < lb ? -1 : la > lb ? 1 : a.hash < b.hash ? -1 : a.hash > b.hash ? 1 : 0
}

/**
 * Assigns trace ids to the transactions of consecutive bundles (given in masterchain order, each bundle's
 * transactions in any order). `history` answers for senders in earlier, already stored bundles. `learn` receives
 * every out-message hash -> trace id found here so that later batches can find their parents.
 * When a parent is in neither, `onMissing` decides: the producer's publish step (which keeps the history of what it
 * published) starts a new trace; its decode step (which sees one bundle) leaves the field null for the publish step.
 */
export const assignTraceIds = <T extends TraceNode>(
  bundles: ReadonlyArray<ReadonlyArray<T>>,
  history: TraceLookup,
  onMissing: ParentMissing,
  learn?: (messageHash: HashB64, traceId: HashB64) => void
): Array<Array<T>> => {
  const local = new Map<HashB64, HashB64 | null>()
  const out = new Array<Array<T>>(bundles.length)
  for (let b = 0; b < bundles.length; b++) out[b] = assignBundle(bundles[b]!, local, history, onMissing, learn)
  return out
}

/**
 * One bundle of assignTraceIds. A function of the module, not a closure made per call: V8 keeps a closure's optimized
 * code only while some closure made at that site lives, so a per-call closure holding this hot loop was compiled
 * again after full collections, and ran unoptimized in between (a traced producer run on the 50k chain compiled the
 * two closures this replaces 13 times, ~880 ms of compiler time).
 */
const assignBundle = <T extends TraceNode>(
  txs: ReadonlyArray<T>,
  local: Map<HashB64, HashB64 | null>,
  history: TraceLookup,
  onMissing: ParentMissing,
  learn: ((messageHash: HashB64, traceId: HashB64) => void) | undefined
): Array<T> => {
  const assigned = new Map<T, HashB64 | null>()
  const ordered = [...txs].sort(byLt)
  for (let i = 0; i < ordered.length; i++) {
    const tx = ordered[i]!
    let traceId: HashB64 | null
    if (tx.trace_id !== null) traceId = tx.trace_id
    else if (startsTrace(tx)) traceId = tx.hash
    else {
      const msgHash = tx.in_msg!.hash
      const found = local.has(msgHash) ? local.get(msgHash)! : history.get(msgHash)
      traceId = found !== undefined ? found : onMissing === "own-hash" ? tx.hash : null
    }
    assigned.set(tx, traceId)
    const outs = tx.out_msgs
    for (let k = 0; k < outs.length; k++) {
      const m = outs[k]!
      if (m.type !== "int") continue
      local.set(m.hash, traceId)
      if (traceId !== null) learn?.(m.hash, traceId)
    }
  }
  const out = new Array<T>(txs.length)
  for (let i = 0; i < txs.length; i++) {
    const tx = txs[i]!
    const id = assigned.get(tx)
    out[i] = tx.trace_id === id ? tx : { ...tx, trace_id: id ?? null }
  }
  return out
}
