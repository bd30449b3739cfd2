// A transaction that reaches the sink without a trace id takes its parent's from stored history, whichever batch or
// consumer process stored the parent: batches whose every transaction carries its id (as the producer publishes
// them) are written as they came and teach the sink's cache nothing, so the parent is found in `messages`.
import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { ClickHouseSink } from "../../src/sink/ClickHouseSink.js"
import type { MasterchainBundle, TransactionRecord } from "../../src/ton/record.js"
import { testClickHouse, type TestClickHouse } from "../support/integration.js"
import { sinkItem, withSink as withTestSink } from "../support/sink.js"
import { syntheticBundle } from "../unit/store/records.js"

let handle: TestClickHouse

const item = sinkItem
const noBeat = () => Promise.resolve()

/** One sink = one consumer process: `recover` is what it runs at start-up. */
const withSink = <A>(f: (sink: ClickHouseSink["Type"]) => Effect.Effect<A, unknown>) => withTestSink(handle.config, f)

const traced = (b: MasterchainBundle, id: (t: TransactionRecord) => string | null): MasterchainBundle => ({
  ...b,
  transactions: b.transactions.map((t) => ({ ...t, trace_id: id(t) }))
})

// One trace for the whole block, named by its first transaction: a child that took its own hash would differ.
const parentBlock = syntheticBundle(2000)
const parentBundle = traced(parentBlock, () => parentBlock.transactions[0]!.hash)
const parent = parentBundle.transactions.find((t) => t.out_msgs.some((m) => m.type === "int"))!
const parentOut = parent.out_msgs.find((m) => m.type === "int")!

/** A later block whose one child of `parent` has no trace id; every other transaction carries one. */
const childBundle = (seqno: number): { bundle: MasterchainBundle; child: string } => {
  const b = syntheticBundle(seqno)
  const child = b.transactions.find((t) => t.in_msg?.type === "int" && t.description.type !== "tick_tock")!
  return {
    child: child.hash,
    bundle: {
      ...b,
      transactions: b.transactions.map((t) =>
        t === child
          ? { ...t, trace_id: null, in_msg: { ...t.in_msg!, hash: parentOut.hash } }
          : { ...t, trace_id: t.hash }
      )
    }
  }
}

const traceOf = async (hash: string) =>
  (
    await (
      await handle.client.query({
        query: "SELECT trace_id FROM transactions WHERE hash = {h:String}",
        query_params: { h: hash },
        format: "JSONEachRow"
      })
    ).json<{ trace_id: string | null }>()
  ).map((r) => r.trace_id)

beforeAll(async () => {
  handle = await testClickHouse("sink trace history")
}, 120_000)

afterAll(async () => {
  await handle?.close()
})

describe("trace ids from stored history", () => {
  it("a child in a later batch of the same process takes the parent's trace id", async () => {
    expect(parent).toBeDefined()
    const { bundle, child } = childBundle(2001)
    await withSink((s) =>
      Effect.gen(function* () {
        yield* s.write([item(parentBundle)], noBeat)
        yield* s.write([item(bundle)], noBeat)
      })
    )
    expect(await traceOf(child)).toEqual([parent.trace_id])
  })

  it("a child stored by another process takes it too, and one whose parent is unknown starts its own trace", async () => {
    const known = childBundle(2002)
    await withSink((s) => s.write([item(known.bundle)], noBeat))
    expect(await traceOf(known.child)).toEqual([parent.trace_id])

    const b = syntheticBundle(2003)
    const orphan = b.transactions.find((t) => t.in_msg?.type === "int" && t.description.type !== "tick_tock")!
    const unknown = {
      ...b,
      transactions: b.transactions.map((t) =>
        t === orphan
          ? { ...t, trace_id: null, in_msg: { ...t.in_msg!, hash: "A".repeat(43) + "=" } }
          : { ...t, trace_id: t.hash }
      )
    }
    await withSink((s) => s.write([item(unknown)], noBeat))
    expect(await traceOf(orphan.hash)).toEqual([orphan.hash])
  })
})
