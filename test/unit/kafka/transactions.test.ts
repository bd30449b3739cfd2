// The transactions topic's records against their definition: for a generated chain with splits, merges and the
// recorded real transactions, drafts made bundle by bundle and completed in masterchain order give, per transaction,
// exactly goJson(renderV3Transaction(...)) of the transaction traced over the whole chain, with the account states
// known up to its block; and the bundle record with the publish step's trace ids equals encoding the traced bundle.
import { describe, expect, it } from "vitest"
import { goJson } from "../../../src/api/json.js"
import { encodeBundle } from "../../../src/kafka/codec.js"
import {
  accountStateBytes,
  blockName,
  completeBundle,
  draftTransactions,
  fillBundleTraceIds,
  PublishHistory,
  storedStates,
  TRACE_ENTRY_BYTES
} from "../../../src/kafka/transactions.js"
import { assembleBundle, pipelineDecode, prepare } from "../../../src/producer/assemble.js"
import type { RawMasterchainBundle } from "../../../src/source/Upstream.js"
import type { AccountStateRecord, MasterchainBundle } from "../../../src/ton/record.js"
import { renderV3Transaction } from "../../../src/ton/v3.js"
import { assignTraceIds } from "../../../src/trace/traceIds.js"
import { generateChain } from "../../../tools/fake/generate.js"
import { decodedBodiesReference } from "../../support/bodiesReference.js"
import { rawBundle } from "../../support/pipeline/chainUpstream.js"

const chain = generateChain({
  seed: 7,
  mcBlocks: 14,
  txPerBlock: 6,
  initialShards: 2,
  maxShards: 6,
  splitChance: 0.4,
  mergeChance: 0.4,
  maxBlocksPerShard: 3,
  fixtures: true,
  network: "mainnet",
  cacheAboveTxs: 0
})

const state = (hash: string, account: string, k: number): AccountStateRecord => ({
  hash,
  account,
  balance: String(1_000_000 + k),
  extra_currencies: k % 2 === 0 ? {} : { "7": "100" },
  account_status: "active",
  frozen_hash: null,
  data_hash: null,
  code_hash: "oM/CxIruFqJx8s/AtzgtgXVs7LEBfQd/qqs7tgL2how="
})

const decoded: Array<MasterchainBundle> = []
const raws: Array<RawMasterchainBundle> = []
for (let s = chain.first; s <= chain.last; s++) {
  const raw = rawBundle(chain, s)!
  const plain = assembleBundle(raw, chain.network, pipelineDecode).bundle
  decoded.push(plain)
  raws.push(raw)
}
// Account states: each bundle describes the state after its first transaction, and the first bundle also describes
// the states before a few transactions of later bundles, which only history can supply when those are published.
const later = decoded.slice(3).flatMap((b) => b.transactions.slice(0, 1))
for (let i = 0; i < raws.length; i++) {
  const first = decoded[i]!.transactions[0]
  const own = first === undefined ? [] : [state(first.account_state_hash_after, first.account, i)]
  const ahead = i === 0 ? later.map((t, k) => state(t.account_state_hash_before, t.account, 100 + k)) : []
  raws[i] = { ...raws[i]!, account_states: [...own, ...ahead] }
}

