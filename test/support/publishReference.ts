/**
 * The transactions topic's drafts and their completion as they were before the drafts became one buffer per bundle
 * (src/kafka/transactions.ts): a v3 JSON string per transaction, completed by splicing the trace id into the string
 * and encoding it as UTF-8. Kept as the reference of bench/publishRecords.ts, which measures both on one thread.
 */
import type { EncodedMessage } from "../../src/kafka/codec.js"
import { draftFields, type PublishHistory, storedStates, TRANSACTIONS_SCHEMA_VERSION } from "../../src/kafka/transactions.js"
import type { AccountStateRecord, HashB64, MasterchainBundle, RawAddress } from "../../src/ton/record.js"
import { goJsonStringify, renderV3AccountState, renderV3Transaction } from "../../src/ton/v3.js"
import { assignTraceIds, type TraceNode } from "../../src/trace/traceIds.js"

export interface StringDraft extends TraceNode {
  readonly account: RawAddress
  readonly block: string
  readonly json: string
  readonly cut: number
  readonly unknownStates: ReadonlyArray<HashB64>
}

const PREV_KEY = ',"prev_trans_hash":'

/** Drafts of every transaction of a bundle, in the bundle's order. Pure; runs where the bundle was decoded. */
export const draftTransactionsReference = (bundle: MasterchainBundle): Array<StringDraft> => {
  const states = storedStates(bundle.account_states)
  return bundle.transactions.map((tx) => {
    const json = goJsonStringify(renderV3Transaction({ ...tx, trace_id: null }, states))
    const cut = json.indexOf(PREV_KEY)
    return { ...draftFields(tx, states), json, cut }
  })
}

const hashOnly = (hash: HashB64) => goJsonStringify(renderV3AccountState(hash, new Map()))

/**
 * Completes one bundle's drafts (bundles must come in masterchain order) and learns from them. A trace whose root is
 * neither in this bundle nor in history starts at the transaction itself, as the consumer's rule has it.
 */
export const completeBundleReference = (
  mcSeqno: number,
  drafts: ReadonlyArray<StringDraft>,
  states: ReadonlyArray<AccountStateRecord>,
  history: PublishHistory
): { records: Array<EncodedMessage>; filled: Array<HashB64> } => {
  const [traced] = assignTraceIds([drafts], history.traces, "own-hash", (m, t) => history.traces.set(m, t))
  const own = storedStates(states)
  const records: Array<{ lt: bigint; hash: string; record: EncodedMessage }> = []
  const filled: Array<HashB64> = []
  const mc = String(mcSeqno)
  const version = String(TRANSACTIONS_SCHEMA_VERSION)
  for (let i = 0; i < drafts.length; i++) {
    const d = drafts[i]!
    const traceId = traced![i]!.trace_id!
    if (d.trace_id === null) filled.push(traceId)
    let json = `${d.json.slice(0, d.cut)},"trace_id":${JSON.stringify(traceId)}${d.json.slice(d.cut)}`
    for (const h of d.unknownStates) {
      const known = history.states.get(h)
      if (known !== undefined) json = json.replaceAll(hashOnly(h), goJsonStringify(renderV3AccountState(h, new Map([[h, known]]))))
    }
    records.push({
      lt: BigInt(d.lt),
      hash: d.hash,
      record: {
        key: d.account,
        value: Buffer.from(json, "utf8"),
        headers: { schema_version: version, mc_seqno: mc, block: d.block }
      }
    })
  }
  for (const [h, s] of own) history.states.set(h, s)
  records.sort((a, b) => (a.lt < b.lt ? -1 : a.lt > b.lt ? 1 : a.hash < b.hash ? -1 : a.hash > b.hash ? 1 : 0))
  return { records: records.map((r) => r.record), filled }
}

