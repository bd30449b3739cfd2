/**
 * Concurrent uncached page reads sharing statements (src/store/SharedStatements.ts): many v3 and v2 requests over
 * random blocks fired at once, with page shapes (offsets, limits, orders: one statement serves several), address
 * books and cursors mixed, the same page twice and one block in several shapes, answer byte for byte what each
 * answers alone (a store that shares nothing, one request at a time), before and after `account_lookups_kv` is
 * filled, with a block that has no key-value row and an unknown block among them;
 * and the shared statements did hold several requests. A failing statement fails only the requests that fail alone,
 * with the error they get alone.
 */
import type { FastifyInstance } from "fastify"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { buildApp, type ApiAppConfig } from "../../src/api/app.js"
import { flattenBundles, INSERT_ORDER, type TableRows } from "../../src/flatten/index.js"
import { fillAccountLookupsKv } from "../../src/store/accountLookupsKv.js"
import { deleteV3Pages } from "../../src/store/backfillV3Pages.js"
import { ClickHouseTxStore, clientReader, type ReadConnection, type ReadSharing } from "../../src/store/Store.js"
import type { AccountCursor, SortOrder } from "../../src/store/TxStore.js"
import type { BlockId, MasterchainBundle } from "../../src/ton/record.js"
import { testClickHouse, type TestClickHouse } from "../support/integration.js"
import { pageAsText } from "../support/pageText.js"
import { isEmbeddedState } from "../../src/store/pages.js"
import { realBlockBundles } from "../unit/store/realBlocks.js"
import { syntheticBundle } from "../unit/store/records.js"

const config: ApiAppConfig = { network: "mainnet", api: { keys: [], rateLimit: 0 }, cacheBytes: 0 }
const clock = { nowMs: () => 1724745562699, random: () => 0.5335802192168009 }

/** Served from the row tables: its `v3_pages` row is deleted. */
const NO_ROW = 705
const bundles: ReadonlyArray<MasterchainBundle> = [
  ...realBlockBundles().bundles,
  ...[700, 701, 702, 703, 704, NO_ROW, 706, 707].map(syntheticBundle)
]
const UNKNOWN = 9_999

let ch: TestClickHouse

/** A reader over the test's database that records its statements and refuses those `refuse` names a reason for. */
const reader = (
  statements: Array<string> = [],
  refuse: (sql: string) => string | null = () => null
): ReadConnection => {
  const inner = clientReader(ch.client)
  const check = (sql: string) => {
    statements.push(sql)
    const reason = refuse(sql)
    if (reason !== null) throw new Error(`refused ${reason}: a statement of ${sql.length} characters`)
  }
  return {
    jsonEachRow: async (sql) => (check(sql), inner.jsonEachRow(sql)),
    text: async (sql) => (check(sql), inner.text(sql)),
    bytes: async (sql) => (check(sql), inner.bytes(sql))
  }
}

const aloneStore = (r: ReadConnection = reader()) => new ClickHouseTxStore([r], { sharing: { count: 1, inFlight: 1 } })
const sharedStore = (r: ReadConnection, sharing: ReadSharing = { count: 16, inFlight: 1 }) =>
  new ClickHouseTxStore([r], { sharing })

/** A deterministic shuffle-and-pick source (xorshift). */
const random = (seed: number) => () => {
  seed ^= seed << 13
  seed ^= seed >>> 17
  seed ^= seed << 5
  return (seed >>> 0) / 2 ** 32
}

const SHAPES: ReadonlyArray<{ limit: number; offset: number; sort: SortOrder }> = [
  { limit: 40, offset: 0, sort: "desc" },
  { limit: 40, offset: 0, sort: "asc" },
  { limit: 3, offset: 2, sort: "desc" },
  { limit: 3, offset: 2, sort: "asc" },
  { limit: 1000, offset: 1, sort: "desc" },
  { limit: 10, offset: 0, sort: "asc" },
  { limit: 256, offset: 7, sort: "desc" },
  { limit: 100, offset: 1, sort: "asc" }
]

/** Every request the test picks from: v3 pages of every shape (with and without book), v2 pages with cursors. */
const allUrls = (): Array<string> => {
  const out: Array<string> = []
  for (const b of bundles) {
    for (const s of SHAPES) {
      out.push(
        `/api/v3/transactionsByMasterchainBlock?seqno=${b.mc_seqno}&limit=${s.limit}&offset=${s.offset}&sort=${s.sort}`
      )
    }
    out.push(`/api/v3/masterchainBlockShardState?seqno=${b.mc_seqno}&limit=40&sort=desc`)
    for (const blk of [b.mc_block, ...b.shard_blocks]) {
      const v2 = `/api/v2/getBlockTransactionsExt?workchain=${blk.id.workchain}&shard=${blk.id.shard}&seqno=${blk.id.seqno}`
      out.push(`${v2}&count=40`, `${v2}&count=2`)
      const own = b.transactions.filter((t) => t.block.seqno === blk.id.seqno && t.block.shard === blk.id.shard)
      const mid = own[own.length >> 1]
      if (mid !== undefined) {
        out.push(`${v2}&count=3&after_hash=${mid.account.slice(mid.account.indexOf(":") + 1)}&after_lt=${mid.lt}`)
      }
    }
  }
  out.push(
    `/api/v3/transactionsByMasterchainBlock?seqno=${UNKNOWN}&limit=40&offset=0&sort=desc`,
    `/api/v2/getBlockTransactionsExt?workchain=0&shard=-9223372036854775808&seqno=${UNKNOWN}&count=40`
  )
  return out
}

