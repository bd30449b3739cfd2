/**
 * The state rows of `account_lookups_kv` (sql/0142) on the real engine, over the real mainnet sample (its states as
 * the decoder makes them) and generated blocks (known and hash-only states, frozen accounts, extra currencies, a state
 * known only by a later block, a later block listing known states hash-only, a row of a build that counted a frozen
 * hash as no field): before the fill the read path answers from `account_states`; the fill copies every known state
 * from `account_states` (the rows equal its answer) and marks the table filled; then every page shape and the API's
 * pages answer from the rows exactly what `account_states` gives, replays through the table's view change nothing,
 * and a hash-only row never hides a known state.
 */
import type { FastifyInstance } from "fastify"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { buildApp, type ApiAppConfig } from "../../src/api/app.js"
import { flattenBundles, INSERT_ORDER, type TableRows } from "../../src/flatten/index.js"
import { accountLookupsKvFilled, fillAccountLookupsKv } from "../../src/store/accountLookupsKv.js"
import { backfillV3Pages } from "../../src/store/backfillV3Pages.js"
import { ClickHouseTxStore } from "../../src/store/Store.js"
import { v3Tail } from "../../src/store/pages.js"
import type { SortOrder, V3PageText } from "../../src/store/TxStore.js"
import type { AccountStateRecord, MasterchainBundle } from "../../src/ton/record.js"
import { testClickHouse, type TestClickHouse } from "../support/integration.js"
import { pageAsText, withStateHashes } from "../support/pageText.js"
import { realBundle, syntheticBundle } from "../unit/store/records.js"

const config: ApiAppConfig = { network: "mainnet", api: { keys: [], rateLimit: 0 }, cacheBytes: 0 }
const clock = { nowMs: () => 1724745562699, random: () => 0.5335802192168009 }

const first = syntheticBundle(801)
const hashOnlyOf = (s: AccountStateRecord): AccountStateRecord => ({
  ...s,
  balance: null,
  extra_currencies: null,
  account_status: null,
  frozen_hash: null,
  data_hash: null,
  code_hash: null
})
// A later block that knows the states `first` holds only by hash (they show on `first`'s pages once stored).
const knowsLater: MasterchainBundle = (() => {
  const b = syntheticBundle(802)
  const known = first.account_states
    .filter((s) => s.balance === null)
    .map((s, i) => ({
      ...s,
      balance: String(1000 + i),
      extra_currencies: {},
      account_status: "active" as const,
      data_hash: s.hash
    }))
  return { ...b, account_states: [...b.account_states, ...known] }
})()
// A later block that lists `first`'s known states by hash only (it must not hide them).
const forgetsLater: MasterchainBundle = (() => {
  const b = syntheticBundle(803)
  return {
    ...b,
    account_states: [...b.account_states, ...first.account_states.filter((s) => s.balance !== null).map(hashOnlyOf)]
  }
})()
const bundles = [realBundle(), first, knowsLater, forgetsLater]

// A state a page lists that no block knows, stored as a build that counted a frozen hash as no field stored it
// (`known = 0` with a frozen hash, and no other row of its hash): the MergeTree path renders its frozen hash, so the
// table must hold it too.
const oldFrozen = (() => {
  const all = bundles.flatMap((b) => b.account_states)
  const known = new Set(all.filter((s) => s.balance !== null).map((s) => s.hash))
  const s = all.find((x) => x.balance === null && !known.has(x.hash))!
  const [row] = flattenBundles([{ ...first, account_states: [{ ...s, frozen_hash: s.hash }] }]).account_states
  return { ...row!, known: 0 }
})()

/** The rows of `bundles` (or of `bs`) as the consumer writes them, but the older build's row in place of its hash's. */
const rowsOf = (bs: ReadonlyArray<MasterchainBundle> = bundles): TableRows => {
  const rows = flattenBundles(bs)
  // the page rows with hashes, as written before they embedded the known states: what is read is the lookups table
  return {
    ...rows,
    account_states: rows.account_states.filter((r) => r.hash !== oldFrozen.hash),
    v3_pages: rows.v3_pages.map(withStateHashes)
  }
}

