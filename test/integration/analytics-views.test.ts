// The analytics views after an ingest that went wrong in every way the consumer survives: a batch cut short (some
// tables written, the transactions insert only half done, no marker), a consumer restart that cleans up and writes
// the batch again, a replayed batch, a second writer storing a done block again, inserts cut into small chunks, and
// a block left unfinished at the end. The views must equal plain GROUP BYs over the deduplicated base rows of done
// blocks, and the raw aggregate tables must hold the extra attempts (so the scenario really replayed).
import type { ClickHouseClient } from "@clickhouse/client"
import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { backfillAnalytics } from "../../src/analytics/backfill.js"
import { pruneAnalyticsAttempts } from "../../src/analytics/prune.js"
import { flattenBundles, INSERT_ORDER, type TableRows } from "../../src/flatten/index.js"
import type { ClickHouseSink } from "../../src/sink/ClickHouseSink.js"
import { testClickHouse, type TestClickHouse } from "../support/integration.js"
import { sinkItem, withSink as withTestSink } from "../support/sink.js"
import { realBlockBundles } from "../unit/store/realBlocks.js"

let handle: TestClickHouse
let client: ClickHouseClient
const bundles = [...realBlockBundles().bundles].sort((a, b) => a.mc_seqno - b.mc_seqno)
const RANGE = "from_time = '2000-01-01 00:00:00', to_time = '2100-01-01 00:00:00'"
const DAYS = "from_day = '2000-01-01', to_day = '2100-01-01'"
const DONE = "mc_block_seqno IN (SELECT mc_seqno FROM mc_blocks_done)"

const rows = async <T = Record<string, unknown>>(query: string): Promise<Array<T>> =>
  (await client.query({ query, format: "JSONEachRow" })).json<T>()

const item = sinkItem

/** One sink = one consumer process: `recover` is what it runs at start-up. */
const withSink = <A>(f: (sink: ClickHouseSink["Type"]) => Effect.Effect<A, unknown>) => withTestSink(handle.config, f)

const noBeat = () => Promise.resolve()

/** Writes tables the way the consumer does, in small chunks, stopping where a crash would. */
const insertRaw = async (
  batch: TableRows,
  tables: ReadonlyArray<keyof TableRows>,
  cut?: { table: string; keep: number }
) => {
  for (const table of tables) {
    let values = batch[table] as Array<unknown>
    if (values.length === 0) continue
    if (cut?.table === table) values = values.slice(0, Math.floor(values.length * cut.keep))
    await client.insert({
      table,
      values,
      format: "JSONEachRow",
      clickhouse_settings: {
        max_insert_block_size: "64",
        min_insert_block_size_rows: "64",
        min_insert_block_size_bytes: "4096"
      }
    })
  }
}

beforeAll(async () => {
  handle = await testClickHouse("analytics views")
  client = handle.client
  const [a0, a1, a2, b0, b1, b2, c0, late] = bundles
  expect(late).toBeDefined()
  // 1. A first consumer stores batch A.
  await withSink((s) => s.write([a0!, a1!, a2!].map(item), noBeat))
  // 2. It dies inside batch B: messages stored, transactions half stored, nothing after.
  const batchB = flattenBundles([b0!, b1!, b2!])
  const upToTx = INSERT_ORDER.slice(0, INSERT_ORDER.indexOf("transactions") + 1)
  await insertRaw(batchB, upToTx, { table: "transactions", keep: 0.5 })
  // 3. A new consumer starts: cleanup, then Kafka redelivers A (already done) together with B and C.
  await withSink((s) =>
    Effect.gen(function* () {
      const removed = yield* s.recover
      expect(removed).toEqual([b0!.mc_seqno, b1!.mc_seqno, b2!.mc_seqno])
      yield* s.write([a1!, a2!, b0!, b1!, b2!, c0!].map(item), noBeat)
    })
  )
  // 4. A second writer (rebalance overlap) stores a done block again, marker included, in small chunks.
  await insertRaw(flattenBundles([b1!]), INSERT_ORDER)
  // 5. The last block is cut short and never finished.
  await insertRaw(flattenBundles([late!]), INSERT_ORDER.slice(0, -1))
})

afterAll(async () => {
  await handle?.close()
})

const num = (v: unknown) => Number(v)

