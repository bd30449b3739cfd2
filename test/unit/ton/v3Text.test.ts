// The v3 text renderer (src/ton/v3Text.ts) against the object renderers through goJson, its reference: every real
// fixture transaction that decodes (block files and recorded BOCs), every transaction of a generated chain with the
// recorded real ones mixed in, and the six rebuilt mainnet transactions of the v3 fixtures with their recorded account
// states; both shapes, with and without a trace id, with and without the states, with a normalized external-in hash.
import { Either } from "effect"
import { describe, expect, it } from "vitest"
import { goJson } from "../../../src/api/json.js"
import { storedStates } from "../../../src/kafka/transactions.js"
import { assembleBundle, pipelineDecode } from "../../../src/producer/assemble.js"
import { decodeTransaction } from "../../../src/ton/decode.js"
import type { AccountStateRecord, TransactionRecord } from "../../../src/ton/record.js"
import { renderV3AccountState, renderV3Description, renderV3Message, renderV3Transaction, type V3Shape } from "../../../src/ton/v3.js"
import {
  decodedBodyText,
  v3AccountStateText,
  v3DescriptionText,
  v3MessageText,
  v3TransactionPieces,
  v3TransactionText
} from "../../../src/ton/v3Text.js"
import { mixedChain } from "../../../tools/fake/mixedChain.js"
import { fixtureCases } from "../../../tools/decodeDiff/run.js"
import { rawBundle } from "../../support/pipeline/chainUpstream.js"
import { REAL, rebuiltMainnetCases, v3Variants } from "./support.js"

type Case = { readonly tx: TransactionRecord; readonly states: ReadonlyMap<string, AccountStateRecord> }
const NONE: ReadonlyMap<string, AccountStateRecord> = new Map()

const fixtures: Array<Case> = []
for (const e of fixtureCases(REAL)) {
  const d = decodeTransaction(e.boc, e.ctx)
  if (Either.isRight(d)) fixtures.push({ tx: d.right, states: NONE })
}

const chain = mixedChain(5, 14, 20)
const generated: Array<Case> = []
for (let s = chain.first; s <= chain.last; s++) {
  const raw = rawBundle(chain, s)
  if (raw === undefined) continue
  const bundle = assembleBundle(raw, chain.network, pipelineDecode).bundle
  // The generated chain describes no account states: each other transaction's state after is made up here, some with
  // extra currencies, so that the states' every field is rendered.
  const states = new Map(storedStates(bundle.account_states))
  bundle.transactions.forEach((tx, i) => {
    if (i % 2 === 1) return
    states.set(tx.account_state_hash_after, {
      hash: tx.account_state_hash_after,
      account: tx.account,
      balance: tx.lt,
      extra_currencies: i % 3 === 0 ? { "239": tx.lt, "7": "1" } : {},
      account_status: i % 5 === 0 ? "frozen" : "active",
      frozen_hash: i % 5 === 0 ? tx.hash : null,
      data_hash: tx.prev_trans_hash,
      code_hash: i % 7 === 0 ? null : tx.hash
    })
  })
  for (const tx of bundle.transactions) generated.push({ tx, states })
}

const mainnet: Array<Case> = rebuiltMainnetCases()

const shapes: ReadonlyArray<V3Shape> = ["current", "2025-09"]

/** Compares every rendering of a case; returns how many messages it held. */
const compare = ({ tx, states }: Case, i: number): number => {
  for (const v of v3Variants(tx)) {
    for (const shape of shapes) {
      for (const st of i % 2 === 0 ? [states, NONE] : [states]) {
        const expected = goJson(renderV3Transaction(v, st, shape))
        expect(v3TransactionText(v, st, shape)).toBe(expected)
        const [head, tail] = v3TransactionPieces({ ...v, trace_id: null }, st, shape)
        expect(head + tail).toBe(goJson(renderV3Transaction({ ...v, trace_id: null }, st, shape)))
      }
    }
  }
  expect(v3DescriptionText(tx.description)).toBe(goJson(renderV3Description(tx.description)))
  for (const h of [tx.account_state_hash_before, tx.account_state_hash_after]) {
    expect(v3AccountStateText(h, states)).toBe(goJson(renderV3AccountState(h, states)))
  }
  const messages = [...(tx.in_msg === null ? [] : [tx.in_msg]), ...tx.out_msgs]
  for (const m of messages) for (const shape of shapes) expect(v3MessageText(m, shape)).toBe(goJson(renderV3Message(m, shape)))
  return messages.length
}

describe("v3 text renderer against the object renderers through goJson", () => {
  it("renders every real fixture transaction as the reference does", () => {
    let messages = 0
    fixtures.forEach((c, i) => (messages += compare(c, i)))
    expect(fixtures.length).toBeGreaterThanOrEqual(1504)
    expect(messages).toBeGreaterThan(fixtures.length)
  }, 300_000)

  it("renders a generated chain's transactions, real ones mixed in, as the reference does", () => {
    let messages = 0
    let withStates = 0
    generated.forEach((c, i) => {
      if (c.states.has(c.tx.account_state_hash_after)) withStates++
      messages += compare(c, i)
    })
    expect(generated.length).toBeGreaterThan(1_000)
    expect(messages).toBeGreaterThan(generated.length)
    expect(withStates).toBeGreaterThan(0)
  }, 300_000)

  it("renders the rebuilt mainnet transactions with their recorded states as the reference does", () => {
    mainnet.forEach((c) => compare(c, 1))
    expect(mainnet.filter((c) => c.states.has(c.tx.account_state_hash_after)).length).toBeGreaterThan(0)
    expect(mainnet.some((c) => c.tx.trace_id !== null)).toBe(true)
  })

  it("gives a body's decoding once per hash, as the object memo's decoding renders", () => {
    const m = generated.map((c) => c.tx.in_msg).find((x) => x !== null && x.opcode !== null && x.opcode !== 0)!
    const first = decodedBodyText(m.body.hash, m.body.boc)
    expect(first).toBe(goJson(renderV3Message(m).message_content!.decoded))
    // the memo answers by hash: a second call does not read the BOC it is given
    expect(decodedBodyText(m.body.hash, "not a boc")).toBe(first)
  })
})

describe("v3 text renderer on strings JSON or Go escape", () => {
  it("escapes quotes, backslashes, control characters, <, >, & and U+2028 as goJson does", () => {
    const base = generated.find((c) => c.tx.in_msg !== null && c.tx.out_msgs.length > 0)!.tx
    const odd = 'a"b\\c\u0001<d>&e\u2028f\u00e9\ud83d\ude00'
    const tx: TransactionRecord = {
      ...base,
      account: odd,
      lt: odd,
      prev_trans_hash: odd,
      trace_id: odd,
      in_msg: { ...base.in_msg!, source: odd, hash_norm: odd, value_extra_currencies: { [odd]: odd } },
      total_fees_extra_currencies: { "<": ">" }
    }
    for (const shape of shapes) expect(v3TransactionText(tx, NONE, shape)).toBe(goJson(renderV3Transaction(tx, NONE, shape)))
    expect(v3TransactionText(tx, NONE)).toContain("\\u003cd\\u003e\\u0026e\\u2028")
  })
})
