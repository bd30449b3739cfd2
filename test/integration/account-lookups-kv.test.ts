/**
 * The one key-value table of a v3 page's lookups (`account_lookups_kv`, sql/0142) on the real engine. A store written
 * before it (the real mainnet sample and generated blocks, several code reports per account, one of a block never
 * done, an account that lost its code; `account_states_kv` and `account_code_kv`, sql/0134 and sql/0141, filled as
 * the builds that wrote them filled them) migrates: the migrations add the table and drop the two older ones (sql/0143),
 * pages read the MergeTree tables until the fill's marker is seen, the fill copies the states from `account_states`
 * and the code rows from `latest_account_code` (its rows equal the two dropped tables' rows byte for byte), and from
 * then on a page's lookups are one read of the new table alone, with pages and API answers identical to what the row
 * tables give. Rows stored after the migration (states through the view, code rows through the consumer's guarded
 * puts) reach it too.
 */
import type { FastifyInstance } from "fastify"
import { copyFileSync, mkdtempSync, readdirSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { buildApp, type ApiAppConfig } from "../../src/api/app.js"
import { applyMigrations, defaultMigrationsDir } from "../../src/clickhouse/migrations.js"
import { flattenBundles } from "../../src/flatten/index.js"
import { latestAccountCodeRows } from "../../src/flatten/latest_account_code.js"
import { type CodeKvRow, type CodeKvTable, settleAll, writeAccountCodes } from "../../src/store/accountCodeKv.js"
import { accountLookupsKvFilled, fillAccountLookupsKv } from "../../src/store/accountLookupsKv.js"
import { backfillV3Pages } from "../../src/store/backfillV3Pages.js"
import { v3Tail } from "../../src/store/pages.js"
import { stateHash } from "../support/pageText.js"
import { ClickHouseTxStore, clientReader, type ReadConnection } from "../../src/store/Store.js"
import type { MasterchainBundle } from "../../src/ton/record.js"
import { code, storeWriter } from "../support/codeRows.js"
import { testClickHouse, type TestClickHouse } from "../support/integration.js"
import { realBundle, syntheticBundle } from "../unit/store/records.js"

const config: ApiAppConfig = { network: "mainnet", api: { keys: [], rateLimit: 0 }, cacheBytes: 0 }
const clock = { nowMs: () => 1724745562699, random: () => 0.5335802192168009 }
const NEW_MIGRATIONS = ["0142_create_account_lookups_kv.sql", "0143_drop_account_kv_copies.sql"]

const before: ReadonlyArray<MasterchainBundle> = [realBundle(), syntheticBundle(801), syntheticBundle(802)]
// stored after the migration and the fill, as a consumer stores them
const after: ReadonlyArray<MasterchainBundle> = [syntheticBundle(803), syntheticBundle(804)]
const accounts801 = Object.keys(before[1]!.code_hashes)
// Later reports of 801's accounts: one of done block 802 (one account loses its code there), one of block 900,
// never done, and an older one of done block 1.
const extra: ReadonlyArray<CodeKvRow> = accounts801.flatMap((account, i) => [
  { account, mc_seqno: 1, code_hash: code(`old ${i}`) },
  { account, mc_seqno: 802, code_hash: i === 0 ? null : code(`newest ${i}`) },
  { account, mc_seqno: 900, code_hash: code(`never done ${i}`) }
])

let ch: TestClickHouse
let oldSql: string
let plain: ClickHouseTxStore
let fromPlain: FastifyInstance
// the two older tables' rows before the migration dropped them
let oldStates: Array<{ k: string; v: string }>
let oldCodes: Array<{ k: string; m: number; v: string }>

const { query, insert, insertCodes, markDone } = storeWriter(() => ch.client)

/** A store over a reader that records its statements. */
const recording = () => {
  const statements: Array<string> = []
  const inner = clientReader(ch.client)
  const reader: ReadConnection = {
    jsonEachRow: async (sql) => (statements.push(sql), inner.jsonEachRow(sql)),
    text: async (sql) => (statements.push(sql), inner.text(sql)),
    bytes: async (sql) => (statements.push(sql), inner.bytes(sql))
  }
  return { store: new ClickHouseTxStore([reader]), statements }
}

const pagesOf = async (store: ClickHouseTxStore, bundles: ReadonlyArray<MasterchainBundle>) => {
  const out: Array<unknown> = []
  for (const b of bundles) {
    for (const shape of [
      { limit: 1000, offset: 0, sort: "desc" as const },
      { limit: 1000, offset: 0, sort: "asc" as const },
      { limit: 3, offset: 2, sort: "asc" as const }
    ]) {
      const page = await store.v3PageText(b.mc_seqno, shape, true)
      expect(page, `${b.mc_seqno}`).not.toBeNull()
      // as it renders: a hash-only state and an absent one render alike (only the row tables' path lists the former)
      out.push({
        seqno: b.mc_seqno,
        shape,
        txs: page!.txs.map((t) => [stateHash(t.before), stateHash(t.after), t.v3.toString("latin1")]),
        tails: page!.txs.map((t) => v3Tail(t.before, t.after, page!.states)),
        book: page!.book,
        codes: [...page!.codeHashes].sort(([a], [b]) => a.localeCompare(b))
      })
    }
  }
  return out
}

const sameApi = async (app: FastifyInstance, bundles: ReadonlyArray<MasterchainBundle>) => {
  for (const b of bundles) {
    for (const q of ["", "&sort=asc", "&limit=3&offset=2"]) {
      const url = `/api/v3/masterchainBlockShardState?seqno=${b.mc_seqno}${q}`
      const [a, p] = await Promise.all([app.inject(url), fromPlain.inject(url)])
      expect(a.statusCode, url).toBe(200)
      expect(a.body, url).toBe(p.body)
    }
  }
}

/** `account_code_kv` (sql/0141) as the builds that wrote it kept it: NULL for a lost code. */
const ACCOUNT_CODE_KV: CodeKvTable = {
  name: "account_code_kv",
  key: "account",
  code: "code_hash",
  literal: (c) => (c === null ? "NULL" : `'${c}'`)
}

/**
 * The two older tables filled as the builds before sql/0143 filled them (src/store/accountStatesKv.ts and
 * src/store/accountCodeKv.ts of those builds): the known states copied by one INSERT ... SELECT (the engine makes
 * `state`), each account's newest done code row put, then each table's row with the empty key.
 */
const fillOldTables = async () => {
  await ch.client.command({
    query: `INSERT INTO account_states_kv (hash, account, balance, extra_currencies, account_status, frozen_hash,
                                           data_hash, code_hash, known)
            SELECT toString(hash), account, balance, extra_currencies, account_status, frozen_hash, data_hash, code_hash,
                   known
            FROM account_states WHERE known = 1`
  })
  await ch.client.command({
    query: "INSERT INTO account_states_kv (hash, account, known) VALUES ('', '', 0)"
  })
  await settleAll(ch.client, ACCOUNT_CODE_KV, {})
  await ch.client.command({ query: "INSERT INTO account_code_kv (account, mc_seqno, code_hash) VALUES ('', 0, NULL)" })
}

/** The lookups statements among `statements` (the ones that read a state or code table). */
const lookupStatements = (statements: ReadonlyArray<string>) =>
  statements.filter((s) => /account_(states|code|lookups)_kv|account_states|latest_account_code/.test(s))

const stateRows = async (table: "account_states_kv" | "account_lookups_kv") =>
  query<{ k: string; v: string }>(
    table === "account_states_kv"
      ? "SELECT hash AS k, state AS v FROM account_states_kv WHERE hash != '' ORDER BY k"
      : "SELECT key AS k, value AS v FROM account_lookups_kv WHERE key != '' AND mc_seqno = 0 ORDER BY k"
  )
const codeRows = async (table: "account_code_kv" | "account_lookups_kv") =>
  query<{ k: string; m: number; v: string }>(
    table === "account_code_kv"
      ? `SELECT account AS k, mc_seqno AS m, ifNull(toString(code_hash), '') AS v FROM account_code_kv
         WHERE account != '' ORDER BY k`
      : "SELECT key AS k, mc_seqno AS m, value AS v FROM account_lookups_kv WHERE key LIKE '%:%' ORDER BY k"
  )

beforeAll(async () => {
  // a store as the build before sql/0142 left it: every migration but that one and the later ones
  oldSql = mkdtempSync(join(tmpdir(), "old-sql-"))
  for (const name of readdirSync(defaultMigrationsDir)) {
    if (name.endsWith(".sql") && name < NEW_MIGRATIONS[0]!)
      copyFileSync(join(defaultMigrationsDir, name), join(oldSql, name))
  }
  ch = await testClickHouse("lookupskv", { migrate: false })
  await applyMigrations(ch.client, oldSql)
  // Merges keep one row per account, the newest, done or not: the rows of a block never done would hide the done
  // ones from every path alike (in a running store such rows are removed or become done).
  await ch.client.command({ query: "SYSTEM STOP MERGES latest_account_code" })
  // (no `mc_shards_kv` rows: that table, sql/0150, came later)
  await insert({ ...flattenBundles(before), mc_shards_kv: [] })
  await insertCodes(extra)
  await markDone(1)
  await backfillV3Pages(ch.client)
  await fillOldTables()
  oldStates = await stateRows("account_states_kv")
  oldCodes = await codeRows("account_code_kv")
  plain = new ClickHouseTxStore(ch.client, { pageKv: false })
  fromPlain = buildApp({ store: plain, config, clock })
}, 120_000)

afterAll(async () => {
  await fromPlain?.close()
  await ch?.close()
  if (oldSql !== undefined) rmSync(oldSql, { recursive: true, force: true })
})

describe("account_lookups_kv", () => {
  it("a store written before it migrates: the table is added, the two older ones dropped; pages read the MergeTree until it is filled", async () => {
    expect(oldStates.length).toBeGreaterThan(0)
    expect(oldCodes.find((r) => r.k === accounts801[0])).toEqual({ k: accounts801[0], m: 802, v: "" })
    const report = await applyMigrations(ch.client)
    // these two first, then every later migration (sql/0145 compacts the key-value tables, rows unchanged)
    expect(report.applied).toEqual(
      readdirSync(defaultMigrationsDir)
        .filter((name) => name.endsWith(".sql") && name >= NEW_MIGRATIONS[0]!)
        .sort()
    )
    expect(report.applied.slice(0, NEW_MIGRATIONS.length)).toEqual(NEW_MIGRATIONS)
    const tables = await query<{ name: string }>(
      "SELECT name FROM system.tables WHERE database = currentDatabase() AND name LIKE 'account_%_kv' ORDER BY name"
    )
    expect(tables.map((t) => t.name)).toEqual(["account_lookups_kv"])
    expect(await accountLookupsKvFilled(ch.client)).toBe(false)
    const { store, statements } = recording()
    expect(await pagesOf(store, before)).toEqual(await pagesOf(plain, before))
    const lookups = lookupStatements(statements)
    expect(lookups.length).toBeGreaterThan(0)
    // each page asks the table's marker with its keys, then reads the MergeTree tables (for ten seconds, then asks again)
    expect(lookups[0]).toMatch(/FROM account_lookups_kv WHERE key IN \[''/)
    for (const s of lookups.slice(1))
      expect(s).toMatch(/FROM account_states WHERE hash IN[\s\S]*FROM latest_account_code/)
  })

  it("the fill copies the states from account_states and each account's newest done code row, as the dropped tables held them", async () => {
    expect(await fillAccountLookupsKv(ch.client)).toEqual({ states: oldStates.length, accounts: oldCodes.length })
    expect(await accountLookupsKvFilled(ch.client)).toBe(true)
    expect(await stateRows("account_lookups_kv")).toEqual(oldStates)
    expect(await codeRows("account_lookups_kv")).toEqual(oldCodes)
    expect(await fillAccountLookupsKv(ch.client)).toBeNull()
  })

  it("once filled, a page's lookups are one read of account_lookups_kv alone; the same pages and answers", async () => {
    const { store, statements } = recording()
    expect(await pagesOf(store, before)).toEqual(await pagesOf(plain, before))
    const lookups = lookupStatements(statements)
    expect(lookups.length).toBeGreaterThan(0)
    for (const s of lookups) {
      expect(s).toMatch(/FROM account_lookups_kv WHERE key IN/)
      expect(s).not.toMatch(/UNION|account_states|latest_account_code/)
    }
    // the marker is asked until seen, then no more
    expect(lookups[0]).toMatch(/WHERE key IN \[''/)
    for (const s of lookups.slice(1)) expect(s).not.toMatch(/WHERE key IN \[''/)
    const app = buildApp({ store: new ClickHouseTxStore(ch.client), config, clock })
    try {
      await sameApi(app, before)
      await sameApi(app, before)
    } finally {
      await app.close()
    }
  })

  it("rows stored after the fill reach it: states through the view, code rows through the guarded puts", async () => {
    const batch = flattenBundles(after)
    await insert(batch)
    await markDone(...after.map((b) => b.mc_seqno))
    const rows = after.flatMap((b) => latestAccountCodeRows(b))
    const seqnos = after.map((b) => b.mc_seqno)
    await writeAccountCodes(ch.client, rows, seqnos)
    await backfillV3Pages(ch.client)
    const newStates = new Set(batch.account_states.filter((r) => r.known === 1).map((r) => r.hash))
    expect(newStates.size).toBeGreaterThan(0)
    const stored = new Set((await stateRows("account_lookups_kv")).map((r) => r.k))
    for (const h of newStates) expect(stored.has(h), h).toBe(true)
    const { store, statements } = recording()
    expect(await pagesOf(store, after)).toEqual(await pagesOf(plain, after))
    for (const s of lookupStatements(statements)) expect(s).not.toMatch(/UNION/)
  })
})