/** `n` requests picked at random (repeats allowed) fired at once at `shared`, each compared with `alone`'s answer. */
const concurrentlyAsAlone = async (shared: FastifyInstance, alone: FastifyInstance, n: number, seed: number) => {
  const urls = allUrls()
  const next = random(seed)
  const picked = Array.from({ length: n }, () => urls[Math.floor(next() * urls.length)]!)
  const answers = await Promise.all(picked.map((url) => shared.inject(url)))
  const statuses = new Set<number>()
  for (const [i, url] of picked.entries()) {
    const expected = await alone.inject(url)
    expect(answers[i]!.statusCode, url).toBe(expected.statusCode)
    expect(answers[i]!.body, url).toBe(expected.body)
    statuses.add(expected.statusCode)
  }
  expect([...statuses].sort()).toEqual([200, 404])
}

/**
 * How many keys each statement of a key-value table asked for (statements naming `table`): its first `IN` after the
 * table's name, an array literal or a split string (src/store/sql.ts `strKeys`).
 */
const groupSizes = (statements: ReadonlyArray<string>, table: string): Array<number> =>
  statements
    .filter((s) => s.includes(`FROM ${table}`))
    .map((s) => {
      const m = / IN (?:\[([^\]]*)\]|splitByChar\(' ', '([^']*)'\))/.exec(s.slice(s.indexOf(`FROM ${table}`)))
      if (m === null) throw new Error(`no key set in: ${s.slice(0, 200)}`)
      return m[1] !== undefined ? m[1].split(",").length : m[2]!.split(" ").length
    })

beforeAll(async () => {
  ch = await testClickHouse("shared statements")
  const rows: TableRows = flattenBundles(bundles, { pageKv: true })
  for (const table of INSERT_ORDER) {
    if (rows[table].length > 0) await ch.client.insert<object>({ table, values: rows[table], format: "JSONEachRow" })
  }
  await deleteV3Pages(ch.client, [NO_ROW])
}, 120_000)

afterAll(async () => {
  await ch?.close()
})

