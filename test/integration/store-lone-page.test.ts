/**
 * A lone uncached v3 page on a filled store (src/store/Store.ts, sql/0144): its lookups go out beside its lines, by
 * the keys its block's `v3_page_keys` row holds, and it answers byte for byte what the page answers with its lookups
 * read after its lines by their keys, for every block, shape and address-book choice; a stale or missing keys row
 * still answers so (the lookups read again by the lines' keys); pages arriving together share statements as before;
 * and the table's fill writes the rows its view writes.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { flattenBundles, INSERT_ORDER, type TableRows } from "../../src/flatten/index.js"
import { fillAccountLookupsKv } from "../../src/store/accountLookupsKv.js"
import { fillV3PageKeys, V3_PAGE_KEYS } from "../../src/store/backfillV3PageKeys.js"
import { deleteV3Pages } from "../../src/store/backfillV3Pages.js"
import { ClickHouseTxStore, clientReader, type ReadConnection } from "../../src/store/Store.js"
import type { SortOrder } from "../../src/store/TxStore.js"
import type { MasterchainBundle } from "../../src/ton/record.js"
import { testClickHouse, type TestClickHouse } from "../support/integration.js"
import { pageAsText } from "../support/pageText.js"
import { realBlockBundles } from "../unit/store/realBlocks.js"
import { syntheticBundle } from "../unit/store/records.js"

/** Served from the row tables: its `v3_pages` row is deleted (its keys row stays, as a re-render leaves it). */
const NO_ROW = 705
const bundles: ReadonlyArray<MasterchainBundle> = [
  ...realBlockBundles().bundles,
  ...[700, 701, 702, 703, 704, NO_ROW, 706, 707].map(syntheticBundle)
]
const mcs = [...bundles.map((b) => b.mc_seqno), 9_999]

const SHAPES: ReadonlyArray<{ limit: number; offset: number; sort: SortOrder }> = [
  { limit: 40, offset: 0, sort: "desc" },
  { limit: 40, offset: 0, sort: "asc" },
  { limit: 3, offset: 2, sort: "desc" },
  { limit: 3, offset: 2, sort: "asc" },
  { limit: 1000, offset: 1, sort: "desc" },
  { limit: 100, offset: 1, sort: "asc" }
]

let ch: TestClickHouse

/** What a reader saw: each statement's text when submitted, then `returned` with its index when it answered. */
type Event = { readonly submitted: string } | { readonly returned: number }

/** A reader over the test's database that logs its statements and refuses those `refuse` names a reason for. */
const reader = (events: Array<Event>, refuse: (sql: string) => string | null = () => null): ReadConnection => {
  const inner = clientReader(ch.client)
  const logged =
    <A>(f: (sql: string) => Promise<A>) =>
    async (sql: string): Promise<A> => {
      const i = events.push({ submitted: sql }) - 1
      const reason = refuse(sql)
      if (reason !== null) throw new Error(`refused ${reason}`)
      try {
        return await f(sql)
      } finally {
        events.push({ returned: i })
      }
    }
  return { jsonEachRow: logged(inner.jsonEachRow), text: logged(inner.text), bytes: logged(inner.bytes) }
}

/** The store as it reads a page with its lookups after its lines: its keys statement always refused. */
const inARow = () =>
  new ClickHouseTxStore([reader([], (sql) => (sql.includes("FROM v3_page_keys") ? "v3_page_keys" : null))])

const submitted = (events: ReadonlyArray<Event>) =>
  events.flatMap((e) => ("submitted" in e ? [e.submitted] : []))

beforeAll(async () => {
  ch = await testClickHouse("lone page")
  const rows: TableRows = flattenBundles(bundles, { pageKv: true })
  for (const table of INSERT_ORDER) {
    if (rows[table].length > 0) await ch.client.insert<object>({ table, values: rows[table], format: "JSONEachRow" })
  }
  await deleteV3Pages(ch.client, [NO_ROW])
  expect(await fillAccountLookupsKv(ch.client)).not.toBeNull()
}, 120_000)

afterAll(async () => {
  await ch?.close()
})

