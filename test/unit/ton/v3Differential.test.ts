// The v3 Transaction and Message renderers against their first, spread-built form (test/support/v3Reference.ts):
// for every transaction of a generated chain with the recorded real transactions mixed in, and for the rebuilt real
// transactions of the v3 fixtures, in both shapes, with and without a trace id, with and without the account states
// and with a normalized external-in hash, the rendered objects give the same Go JSON (keys, order and values).
import { describe, expect, it } from "vitest"
import { goJson } from "../../../src/api/json.js"
import { storedStates } from "../../../src/kafka/transactions.js"
import { assembleBundle, pipelineDecode } from "../../../src/producer/assemble.js"
import type { AccountStateRecord, TransactionRecord } from "../../../src/ton/record.js"
import { renderV3Message, renderV3Transaction, type V3Shape } from "../../../src/ton/v3.js"
import { mixedChain } from "../../../tools/fake/mixedChain.js"
import { rawBundle } from "../../support/pipeline/chainUpstream.js"
import { referenceV3Message, referenceV3Transaction } from "../../support/v3Reference.js"
import { rebuiltMainnetCases, v3Variants } from "./support.js"

const chain = mixedChain(5, 14, 20)

const cases: Array<{ readonly tx: TransactionRecord; readonly states: ReadonlyMap<string, AccountStateRecord> }> = []
for (let s = chain.first; s <= chain.last; s++) {
  const raw = rawBundle(chain, s)
  if (raw === undefined) continue
  const bundle = assembleBundle(raw, chain.network, pipelineDecode).bundle
  const states = storedStates(bundle.account_states)
  for (const tx of bundle.transactions) cases.push({ tx, states })
}
const mainnet = rebuiltMainnetCases()
cases.push(...mainnet)
const fromFixture = mainnet.length

const shapes: ReadonlyArray<V3Shape> = ["current", "2025-09"]

describe("v3 renderers against their reference", () => {
  it("render every transaction of the chain and the real fixtures as the reference does", () => {
    let messages = 0
    let withStates = 0
    for (const [i, { tx, states }] of cases.entries()) {
      for (const v of v3Variants(tx)) {
        for (const shape of shapes) {
          const st = i % 2 === 0 || i >= cases.length - fromFixture ? states : new Map<string, AccountStateRecord>()
          if (st.has(v.account_state_hash_after)) withStates++
          expect(goJson(renderV3Transaction(v, st, shape))).toBe(goJson(referenceV3Transaction(v, st, shape)))
        }
      }
      for (const m of [...(tx.in_msg === null ? [] : [tx.in_msg]), ...tx.out_msgs]) {
        for (const shape of shapes) expect(goJson(renderV3Message(m, shape))).toBe(goJson(referenceV3Message(m, shape)))
        messages++
      }
    }
    expect(fromFixture).toBe(6)
    expect(cases.length).toBeGreaterThan(1_000)
    expect(messages).toBeGreaterThan(cases.length)
    expect(withStates).toBeGreaterThan(0)
  })
})
