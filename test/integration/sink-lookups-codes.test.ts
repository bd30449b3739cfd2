// The sink writes the account rows of `account_lookups_kv` (sql/0142) after a batch's completion markers: the rows
// equal each account's newest done `latest_account_code` row whatever order batches came in, a replayed batch (already
// done) changes nothing, and a batch's code rows reach the table even when their blocks were marked done by an earlier
// attempt.
import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { ClickHouseSink } from "../../src/sink/ClickHouseSink.js"
import type { MasterchainBundle } from "../../src/ton/record.js"
import { testClickHouse, type TestClickHouse } from "../support/integration.js"
import { sinkItem, withSink as withTestSink } from "../support/sink.js"
import { syntheticBundle } from "../unit/store/records.js"

let handle: TestClickHouse

const item = sinkItem
const noBeat = () => Promise.resolve()

/** One sink = one consumer process: `recover` is what it runs at start-up. */
const withSink = <A>(f: (sink: ClickHouseSink["Type"]) => Effect.Effect<A, unknown>) => withTestSink(handle.config, f)

const query = async <T>(sql: string): Promise<Array<T>> =>
  (await handle.client.query({ query: sql, format: "JSONEachRow" })).json<T>()

// Blocks that report the same accounts, each with its own code hash (one account loses its code in the newest).
const shared = Object.keys(syntheticBundle(3000).code_hashes)
const reporting = (seqno: number): MasterchainBundle => ({
  ...syntheticBundle(seqno),
  code_hashes: Object.fromEntries(
    shared.map((a, i) => [
      a,
      seqno === 3003 && i === 0 ? null : Buffer.from(`${a}@${seqno}`).toString("base64").slice(0, 44)
    ])
  )
})

const kvRows = () =>
  query<{ account: string; mc_seqno: number; code_hash: string | null }>(
    `SELECT key AS account, mc_seqno, if(value = '', NULL, value) AS code_hash FROM account_lookups_kv
     WHERE key LIKE '%:%' ORDER BY account`
  )
const newestDone = () =>
  query<{ account: string; mc_seqno: number; code_hash: string | null }>(
    `SELECT account, m AS mc_seqno, c AS code_hash FROM (
       SELECT account, max(mc_seqno) AS m, argMax(tuple(code_hash), mc_seqno).1 AS c
       FROM latest_account_code WHERE mc_seqno IN (SELECT mc_seqno FROM mc_blocks_done) GROUP BY account)
     ORDER BY account`
  )

beforeAll(async () => {
  handle = await testClickHouse("sink code kv")
}, 120_000)

afterAll(async () => {
  await handle?.close()
})

describe("the sink's account rows of account_lookups_kv", () => {
  it("hold each account's newest done report, batches out of order and replayed", async () => {
    await withSink((sink) => sink.write([item(reporting(3000)), item(reporting(3002))], noBeat))
    expect(await kvRows()).toEqual(await newestDone())
    expect((await kvRows()).every((r) => r.mc_seqno === 3002)).toBe(true)
    // an older block after a newer one, then the newest
    await withSink((sink) => sink.write([item(reporting(3001))], noBeat))
    expect((await kvRows()).every((r) => r.mc_seqno === 3002)).toBe(true)
    await withSink((sink) => sink.write([item(reporting(3003))], noBeat))
    const rows = await kvRows()
    expect(rows).toEqual(await newestDone())
    expect(rows.find((r) => r.account === shared[0])).toEqual({ account: shared[0], mc_seqno: 3003, code_hash: null })
    // a replay of done blocks
    await withSink((sink) => sink.write([item(reporting(3000)), item(reporting(3001))], noBeat))
    expect(await kvRows()).toEqual(rows)
  })

  it("are written for blocks an earlier attempt marked done", async () => {
    const b = reporting(3010)
    await withSink((sink) => sink.write([item(b)], noBeat))
    // as if the attempt had ended after the markers: the code rows gone, the block done
    await handle.client.command({ query: "ALTER TABLE account_lookups_kv DELETE WHERE key LIKE '%:%'" })
    expect(await kvRows()).toEqual([])
    const result = await withSink((sink) => sink.write([item(b)], noBeat))
    expect(result.alreadyDone).toEqual([3010])
    expect(await kvRows()).toEqual(await newestDone())
    expect((await kvRows()).length).toBe(shared.length)
  })
})
