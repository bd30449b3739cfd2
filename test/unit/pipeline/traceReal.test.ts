// The trace_id rule against toncenter's own indexer: 122 real mainnet traces (1,162 transactions) recorded from its
// test suite. Fed bundle by bundle in masterchain order with no other history, every transaction must get exactly
// the trace_id the indexer gave it.
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { realFixturesDir } from "../../support/infra.js"
import { assignTraceIds } from "../../../src/trace/traceIds.js"
import type { TransactionRecord } from "../../../src/ton/record.js"
import { msg, tx } from "./records.js"

interface IndexerMessage {
  readonly msg_hash: string
  readonly direction: "in" | "out"
  readonly source: string | null
  readonly destination: string | null
}
interface IndexerTx {
  readonly hash: string
  readonly lt: string
  readonly mc_block_seqno: number
  readonly trace_id: string
  readonly descr: string
  readonly messages: ReadonlyArray<IndexerMessage>
}
interface IndexerTrace {
  readonly trace: { readonly trace_id: string; readonly state: string }
  readonly transactions: ReadonlyArray<IndexerTx>
}

const load = (): ReadonlyArray<IndexerTrace> =>
  ["part1", "part2"].flatMap((p) =>
    JSON.parse(
      readFileSync(join(realFixturesDir, "indexer-traces", `ton-indexer-tests-traces__decoded__${p}.json`), "utf8")
    )
  )

const toRecord = (t: IndexerTx): TransactionRecord => {
  const asMessage = (m: IndexerMessage) => ({
    ...msg(m.msg_hash),
    hash: m.msg_hash,
    type: m.direction === "in" ? (m.source === null ? "ext_in" : "int") : m.destination === null ? "ext_out" : "int"
  }) as const
  const inMsg = t.messages.find((m) => m.direction === "in")
  const base = tx(t.hash, 0, inMsg ? asMessage(inMsg) : null, t.messages.filter((m) => m.direction === "out").map(asMessage))
  return {
    ...base,
    hash: t.hash,
    lt: t.lt,
    mc_block_seqno: t.mc_block_seqno,
    description: { type: t.descr === "tick_tock" ? "tick_tock" : "ord" }
  }
}

describe("trace_id on real traces", () => {
  it("matches toncenter's indexer for every transaction of every complete trace", () => {
    const traces = load().filter((t) => t.trace.state === "complete")
    expect(traces.length).toBeGreaterThan(100)
    let checked = 0
    const wrong: Array<string> = []
    for (const trace of traces) {
      const bySeqno = new Map<number, Array<IndexerTx>>()
      for (const t of trace.transactions) bySeqno.set(t.mc_block_seqno, [...(bySeqno.get(t.mc_block_seqno) ?? []), t])
      const seqnos = [...bySeqno.keys()].sort((a, b) => a - b)
      // Listed in reverse inside each bundle: the rule may not depend on the order transactions arrive in.
      const bundles = seqnos.map((s) => bySeqno.get(s)!.map(toRecord).reverse())
      const out = assignTraceIds(bundles, { get: () => undefined }, "own-hash")
      for (const [i, s] of seqnos.entries()) {
        for (const r of out[i]!) {
          const expected = bySeqno.get(s)!.find((t) => t.hash === r.hash)!.trace_id
          checked++
          if (r.trace_id !== expected) wrong.push(`${r.hash}: got ${r.trace_id}, indexer ${expected}`)
        }
      }
    }
    expect(wrong).toEqual([])
    expect(checked).toBeGreaterThan(1000)
  })
})