/** The table's state rows (not the marker, not the accounts' rows), by hash. */
const stateRows = async () =>
  (
    await ch.client.query({
      query:
        "SELECT key AS hash, value AS state FROM account_lookups_kv WHERE key != '' AND key NOT LIKE '%:%' ORDER BY hash",
      format: "JSONEachRow"
    })
  ).json<{ hash: string; state: string }>()

let ch: TestClickHouse
let kv: ClickHouseTxStore
let plain: ClickHouseTxStore
let fromKv: FastifyInstance
let fromPlain: FastifyInstance

const count = async (sql: string): Promise<number> => {
  const [r] = await (await ch.client.query({ query: sql, format: "JSONEachRow" })).json<{ n: string }>()
  return Number(r?.n)
}

const insert = async (batch: TableRows, only?: ReadonlyArray<string>) => {
  for (const table of INSERT_ORDER) {
    if ((only !== undefined && !only.includes(table)) || batch[table].length === 0) continue
    await ch.client.insert<object>({ table, values: batch[table], format: "JSONEachRow" })
  }
}

const shapes: ReadonlyArray<{ limit: number; offset: number; sort: SortOrder }> = [
  { limit: 1000, offset: 0, sort: "desc" },
  { limit: 1000, offset: 0, sort: "asc" },
  { limit: 3, offset: 2, sort: "asc" },
  { limit: 5, offset: 1, sort: "desc" }
]

/**
 * A page as it renders: its pieces, address book and code hashes as they are, and each transaction's states as the
 * renderer gives them (a hash-only state and an absent one render alike; only the `account_states` path lists the
 * former).
 */
const rendered = (page: V3PageText | null) =>
  page === null
    ? null
    : {
        txs: pageAsText(page)!.txs,
        tails: page.txs.map((t) => v3Tail(t.before, t.after, page.states)),
        book: page.book,
        codeHashes: page.codeHashes
      }

/** Every page of every block from `store` equals the `account_states` answer (the store with key-value rows off). */
const sameAsPlain = async (store: ClickHouseTxStore) => {
  for (const b of bundles) {
    for (const shape of shapes) {
      for (const book of [true, false]) {
        const want = rendered(await plain.v3PageText(b.mc_seqno, shape, book))
        expect(want, `${b.mc_seqno}`).not.toBeNull()
        expect(
          rendered(await store.v3PageText(b.mc_seqno, shape, book)),
          `${b.mc_seqno} ${JSON.stringify(shape)} ${book}`
        ).toEqual(want)
      }
    }
  }
}

const sameApi = async () => {
  for (const b of bundles) {
    for (const q of ["", "&sort=asc", "&limit=3&offset=2"]) {
      for (const path of ["masterchainBlockShardState", "transactionsByMasterchainBlock"]) {
        const url = `/api/v3/${path}?seqno=${b.mc_seqno}${q}`
        const [a, p] = await Promise.all([fromKv.inject(url), fromPlain.inject(url)])
        expect(a.statusCode, url).toBe(200)
        expect(a.body, url).toBe(p.body)
      }
    }
  }
}

/** The known states of every page of the blocks, as a store answers them. */
const statesOf = async (store: ClickHouseTxStore) => {
  const out = new Map<string, AccountStateRecord>()
  for (const b of bundles) {
    const page = await store.v3PageText(b.mc_seqno, { limit: 1000, offset: 0, sort: "desc" }, true)
    for (const [h, s] of page!.states) if (s.balance !== null) out.set(h, s)
  }
  return out
}

beforeAll(async () => {
  ch = await testClickHouse("stateskv")
  // A store written before the key-value table: its rows, without the ones the table's view put.
  await insert(rowsOf())
  await ch.client.insert<object>({ table: "account_states", values: [oldFrozen], format: "JSONEachRow" })
  await ch.client.command({ query: "TRUNCATE TABLE account_lookups_kv" })
  await backfillV3Pages(ch.client)
  kv = new ClickHouseTxStore(ch.client)
  plain = new ClickHouseTxStore(ch.client, { pageKv: false })
  fromKv = buildApp({ store: kv, config, clock })
  fromPlain = buildApp({ store: plain, config, clock })
}, 120_000)

afterAll(async () => {
  await fromKv?.close()
  await fromPlain?.close()
  await ch?.close()
})