describe("analytics views under replays and a consumer restart", () => {
  it("the scenario really stored extra attempts and an unfinished block", async () => {
    const [raw] = await rows<{ n: string }>("SELECT sum(transactions) AS n FROM analytics_tx_mc")
    const [base] = await rows<{ n: string }>(`SELECT count() AS n FROM transactions FINAL WHERE ${DONE}`)
    const [attempts] = await rows<{ n: string }>(
      "SELECT max(c) AS n FROM (SELECT mc_seqno, uniqExact(insert_id) AS c FROM analytics_tx_mc GROUP BY mc_seqno)"
    )
    expect(num(raw!.n)).toBeGreaterThan(num(base!.n))
    expect(num(attempts!.n)).toBeGreaterThanOrEqual(3)
    const done = await rows<{ mc_seqno: number }>("SELECT DISTINCT mc_seqno FROM mc_blocks_done ORDER BY mc_seqno")
    expect(done.map((r) => r.mc_seqno)).toEqual(bundles.slice(0, 7).map((b) => b.mc_seqno))
  })

  it("hourly and daily transaction figures equal GROUP BY over the base rows", async () => {
    for (const [view, bucket] of [
      ["analytics_hourly", "toStartOfHour(toDateTime(now, 'UTC'))"],
      ["analytics_daily", "toDate(toDateTime(now, 'UTC'))"]
    ] as const) {
      const got = await rows(
        `SELECT toString(${view === "analytics_hourly" ? "hour" : "day"}) AS bucket, transactions, successful, aborted,
                total_fees, active_accounts FROM ${view}(${RANGE}) ORDER BY bucket`
      )
      const want = await rows(
        `SELECT toString(${bucket}) AS bucket, count() AS transactions,
                countIf(NOT ifNull(t.aborted, false)) AS successful,
                countIf(ifNull(t.aborted, false)) AS aborted, sum(toUInt128(t.total_fees)) AS total_fees,
                uniq(t.account) AS active_accounts
         FROM transactions AS t FINAL WHERE ${DONE} GROUP BY bucket ORDER BY bucket`
      )
      expect(want.length).toBeGreaterThan(1)
      expect(got).toEqual(want)
    }
  })

  it("message figures per day and per opcode equal GROUP BY over the base rows", async () => {
    const got = await rows(
      `SELECT toString(day) AS day, messages_in, messages_out, external_in, internal_in, bounced_in, value_moved
       FROM analytics_daily(${RANGE}) ORDER BY day`
    )
    const want = await rows(
      `SELECT toString(toDate(toDateTime(tx_now, 'UTC'))) AS day, countIf(direction = 'in') AS messages_in,
              countIf(direction = 'out') AS messages_out, countIf(direction = 'in' AND type = 'ext_in') AS external_in,
              countIf(direction = 'in' AND type = 'int') AS internal_in,
              countIf(direction = 'in' AND type = 'int' AND ifNull(bounced, false)) AS bounced_in,
              sumIf(ifNull(value, toUInt128(0)), direction = 'in' AND type = 'int') AS value_moved
       FROM messages FINAL WHERE ${DONE} GROUP BY day ORDER BY day`
    )
    expect(got).toEqual(want)
    const gotOps = await rows(
      `SELECT toString(day) AS day, direction, type, opcode, messages, bounced, value FROM analytics_opcodes(${RANGE})`
    )
    const wantOps = await rows(
      `SELECT toString(toDate(toDateTime(tx_now, 'UTC'))) AS day, direction, type,
              ifNull(toInt64(opcode), -1) AS opcode,
              count() AS messages, countIf(ifNull(bounced, false)) AS bounced,
              sum(ifNull(value, toUInt128(0))) AS value
       FROM messages FINAL WHERE ${DONE} GROUP BY day, direction, type, opcode ORDER BY day, direction, type, opcode`
    )
    expect(gotOps.length).toBeGreaterThan(5)
    expect(gotOps).toEqual(wantOps)
  })

  it("per-account activity equals GROUP BY over the base rows", async () => {
    const got = await rows(
      `SELECT account, transactions, aborted, total_fees, toString(first_seen) AS first_seen,
              toString(last_seen) AS last_seen, first_lt, last_lt
       FROM analytics_accounts(${DAYS}) ORDER BY account`
    )
    const want = await rows(
      `SELECT t.account AS account, count() AS transactions, countIf(ifNull(t.aborted, false)) AS aborted,
              sum(toUInt128(t.total_fees)) AS total_fees, toString(toDateTime(min(t.now), 'UTC')) AS first_seen,
              toString(toDateTime(max(t.now), 'UTC')) AS last_seen, min(t.lt) AS first_lt, max(t.lt) AS last_lt
       FROM transactions AS t FINAL WHERE ${DONE} GROUP BY account ORDER BY account`
    )
    expect(want.length).toBeGreaterThan(10)
    expect(got).toEqual(want)
  })

  it("the views equal figures computed from the decoded records themselves", async () => {
    const done = bundles.slice(0, 7).flatMap((b) => b.transactions)
    const [total] = await rows<{ t: string; f: string; a: string }>(
      `SELECT sum(transactions) AS t, sum(total_fees) AS f, sum(aborted) AS a FROM analytics_daily(${RANGE})`
    )
    expect(num(total!.t)).toBe(done.length)
    expect(BigInt(total!.f)).toBe(done.reduce((s, t) => s + BigInt(t.total_fees), 0n))
    expect(num(total!.a)).toBe(done.filter((t) => t.description.aborted === true).length)
  })

  it("pruning superseded attempts leaves every view unchanged and one attempt per done block", async () => {
    const snapshot = async () => ({
      hourly: await rows(`SELECT * FROM analytics_hourly(${RANGE})`),
      opcodes: await rows(`SELECT * FROM analytics_opcodes(${RANGE})`),
      accounts: await rows(`SELECT * FROM analytics_accounts(${DAYS}) ORDER BY account`)
    })
    const before = await snapshot()
    const late = bundles.at(-1)!
    const lateRows = async () =>
      rows(`SELECT count() AS n FROM analytics_tx_mc WHERE mc_seqno = ${late.mc_seqno}`).then((r) => Number(r[0]!.n))
    const lateBefore = await lateRows()
    expect(lateBefore).toBeGreaterThan(0)
    await pruneAnalyticsAttempts(client, { fromSeqno: 0, toSeqno: late.mc_seqno })
    expect(await snapshot()).toEqual(before)
    const [raw] = await rows<{ n: string }>(
      `SELECT sum(transactions) AS n FROM analytics_tx_mc WHERE mc_seqno IN (SELECT mc_seqno FROM mc_blocks_done)`
    )
    const [base] = await rows<{ n: string }>(`SELECT count() AS n FROM transactions FINAL WHERE ${DONE}`)
    expect(raw!.n).toBe(base!.n)
    const [msgRaw] = await rows<{ n: string }>(
      `SELECT sum(messages) AS n FROM analytics_msg_mc WHERE mc_seqno IN (SELECT mc_seqno FROM mc_blocks_done)`
    )
    const [msgBase] = await rows<{ n: string }>(`SELECT count() AS n FROM messages FINAL WHERE ${DONE}`)
    expect(msgRaw!.n).toBe(msgBase!.n)
    // The unfinished block keeps its rows: its next attempt decides.
    expect(await lateRows()).toBe(lateBefore)
  })

  it("a backfill from the base tables rebuilds the same figures (history from before the views)", async () => {
    const snapshot = async () => ({
      daily: await rows(`SELECT * FROM analytics_daily(${RANGE})`),
      opcodes: await rows(`SELECT * FROM analytics_opcodes(${RANGE})`),
      accounts: await rows(`SELECT * FROM analytics_accounts(${DAYS}) ORDER BY account`)
    })
    const before = await snapshot()
    expect(before.daily.length).toBeGreaterThan(1)
    for (const t of ["analytics_tx_mc", "analytics_msg_mc", "analytics_account_day"]) {
      await client.command({ query: `TRUNCATE TABLE ${t}` })
    }
    expect(await rows(`SELECT * FROM analytics_daily(${RANGE})`)).toEqual([])
    const statements = await backfillAnalytics(client, {
      fromSeqno: 0,
      toSeqno: bundles.at(-1)!.mc_seqno,
      step: 20_000_000
    })
    expect(statements).toBeGreaterThan(0)
    expect(await snapshot()).toEqual(before)
    // A second backfill over the same range is one more attempt per block, not double counts.
    await backfillAnalytics(client, { fromSeqno: 0, toSeqno: bundles.at(-1)!.mc_seqno, step: 20_000_000 })
    expect(await snapshot()).toEqual(before)
  })
})