describe("statements shared by concurrent page reads", () => {
  for (const filled of [false, true]) {
    it(`answers ${filled ? "after" : "before"} account_lookups_kv is filled what each request answers alone`, async () => {
      if (filled) expect(await fillAccountLookupsKv(ch.client)).not.toBeNull()
      const statements: Array<string> = []
      const shared = buildApp({ store: sharedStore(reader(statements)), config, clock })
      const alone = buildApp({ store: aloneStore(), config, clock })
      try {
        for (const seed of [1, 2, 3]) await concurrentlyAsAlone(shared, alone, 96, seed)
        // several requests did share statements, of every kind
        expect(Math.max(...groupSizes(statements, "v3_pages"))).toBeGreaterThan(1)
        expect(Math.max(...groupSizes(statements, "v2_pages"))).toBeGreaterThan(1)
        if (filled) {
          // the lookups of several pages went out as one read of the table, with no other table beside it
          const lookups = statements.filter(
            (s) => s.includes("FROM account_lookups_kv WHERE key IN") && !s.includes("UNION")
          )
          expect(lookups.length).toBeGreaterThan(0)
          expect(Math.max(...groupSizes(lookups, "account_lookups_kv"))).toBeGreaterThan(2 * 40)
        }
        // pages of different offsets, limits and orders shared a statement
        const v3 = statements.filter((s) => s.includes("FROM v3_pages"))
        expect(v3.some((s) => s.includes("transform(mc_block_seqno") && s.includes("if(transform("))).toBe(true)
      } finally {
        await shared.close()
        await alone.close()
      }
    })
  }

  it("answers with two statements of a kind at once (the second once 4 requests wait) what each answers alone", async () => {
    const statements: Array<string> = []
    // statements of each table running at once, at most
    const running = new Map<string, number>()
    const most = new Map<string, number>()
    const inner = reader(statements)
    const counted = <A>(f: (sql: string) => Promise<A>) => async (sql: string): Promise<A> => {
      const table = /FROM (\w+)/.exec(sql)?.[1] ?? "?"
      running.set(table, (running.get(table) ?? 0) + 1)
      most.set(table, Math.max(most.get(table) ?? 0, running.get(table)!))
      try {
        return await f(sql)
      } finally {
        running.set(table, running.get(table)! - 1)
      }
    }
    const r: ReadConnection = {
      jsonEachRow: counted(inner.jsonEachRow),
      text: counted(inner.text),
      bytes: counted(inner.bytes)
    }
    const shared = buildApp({ store: sharedStore(r, { count: 16, inFlight: 2, extraAfter: 4 }), config, clock })
    const alone = buildApp({ store: aloneStore(), config, clock })
    try {
      for (const seed of [1, 2, 3]) await concurrentlyAsAlone(shared, alone, 96, seed)
      expect(most.get("v3_pages")).toBe(2)
      expect(Math.max(...groupSizes(statements, "v3_pages"))).toBeGreaterThan(1)
      expect(Math.max(...groupSizes(statements, "v2_pages"))).toBeGreaterThan(1)
    } finally {
      await shared.close()
      await alone.close()
    }
  })

  it("answers pages of one block in several shapes, and the same page twice, at once as each alone", async () => {
    await fillAccountLookupsKv(ch.client)
    const mcs = bundles.map((b) => b.mc_seqno).filter((s) => s !== NO_ROW)
    const next = random(7)
    // every block in three random shapes, each page asked twice, in a random order
    const asks = mcs.flatMap((s) => [0, 1, 2].map(() => ({ s, shape: SHAPES[Math.floor(next() * SHAPES.length)]! })))
    const picked = [...asks, ...asks].sort(() => next() - 0.5)
    const book = (i: number) => i % 3 === 0
    const alone = aloneStore()
    const expected: Array<unknown> = []
    for (const [i, a] of picked.entries()) expected.push(pageAsText(await alone.v3PageText(a.s, a.shape, book(i))))
    const statements: Array<string> = []
    const shared = sharedStore(reader(statements))
    const got = (await Promise.all(picked.map((a, i) => shared.v3PageText(a.s, a.shape, book(i))))).map(pageAsText)
    expect(got).toEqual(expected)
    expect(expected.filter((p) => p === null).length).toBeLessThan(picked.length / 2)
    const v3 = statements.filter((s) => s.includes("FROM v3_pages"))
    // shared: fewer statements than pages, some of several shapes; a block asked in two shapes went out twice
    expect(v3.length).toBeLessThan(picked.length / 4)
    expect(v3.some((s) => s.includes("transform(mc_block_seqno"))).toBe(true)
    expect(v3.length).toBeGreaterThan(1)
  })

  /** Each call's answer or error message. */
  const outcomes = <T>(calls: ReadonlyArray<() => Promise<T>>) =>
    Promise.all(
      calls.map((c) =>
        c().then(
          (ok) => ({ ok }),
          (e: Error) => ({ error: e.message })
        )
      )
    )

  it("fails only the requests whose statement fails alone, each with its own error", async () => {
    await fillAccountLookupsKv(ch.client)
    const mcs = bundles.map((b) => b.mc_seqno)
    const poisonBlock = mcs[mcs.length - 2]!
    // a state hash of one page: the lookups of every page referencing it fail, alone or shared
    // (one the row does not embed: a hash-only state, which the lookups are asked for)
    const poisonHash = (await aloneStore().v3PageText(701, SHAPES[0]!, true))!.txs
      .flatMap((t) => [t.before, t.after])
      .find((f) => !isEmbeddedState(f))!
    const v2Poison = bundles[2]!.shard_blocks[0]!.id
    const refuse = (sql: string): string | null =>
      sql.includes("FROM v3_pages") && new RegExp(`[\\[,]${poisonBlock}[\\],]`).test(sql)
        ? "v3_pages"
        : sql.includes("FROM account_lookups_kv") && sql.includes(poisonHash)
          ? "account_lookups_kv"
          : sql.includes("FROM v2_pages") && sql.includes(`:${v2Poison.seqno}'`)
            ? "v2_pages"
            : null
    const v3Calls = (store: ClickHouseTxStore) =>
      mcs.flatMap((s) => [
        () => store.v3PageText(s, SHAPES[0]!, true).then(pageAsText),
        () => store.v3PageText(s, SHAPES[3]!, false).then(pageAsText)
      ])
    const v2Calls = (store: ClickHouseTxStore) =>
      bundles.flatMap((b) =>
        [b.mc_block, ...b.shard_blocks].map(
          (blk) => () => store.v2BlockPage!(blk.id as BlockId, null as AccountCursor | null, 40)
        )
      )
    const alone = aloneStore(reader([], refuse))
    const expected = [...(await outcomes(v3Calls(alone))), ...(await outcomes(v2Calls(alone)))]
    const statements: Array<string> = []
    const shared = sharedStore(reader(statements, refuse))
    const got = await Promise.all([outcomes(v3Calls(shared)), outcomes(v2Calls(shared))])
    expect(got.flat()).toEqual(expected)
    // every kind of statement failed for some requests and answered others
    for (const table of ["v3_pages", "account_lookups_kv", "v2_pages"]) {
      expect(
        expected.some((o) => "error" in o && o.error.startsWith(`refused ${table}:`)),
        table
      ).toBe(true)
    }
    const errors = expected.filter((o) => "error" in o).length
    expect(errors).toBeGreaterThan(2)
    expect(errors).toBeLessThan(expected.length / 2)
    expect(Math.max(...groupSizes(statements, "v3_pages"))).toBeGreaterThan(1)
    expect(Math.max(...groupSizes(statements, "v2_pages"))).toBeGreaterThan(1)
  })
})
