// The transactions topic's drafts written as text (draftTransactions) against their first form, the object tree through
// goJson (test/support/draftsReference.ts): for every bundle of a generated chain with the recorded real transactions
// mixed in, with and without account states, the same bytes and the same list (offsets, trace fields, unknown states).
import { describe, expect, it } from "vitest"
import { draftTransactions } from "../../../src/kafka/transactions.js"
import { assembleBundle, pipelineDecode } from "../../../src/producer/assemble.js"
import type { AccountStateRecord, MasterchainBundle } from "../../../src/ton/record.js"
import { mixedChain } from "../../../tools/fake/mixedChain.js"
import { draftTransactionsReference } from "../../support/draftsReference.js"
import { rawBundle } from "../../support/pipeline/chainUpstream.js"

const chain = mixedChain(11, 12, 20)
const bundles: Array<MasterchainBundle> = []
for (let s = chain.first; s <= chain.last; s++) {
  const raw = rawBundle(chain, s)
  if (raw !== undefined) bundles.push(assembleBundle(raw, chain.network, pipelineDecode).bundle)
}

/** The bundle with a made-up state for each third transaction's state after (the chain describes none). */
const withStates = (b: MasterchainBundle): MasterchainBundle => ({
  ...b,
  account_states: b.transactions
    .filter((_, i) => i % 3 === 0)
    .map((tx, i): AccountStateRecord => ({
      hash: tx.account_state_hash_after,
      account: tx.account,
      balance: tx.lt,
      extra_currencies: i % 2 === 0 ? {} : { "1": String(i) },
      account_status: "active",
      frozen_hash: null,
      data_hash: tx.hash,
      code_hash: tx.prev_trans_hash
    }))
})

describe("drafts as text against the object renderer's drafts", () => {
  it("writes every bundle's drafts byte for byte as the reference does", () => {
    let txs = 0
    for (const b of bundles) {
      for (const bundle of [b, withStates(b)]) {
        const [got, want] = [draftTransactions(bundle), draftTransactionsReference(bundle)]
        expect(Buffer.from(got.bytes).equals(Buffer.from(want.bytes))).toBe(true)
        expect(got.list).toEqual(want.list)
      }
      txs += b.transactions.length
    }
    expect(txs).toBeGreaterThan(1_000)
    expect(bundles.some((b) => b.transactions.some((t) => t.trace_id !== null))).toBe(true)
  }, 300_000)
})
