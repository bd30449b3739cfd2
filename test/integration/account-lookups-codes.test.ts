/**
 * The key-value code hashes (the account rows of `account_lookups_kv`, sql/0142) on the real engine: the fill of an
 * existing store (rows of several done blocks per account, rows of a block never done, an account that lost its code)
 * keeps per account the newest done report; pages and the API answer from the rows exactly what `latest_account_code`
 * gives (before the fill too); the consumer's guarded writes keep the newest out of order and on replay; and two
 * writers (two consumers, or a consumer beside the fill) stopped at the point where a guarded write alone loses end
 * with the newest done row.
 */
import type { FastifyInstance } from "fastify"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { buildApp, type ApiAppConfig } from "../../src/api/app.js"
import { flattenBundles } from "../../src/flatten/index.js"
import { type CodeKvRow, writeAccountCodes } from "../../src/store/accountCodeKv.js"
import { accountLookupsKvFilled, fillAccountLookupsKv } from "../../src/store/accountLookupsKv.js"
import { backfillV3Pages } from "../../src/store/backfillV3Pages.js"
import { ClickHouseTxStore } from "../../src/store/Store.js"
import type { MasterchainBundle } from "../../src/ton/record.js"
import { code, storeWriter } from "../support/codeRows.js"
import { testClickHouse, type TestClickHouse } from "../support/integration.js"
import { realBundle, syntheticBundle } from "../unit/store/records.js"

const config: ApiAppConfig = { network: "mainnet", api: { keys: [], rateLimit: 0 }, cacheBytes: 0 }
const clock = { nowMs: () => 1724745562699, random: () => 0.5335802192168009 }

const bundles: ReadonlyArray<MasterchainBundle> = [
  realBundle(),
  syntheticBundle(801),
  syntheticBundle(802),
  syntheticBundle(803)
]
const accounts801 = Object.keys(bundles[1]!.code_hashes)
// Later reports of 801's accounts: one of done block 803 (the newest done; one account loses its code there), one of
// block 900, never done; and an older report of done block 1.
const extra: ReadonlyArray<CodeKvRow> = accounts801.flatMap((account, i) => [
  { account, mc_seqno: 1, code_hash: code(`old ${i}`) },
  { account, mc_seqno: 803, code_hash: i === 0 ? null : code(`newest ${i}`) },
  { account, mc_seqno: 900, code_hash: code(`never done ${i}`) }
])

let ch: TestClickHouse
let plain: ClickHouseTxStore
let fromKv: FastifyInstance
let fromPlain: FastifyInstance

const { query, insert, insertCodes, markDone } = storeWriter(() => ch.client)

/** The stored row of each account (without the filled marker). */
const stored = async (): Promise<Map<string, { mc: number; code: string | null }>> =>
  new Map(
    (
      await query<{ account: string; m: number; c: string | null }>(
        "SELECT key AS account, mc_seqno AS m, nullIf(value, '') AS c FROM account_lookups_kv WHERE key LIKE '%:%'"
      )
    ).map((r) => [r.account, { mc: Number(r.m), code: r.c }])
  )

/** Each account's newest done `latest_account_code` row, as the read path took it before the table. */
const newestDone = async (): Promise<Map<string, { mc: number; code: string | null }>> =>
  new Map(
    (
      await query<{ account: string; m: number; c: string | null }>(
        `SELECT account, max(mc_seqno) AS m, argMax(tuple(code_hash), mc_seqno).1 AS c FROM latest_account_code
       WHERE mc_seqno IN (SELECT mc_seqno FROM mc_blocks_done) GROUP BY account`
      )
    ).map((r) => [r.account, { mc: Number(r.m), code: r.c }])
  )

const pagesOf = async (store: ClickHouseTxStore) => {
  const out: Array<unknown> = []
  for (const b of bundles) {
    for (const sort of ["asc", "desc"] as const) {
      const page = await store.v3PageText(b.mc_seqno, { limit: 1000, offset: 0, sort }, true)
      expect(page, `${b.mc_seqno}`).not.toBeNull()
      out.push({ seqno: b.mc_seqno, sort, book: page!.book, codes: [...page!.codeHashes].sort() })
    }
  }
  return out
}

const sameApi = async () => {
  for (const b of bundles) {
    for (const q of ["", "&sort=asc", "&limit=3&offset=2"]) {
      const url = `/api/v3/masterchainBlockShardState?seqno=${b.mc_seqno}${q}`
      const [a, p] = await Promise.all([fromKv.inject(url), fromPlain.inject(url)])
      expect(a.statusCode, url).toBe(200)
      expect(a.body, url).toBe(p.body)
    }
  }
}

/** A stop a test releases: `reached` resolves when a writer arrives, `release` lets it go on. */
const gate = () => {
  let reach!: () => void
  let go!: () => void
  const reached = new Promise<void>((r) => (reach = r))
  const released = new Promise<void>((r) => (go = r))
  let used = false
  return {
    reached,
    release: () => go(),
    // only the first arrival stops
    stop: async () => {
      if (used) return
      used = true
      reach()
      await released
    }
  }
}

beforeAll(async () => {
  ch = await testClickHouse("codekv")
  // Merges keep one row per account, the newest, done or not: the rows of a block never done would hide the done
  // ones from both paths alike (in a running store such rows are removed or become done).
  await ch.client.command({ query: "SYSTEM STOP MERGES latest_account_code" })
  await insert(flattenBundles(bundles))
  await insertCodes(extra)
  await markDone(1)
  await backfillV3Pages(ch.client)
  plain = new ClickHouseTxStore(ch.client, { pageKv: false })
  fromKv = buildApp({ store: new ClickHouseTxStore(ch.client), config, clock })
  fromPlain = buildApp({ store: plain, config, clock })
}, 120_000)

