import { readFileSync } from "node:fs"
import { describe, expect, it } from "vitest"
import { flattenBundle, type TableRows } from "../../../src/flatten/index.js"
import {
  assembleAccountState,
  assembleBlock,
  assembleDescription,
  assembleTransactions,
  StoreIntegrityError
} from "../../../src/store/assemble.js"
import type { MasterchainBundle } from "../../../src/ton/record.js"
import { FIXTURES, realBundle, syntheticBundle } from "./records.js"

const contentsOf = (r: TableRows) => new Map(r.message_contents.map((c) => [c.hash, c.boc]))

// What leaves ClickHouse is JSON: rows must survive a JSON round trip unchanged for assembly to see the same input.
const viaJson = <A>(a: A): A => JSON.parse(JSON.stringify(a))

const bundles: Array<[string, () => MasterchainBundle]> = [
  ["real mainnet sample", realBundle],
  ["hand-built shapes", () => syntheticBundle(4242)]
]

describe.each(bundles)("record -> rows -> record (%s)", (_name, make) => {
  it("reassembles every transaction exactly", () => {
    const b = make()
    const r = viaJson(flattenBundle(b))
    // Messages in reverse order: assembly must not depend on the order rows come back in.
    const txs = assembleTransactions(r.transactions, [...r.messages].reverse(), contentsOf(r))
    expect(txs).toStrictEqual(b.transactions)
  })

  it("reassembles blocks and account states exactly", () => {
    const b = make()
    const r = viaJson(flattenBundle(b))
    expect(r.blocks.map(assembleBlock)).toStrictEqual([b.mc_block, ...b.shard_blocks])
    const byHash = new Map(b.account_states.map((s) => [s.hash, s]))
    for (const row of r.account_states) expect(assembleAccountState(row)).toStrictEqual(byHash.get(row.hash))
  })
})

describe("assembleDescription", () => {
  it("emits keys in toncenter's order (as in the real v3 responses)", () => {
    const v3 = JSON.parse(
      readFileSync(`${FIXTURES}/v3/ton-org-docs__cookbook-traces__v3_traces__mc-52372896.json`, "utf8")
    )
    const r = flattenBundle(realBundle())
    for (const row of r.transactions) {
      const expected = v3.traces[0].transactions[row.hash].description
      const got = assembleDescription(row)
      expect(Object.keys(got)).toEqual(Object.keys(expected))
      for (const phase of ["storage_ph", "credit_ph", "compute_ph", "action"] as const) {
        if (expected[phase] === undefined) continue
        // toncenter omits members it has no value for; the record keeps them (as null or {}) in the same order.
        const present = new Set(Object.keys(expected[phase]))
        expect(Object.keys(got[phase] as object).filter((k) => present.has(k))).toEqual([...present])
      }
    }
  })

  it("omits every phase whose columns are NULL", () => {
    const r = flattenBundle(syntheticBundle(7))
    const storageOnly = r.transactions.find((t) => t.descr_type === "storage")!
    expect(Object.keys(assembleDescription(storageOnly))).toEqual(["type", "aborted", "destroyed", "storage_ph"])
  })
})

describe("integrity checks", () => {
  const b = syntheticBundle(9)
  const r = flattenBundle(b)
  const withOut = r.transactions.find((t) => t.out_msgs_count === 2)!
  const own = r.messages.filter((m) => m.tx_hash === withOut.hash)

  it("fails loudly when an out message row is missing", () => {
    const missing = own.filter((m) => !(m.direction === "out" && m.msg_index === 1))
    expect(() => assembleTransactions([withOut], missing, contentsOf(r))).toThrow(StoreIntegrityError)
  })

  it("fails loudly when the in message row is missing", () => {
    const missing = own.filter((m) => m.direction !== "in")
    expect(() => assembleTransactions([withOut], missing, contentsOf(r))).toThrow(StoreIntegrityError)
  })

  it("fails loudly when a body is missing", () => {
    const contents = contentsOf(r)
    contents.delete(own[0]!.body_hash)
    expect(() => assembleTransactions([withOut], own, contents)).toThrow(StoreIntegrityError)
  })
})