describe("transactions topic records", () => {
  it("complete to the API's v3 JSON of the chain-wide traced transaction, keyed by account", () => {
    const bundles = raws.map((raw) => assembleBundle(raw, chain.network, pipelineDecode).bundle)
    // The consumer's rule over a store that starts with this chain: one pass over every bundle in order.
    const traced = assignTraceIds(
      bundles.map((b) => b.transactions),
      { get: () => undefined },
      "own-hash"
    )
    const history = new PublishHistory()
    const known = new Map<string, AccountStateRecord>()
    let crossBundle = 0
    let fromHistory = 0
    let shippedTexts = 0
    for (let i = 0; i < raws.length; i++) {
      const prepared = prepare(assembleBundle(raws[i]!, chain.network, pipelineDecode))
      const { records, filled } = completeBundle(prepared.mcSeqno, prepared.drafts, prepared.accountStates, history)
      for (const [h, s] of storedStates(bundles[i]!.account_states)) known.set(h, s)
      const txs = traced[i]!
      expect(records.length).toBe(txs.length)
      const byHash = new Map(records.map((r) => [JSON.parse(r.value.toString("utf8")).hash as string, r]))
      for (let k = 0; k < txs.length; k++) {
        const tx = txs[k]!
        const record = byHash.get(tx.hash)!
        expect(record.value.toString("utf8")).toBe(goJson(renderV3Transaction(tx, known)))
        expect(record.key).toBe(tx.account)
        expect(record.headers).toEqual({ schema_version: "1", mc_seqno: String(tx.mc_block_seqno), block: blockName(tx) })
        if (i > 0 && prepared.drafts.list[k]!.unknownStates.some((h) => known.has(h))) fromHistory++
      }
      // Published in lt order, so each account's transactions reach its partition in order.
      const lts = records.map((r) => BigInt(JSON.parse(r.value.toString("utf8")).lt as string))
      expect(lts.every((lt, k) => k === 0 || lts[k - 1]! <= lt)).toBe(true)
      crossBundle += filled.filter((t, k) => t !== prepared.drafts.list.filter((d) => d.trace_id === null)[k]!.hash).length
      // The bundle record as the consumer will read it: the traced bundle with its bodies' texts, byte for byte.
      const filledValue = fillBundleTraceIds(prepared.bundle!.value, filled)
      const decoded_bodies = decodedBodiesReference(bundles[i]!)
      shippedTexts += Object.keys(decoded_bodies.texts).length
      const expected = encodeBundle({ ...bundles[i]!, transactions: txs, decoded_bodies }, 0).value
      expect(filledValue.equals(expected)).toBe(true)
    }
    // The chain must exercise both histories, or the equalities above prove less than they claim.
    expect(crossBundle).toBeGreaterThan(0)
    expect(fromHistory).toBeGreaterThan(0)
    expect(shippedTexts).toBeGreaterThan(0)
  })

  it("writes a trace id that is not a plain base64 hash by copying, not into the room left for one", () => {
    const bundle = assembleBundle(raws[1]!, chain.network, pipelineDecode).bundle
    const tx = bundle.transactions[0]!
    const odd = 'odd "id"'
    const drafts = draftTransactions({ ...bundle, transactions: [{ ...tx, trace_id: odd }] })
    const { records } = completeBundle(bundle.mc_seqno, drafts, bundle.account_states, new PublishHistory())
    const known = storedStates(bundle.account_states)
    expect(records[0]!.value.toString("utf8")).toBe(goJson(renderV3Transaction({ ...tx, trace_id: odd }, known)))
    // The plain case, from the same drafts' layout: the id goes into the room, the record is a view of the bytes.
    const plainDrafts = draftTransactions({ ...bundle, transactions: [tx] })
    const [plainRecord] = completeBundle(bundle.mc_seqno, plainDrafts, bundle.account_states, new PublishHistory()).records
    expect(plainRecord!.value.buffer).toBe(plainDrafts.bytes.buffer)
  })

  it("refuses to fill a bundle whose null trace ids do not match the resolved count", () => {
    const value = Buffer.from('{"transactions":[{"trace_id":null},{"trace_id":null}]}')
    expect(fillBundleTraceIds(value, ["a", "b"]).toString()).toBe('{"transactions":[{"trace_id":"a"},{"trace_id":"b"}]}')
    expect(() => fillBundleTraceIds(value, ["a"])).toThrow()
    expect(() => fillBundleTraceIds(value, ["a", "b", "c"])).toThrow()
  })
})

describe("publish history memory", () => {
  const hash = (i: number, salt: string) => Buffer.from(`${salt}${i}`.padEnd(32, "#")).toString("base64")
  const state = (i: number): AccountStateRecord => ({
    hash: hash(i, "state"),
    account: `0:${i.toString(16).padStart(64, "0").toUpperCase()}`,
    balance: String(1_000_000_000 + i),
    extra_currencies: null,
    account_status: "active",
    frozen_hash: null,
    data_hash: hash(i, "data"),
    code_hash: hash(i, "code")
  })

  it("keeps the account states under its byte budget, the most recent ones", () => {
    const history = new PublishHistory({ stateBytes: 1024 * 1024 })
    for (let i = 0; i < 20_000; i++) history.states.set(state(i).hash, state(i))
    expect(history.states.weight).toBeLessThanOrEqual(1024 * 1024)
    // A typical state weighs ~460 bytes (as measured on the heap): ~2,200 fit in 1 MiB, the oldest are gone.
    expect(history.states.size).toBeGreaterThan(2_000)
    expect(history.states.size).toBeLessThan(2_500)
    expect(history.states.get(hash(19_999, "state"))).toEqual(state(19_999))
    expect(history.states.get(hash(0, "state"))).toBeUndefined()
  })

  it("keeps the out-message trace ids under its byte budget", () => {
    const history = new PublishHistory({ traceBytes: 1024 * 1024 })
    for (let i = 0; i < 20_000; i++) history.traces.set(hash(i, "msg"), hash(i, "trace"))
    expect(history.traces.size).toBe(Math.floor((1024 * 1024) / TRACE_ENTRY_BYTES))
    expect(history.traces.get(hash(19_999, "msg"))).toBe(hash(19_999, "trace"))
    expect(history.traces.get(hash(0, "msg"))).toBeUndefined()
  })

  it("weighs an account state by its strings: larger states weigh more", () => {
    const typical = accountStateBytes(state(1))
    expect(typical).toBeGreaterThan(400)
    expect(typical).toBeLessThan(520)
    expect(accountStateBytes({ ...state(1), extra_currencies: { "1": "1000000" } })).toBeGreaterThan(typical)
    expect(accountStateBytes({ ...state(1), data_hash: null, code_hash: null })).toBeLessThan(typical)
  })
})