afterAll(async () => {
  await fromKv?.close()
  await fromPlain?.close()
  await ch?.close()
})

describe("account_lookups_kv's code rows", () => {
  it("the store holds several reports per account, one of a block never done, and a lost code", async () => {
    const newest = await newestDone()
    expect(newest.get(accounts801[0]!)).toEqual({ mc: 803, code: null })
    expect(newest.get(accounts801[1]!)).toEqual({ mc: 803, code: code("newest 1") })
    const byAccount = await query<{ n: string }>(
      `SELECT count() AS n FROM latest_account_code WHERE account = '${accounts801[1]!}'`
    )
    expect(Number(byAccount[0]!.n)).toBe(4)
  })

  it("before the fill, pages answer from latest_account_code, identically", async () => {
    expect(await accountLookupsKvFilled(ch.client)).toBe(false)
    expect(await pagesOf(new ClickHouseTxStore(ch.client))).toEqual(await pagesOf(plain))
  })

  it("the fill keeps each account's newest done report (never one of a block not done) and marks the table filled", async () => {
    const want = await newestDone()
    expect((await fillAccountLookupsKv(ch.client))?.accounts).toBe(want.size)
    expect(await accountLookupsKvFilled(ch.client)).toBe(true)
    expect(await stored()).toEqual(want)
    for (const [, r] of await stored()) expect(r.mc).not.toBe(900)
    expect(await fillAccountLookupsKv(ch.client)).toBeNull()
    const kv = new ClickHouseTxStore(ch.client)
    expect(await pagesOf(kv)).toEqual(await pagesOf(plain))
    await sameApi()
  })

  it("once filled, pages read the code hashes from the key-value rows", async () => {
    const kv = new ClickHouseTxStore(ch.client)
    const before = await pagesOf(kv)
    // newer done reports stored behind the table's back: only the MergeTree path sees them
    const bypass = accounts801.map((account, i) => ({ account, mc_seqno: 805, code_hash: code(`bypass ${i}`) }))
    await insertCodes(bypass)
    await markDone(805)
    expect(await pagesOf(kv)).toEqual(before)
    expect(await pagesOf(plain)).not.toEqual(before)
    await writeAccountCodes(ch.client, bypass, [805])
    expect(await pagesOf(kv)).toEqual(await pagesOf(plain))
  })

  it("guarded writes keep the newest: out of order, replayed, a block not done still unseen", async () => {
    const account = "0:" + "A1".repeat(32)
    const row = (mc: number) => ({ account, mc_seqno: mc, code_hash: code(`w ${mc}`) })
    await insertCodes([row(1001), row(1003), row(1005)])
    await markDone(1003)
    await writeAccountCodes(ch.client, [row(1003)], [1003])
    expect((await stored()).get(account)).toEqual({ mc: 1003, code: code("w 1003") })
    // an older block finished later, and a replay of it
    await markDone(1001)
    await writeAccountCodes(ch.client, [row(1001)], [1001])
    await writeAccountCodes(ch.client, [row(1001)], [1001])
    expect((await stored()).get(account)).toEqual({ mc: 1003, code: code("w 1003") })
    // 1005 is not done: nothing writes it
    expect((await stored()).get(account)?.mc).toBe(1003)
    await markDone(1005)
    await writeAccountCodes(ch.client, [row(1005)], [1005])
    expect((await stored()).get(account)).toEqual({ mc: 1005, code: code("w 1005") })
    expect(await pagesOf(new ClickHouseTxStore(ch.client))).toEqual(await pagesOf(plain))
  })

  it("two consumers: the older one's write lands after the newer one's (a guarded write alone loses), its check repairs it", async () => {
    const account = "0:" + "C3".repeat(32)
    const row = (mc: number) => ({ account, mc_seqno: mc, code_hash: code(`d ${mc}`) })
    await insertCodes([row(3010), row(3011)])
    await markDone(3010, 3011)
    const put = gate()
    const check = gate()
    const a = writeAccountCodes(ch.client, [row(3010)], [3010], { beforePut: put.stop, beforeCheck: check.stop })
    await put.reached
    await writeAccountCodes(ch.client, [row(3011)], [3011])
    put.release()
    await check.reached
    expect((await stored()).get(account)?.mc).toBe(3010)
    check.release()
    await a
    expect((await stored()).get(account)).toEqual({ mc: 3011, code: code("d 3011") })
  })

  it("a consumer beside the fill: the fill's stale snapshot lands after the consumer's write, and the fill repairs it", async () => {
    const account = "0:" + "D4".repeat(32)
    const row = (mc: number) => ({ account, mc_seqno: mc, code_hash: code(`f ${mc}`) })
    await insertCodes([row(4010), row(4011)])
    await markDone(4010)
    await ch.client.command({ query: "ALTER TABLE account_lookups_kv DELETE WHERE key = ''" })
    expect(await accountLookupsKvFilled(ch.client)).toBe(false)
    const put = gate()
    const check = gate()
    // the fill read its snapshot (4010) and the stored rows, and stops before writing
    const fill = fillAccountLookupsKv(ch.client, { beforePut: put.stop, beforeCheck: check.stop })
    await put.reached
    // block 4011 finishes and its consumer writes its row
    await markDone(4011)
    await writeAccountCodes(ch.client, [row(4011)], [4011])
    expect((await stored()).get(account)?.mc).toBe(4011)
    put.release()
    // the snapshot's put landed over it
    await check.reached
    expect((await stored()).get(account)?.mc).toBe(4010)
    check.release()
    await fill
    expect(await accountLookupsKvFilled(ch.client)).toBe(true)
    expect((await stored()).get(account)).toEqual({ mc: 4011, code: code("f 4011") })
    expect(await stored()).toEqual(await newestDone())
  })
})