describe("a lone v3 page", () => {
  it("reads its lookups beside its lines, by its block's stored keys, and answers as with them read after", async () => {
    const events: Array<Event> = []
    const lone = new ClickHouseTxStore([reader(events), reader(events)])
    const reference = inARow()
    // a page of every block first: the store learns that account_lookups_kv is filled and loads the done bitmaps
    for (const seqno of mcs) await lone.v3PageText(seqno, SHAPES[0]!, true)
    let sideBySide = 0
    for (const seqno of mcs) {
      for (const shape of SHAPES) {
        for (const book of [true, false]) {
          const expected = pageAsText(await reference.v3PageText(seqno, shape, book))
          events.length = 0
          const got = pageAsText(await lone.v3PageText(seqno, shape, book))
          expect(got, `${seqno} ${JSON.stringify(shape)} ${book}`).toEqual(expected)
          if (expected === null || seqno === NO_ROW) continue
          // two statements, both submitted before either answered, and no lookups read after the lines
          const sqls = submitted(events)
          expect(sqls.map((s) => /FROM (\w+)/.exec(s)![1]), `${seqno}`).toEqual(["v3_page_keys", "v3_pages"])
          expect(events.findIndex((e) => "returned" in e)).toBe(2)
          sideBySide++
        }
      }
    }
    expect(sideBySide).toBeGreaterThan(100)
  })

  it("with a stale or missing keys row, reads the lookups by its lines' keys after all", async () => {
    const [stale, missing] = [701, 702]
    await ch.client.command({
      query: `INSERT INTO v3_page_keys SELECT ${stale}, asc_rank, keys FROM v3_page_keys WHERE mc_block_seqno = 703`
    })
    await ch.client.command({ query: `DELETE FROM v3_page_keys WHERE mc_block_seqno = ${missing}` })
    try {
      const events: Array<Event> = []
      const lone = new ClickHouseTxStore([reader(events), reader(events)])
      const reference = inARow()
      for (const seqno of mcs) await lone.v3PageText(seqno, SHAPES[0]!, true)
      for (const seqno of [stale, missing]) {
        for (const shape of SHAPES) {
          const expected = pageAsText(await reference.v3PageText(seqno, shape, true))
          events.length = 0
          expect(pageAsText(await lone.v3PageText(seqno, shape, true))).toEqual(expected)
          expect(expected).not.toBeNull()
          expect(submitted(events).map((s) => /FROM (\w+)/.exec(s)![1])).toEqual([
            "v3_page_keys",
            "v3_pages",
            "account_lookups_kv"
          ])
        }
      }
    } finally {
      await ch.client.command({
        query: `INSERT INTO v3_page_keys SELECT mc_block_seqno, asc_rank, ${V3_PAGE_KEYS} FROM v3_pages
                WHERE mc_block_seqno IN (${stale}, ${missing})`
      })
    }
  })

  it("is not what pages arriving together do: they share statements, the first alone beside its lines", async () => {
    const events: Array<Event> = []
    const store = new ClickHouseTxStore([reader(events), reader(events)])
    const reference = inARow()
    // a page of every block first: the store learns that account_lookups_kv is filled and loads the done bitmaps
    for (const seqno of mcs) await store.v3PageText(seqno, SHAPES[0]!, true)
    events.length = 0
    const asks = mcs.flatMap((s) => SHAPES.slice(0, 2).map((shape) => ({ s, shape })))
    const got = await Promise.all(asks.map((a) => store.v3PageText(a.s, a.shape, true).then(pageAsText)))
    for (const [i, a] of asks.entries()) expect(got[i]).toEqual(pageAsText(await reference.v3PageText(a.s, a.shape, true)))
    const tables = submitted(events).map((s) => /FROM (\w+)/.exec(s)![1])
    expect(tables.filter((t) => t === "v3_page_keys")).toHaveLength(1)
    expect(tables.filter((t) => t === "v3_pages").length).toBeLessThan(asks.length / 4)
  })
})

describe("v3_page_keys (sql/0144)", () => {
  it("is written by its view on every v3_pages insert, and its fill writes the same rows once", async () => {
    const all = async () =>
      (await ch.client.query({ query: "SELECT * FROM v3_page_keys ORDER BY mc_block_seqno", format: "JSONEachRow" }))
        .json()
    const byView = await all()
    expect(byView.length).toBe(bundles.length)
    await ch.client.command({ query: "TRUNCATE TABLE v3_page_keys" })
    expect(await all()).toEqual([])
    // rows of the blocks `v3_pages` holds (the deleted block's keys row was the view's, written before the delete)
    expect(await fillV3PageKeys(ch.client)).toBe(bundles.length - 1)
    expect(await all()).toEqual(byView.filter((r) => (r as { mc_block_seqno: number }).mc_block_seqno !== NO_ROW))
    expect(await fillV3PageKeys(ch.client)).toBeNull()
  })
})