describe("account_lookups_kv's state rows", () => {
  it("the blocks hold known, hash-only, frozen and later-known states", () => {
    const all = bundles.flatMap((b) => b.account_states)
    expect(all.some((s) => s.balance === null)).toBe(true)
    expect(all.some((s) => s.account_status === "frozen" && s.frozen_hash !== null)).toBe(true)
    expect(all.some((s) => s.extra_currencies !== null && Object.keys(s.extra_currencies).length > 0)).toBe(true)
    expect(realBundle().account_states.length).toBeGreaterThan(0)
    expect(oldFrozen.hash).toBeDefined()
  })

  it("before the fill, pages answer from account_states, identically", async () => {
    expect(await count("SELECT count() AS n FROM account_lookups_kv")).toBe(0)
    expect(await accountLookupsKvFilled(ch.client)).toBe(false)
    await sameAsPlain(new ClickHouseTxStore(ch.client))
  })

  it("the fill copies every known state once, as account_states gives it, and marks the table filled", async () => {
    const known = await count("SELECT uniqExact(hash) AS n FROM account_states WHERE known = 1")
    expect(known).toBeGreaterThan(0)
    expect((await fillAccountLookupsKv(ch.client))?.states).toBe(known)
    expect(await accountLookupsKvFilled(ch.client)).toBe(true)
    // one row per known hash and the older build's frozen one
    expect(await stateRows()).toHaveLength(known + 1)
    expect((await stateRows()).map((r) => r.hash)).toContain(oldFrozen.hash)
    expect(await fillAccountLookupsKv(ch.client)).toBeNull()
    // each row's state equals what account_states (merged: the known row wins) gives
    const hashes = (
      await (
        await ch.client.query({
          query: "SELECT DISTINCT toString(hash) AS h FROM account_states",
          format: "JSONEachRow"
        })
      ).json<{ h: string }>()
    ).map((r) => r.h)
    const fromTable = await plain.accountStates(hashes)
    const rows = await stateRows()
    for (const r of rows) {
      const s = JSON.parse(r.state) as Omit<AccountStateRecord, "hash">
      expect({ hash: r.hash, ...s, extra_currencies: s.balance === null ? null : s.extra_currencies }, r.hash).toEqual({
        ...fromTable.get(r.hash)
      })
    }
    await sameAsPlain(new ClickHouseTxStore(ch.client))
    await sameApi()
  })

  it("answers from the key-value rows once filled: a state later known shows, a later hash-only row hides nothing", async () => {
    const fresh = new ClickHouseTxStore(ch.client)
    const before = await statesOf(fresh)
    // the states `first` holds by hash only are known from the later block
    for (const s of first.account_states.filter((x) => x.balance === null))
      expect(before.get(s.hash)?.balance).not.toBeNull()
    // `first`'s known states are still known, though a later block listed them hash-only
    for (const s of first.account_states.filter((x) => x.balance !== null))
      expect(before.get(s.hash)?.balance).toBe(s.balance)
    // with the known rows gone from account_states, the key-value rows still answer: they are what is read
    await ch.client.command({
      query: "DELETE FROM account_states WHERE known = 1",
      clickhouse_settings: { lightweight_deletes_sync: "2" }
    })
    try {
      expect(await statesOf(fresh)).toEqual(before)
      expect((await statesOf(plain)).size).toBe(0)
    } finally {
      await insert(rowsOf(), ["account_states"])
    }
    await sameAsPlain(fresh)
  })

  it("a replay (the consumer's rows again, hash-only rows of the same hashes, the fill again) changes nothing", async () => {
    const rowsBefore = await stateRows()
    // the consumer's own rows, as a replayed batch writes them: the view writes each known state again, as the fill
    // wrote it (the same JSON)
    await insert(rowsOf(), ["account_states"])
    // every state listed hash-only by another block, written by the consumer's path: none reaches the table
    const hashOnly = rowsOf([
      { ...forgetsLater, account_states: bundles.flatMap((b) => b.account_states).map(hashOnlyOf) }
    ])
    expect(hashOnly.account_states.every((r) => r.known === 0)).toBe(true)
    await insert(hashOnly, ["account_states"])
    expect(await fillAccountLookupsKv(ch.client)).toBeNull()
    expect(await stateRows()).toEqual(rowsBefore)
    await sameAsPlain(new ClickHouseTxStore(ch.client))
    await sameApi()
  })
})
