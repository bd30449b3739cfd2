/**
 * Account states embedded in the `v3_pages` rows (src/flatten/v3_pages.ts) on the real engine, over a real mainnet
 * bundle with its states, generated bundles whose states after each transaction are known and before it hash-only,
 * and real mainnet blocks without states: the consumer's rows carry each known state of their bundle (or of an earlier
 * one it kept) as its JSON and a page's lookups then ask only for the hashes left and the address book, in the same
 * statement as its lines, their keys taken by the engine from the block's `v3_page_keys` row (sql/0153: written by a
 * view with each row, filled for rows stored before; a block without one takes the lookups after its lines); rows
 * with hashes only (written before), mixed rows, and rows the fill (`npm run migrate`, the start) rewrote answer
 * exactly what `tx_pages` with the MergeTree lookups and the in-memory store answer.
 */
import type { FastifyInstance } from "fastify"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { buildApp, type ApiAppConfig } from "../../src/api/app.js"
import { readMigrations } from "../../src/clickhouse/migrations.js"
import { StateHistory } from "../../src/flatten/bundle.js"
import { flattenBundles } from "../../src/flatten/index.js"
import type { V3PageRow } from "../../src/flatten/v3_pages.js"
import { fillAccountLookupsKv } from "../../src/store/accountLookupsKv.js"
import { embedV3States } from "../../src/store/embedV3States.js"
import { v3PageAnswer } from "../../src/store/pages.js"
import { readClients } from "../../src/store/readers.js"
import { clientReader, ClickHouseTxStore, type ReadConnection } from "../../src/store/Store.js"
import type { SortOrder, V3PageText } from "../../src/store/TxStore.js"
import type { MasterchainBundle } from "../../src/ton/record.js"
import { testClickHouse, type TestClickHouse } from "../support/integration.js"
import { memoryStoreOf } from "../support/memoryStore.js"
import { expectSameAnswers, v3PageUrls } from "../support/sameAnswers.js"
import { insertTables } from "../support/storeRows.js"
import { realBlockBundles } from "../unit/store/realBlocks.js"
import { realBundle, syntheticBundle } from "../unit/store/records.js"

const config: ApiAppConfig = { network: "mainnet", api: { keys: [], rateLimit: 0 }, cacheBytes: 0 }
const clock = { nowMs: () => 1724745562699, random: () => 0.5335802192168009 }

/** A generated bundle whose first transaction starts from a known state `earlier` brought (not its own). */
const startingFrom = (b: MasterchainBundle, earlier: MasterchainBundle): MasterchainBundle => {
  const known = earlier.account_states.find((s) => s.balance !== null)!
  const [first, ...rest] = b.transactions
  return { ...b, transactions: [{ ...first!, account_state_hash_before: known.hash }, ...rest] }
}

const b801 = syntheticBundle(801)
const bundles: ReadonlyArray<MasterchainBundle> = [
  ...realBlockBundles().bundles.slice(0, 2),
  b801,
  startingFrom(syntheticBundle(802), b801),
  realBundle(),
  { ...syntheticBundle(803), transactions: [] }
]

let ch: TestClickHouse
let kv: ClickHouseTxStore
let pages: ClickHouseTxStore
let fromKv: FastifyInstance
let fromPages: FastifyInstance
let fromMemory: FastifyInstance
/** The statements the key-value store sent, in order. */
const sent: Array<string> = []
/** The consumer's rows, by masterchain block. */
let consumerRows: Map<number, V3PageRow>

const isJson = (field: string) => field.startsWith("{")
const fieldsOf = (line: string) => line.split("\t")
/** Whether a line embeds one of its states. */
const embeds = (line: string) => fieldsOf(line).slice(0, 2).some(isJson)

/** A row with the state fields `keep` refuses put back as their hashes (what a row written before holds). */
const withHashes = (row: V3PageRow, keep: (line: number, field: number) => boolean): V3PageRow => ({
  ...row,
  lines: row.lines.map((line, i) => {
    const f = fieldsOf(line)
    for (const k of [0, 1]) if (isJson(f[k]!) && !keep(i, k)) f[k] = (JSON.parse(f[k]!) as { hash: string }).hash
    return f.join("\t")
  })
})

const storedRows = async (): Promise<Array<V3PageRow>> =>
  (
    (await (
      await ch.client.query({ query: "SELECT * FROM v3_pages ORDER BY mc_block_seqno", format: "JSONEachRow" })
    ).json()) as Array<V3PageRow>
  ).map((r) => ({ ...r, mc_block_seqno: Number(r.mc_block_seqno) }))

/** The `v3_page_keys` rows (sql/0153), by masterchain block. */
const storedKeys = async (): Promise<Map<number, { hashes: Array<Array<string>>; book: Array<Array<string>> }>> => {
  const rows = (await (
    await ch.client.query({ query: "SELECT mc_block_seqno, hashes, book FROM v3_page_keys", format: "JSONEachRow" })
  ).json()) as Array<{ mc_block_seqno: number | string; hashes: Array<Array<string>>; book: Array<Array<string>> }>
  return new Map(rows.map((r) => [Number(r.mc_block_seqno), { hashes: r.hashes, book: r.book }]))
}

/** What a row's keys row holds: per line its state fields that are hashes, and its book's accounts. */
const keysOf = (row: V3PageRow) => ({
  hashes: row.lines.map((l) =>
    fieldsOf(l)
      .slice(0, 2)
      .filter((f) => f !== "" && !isJson(f))
  ),
  book: row.lines.map((l) =>
    fieldsOf(l)[2]!
      .split(" ")
      .filter((a) => a.length > 0)
  )
})

const writeRows = async (rows: ReadonlyArray<V3PageRow>) =>
  ch.client.insert({ table: "v3_pages", values: [...rows], format: "JSONEachRow" })

const shapes = (n: number): Array<{ limit: number; offset: number; sort: SortOrder }> => {
  const out: Array<{ limit: number; offset: number; sort: SortOrder }> = []
  for (const sort of ["asc", "desc"] as const)
    for (const offset of [...new Set([0, 1, Math.floor(n / 2), n - 1])])
      if (offset >= 0) for (const limit of [1, 3, 1000]) out.push({ limit, offset, sort })
  return out
}

/** A page as its answer's bytes (latin1 text) and what the address book is made from. */
const answerOf = (page: V3PageText | null) =>
  page === null
    ? null
    : {
        answer: v3PageAnswer(page, "{}").toString("latin1"),
        book: [...page.book].sort(),
        codes: [...page.codeHashes].sort()
      }

/** Every page shape of every block answers from the rows what `tx_pages` and the MergeTree lookups answer. */
const sameAsPages = async () => {
  for (const b of bundles) {
    for (const [i, shape] of shapes(b.transactions.length).entries()) {
      const book = i % 2 === 0
      const want = answerOf(await pages.v3PageText(b.mc_seqno, shape, book))
      const got = answerOf(await kv.v3PageText(b.mc_seqno, shape, book))
      expect(got, `${b.mc_seqno} ${JSON.stringify(shape)} ${book}`).toEqual(want)
    }
  }
}

/** The API's answers from the rows equal those from `tx_pages` and from the in-memory store, byte for byte. */
const sameApi = () =>
  expectSameAnswers(
    v3PageUrls(
      bundles.map((b) => b.mc_seqno),
      ["", "&sort=asc", "&limit=3&offset=2&sort=asc", "&limit=1000&sort=desc"]
    ),
    fromMemory,
    [fromKv, fromPages]
  )

beforeAll(async () => {
  ch = await testClickHouse("v3states")
  // as the consumer flattens: the known states of the bundles before kept too
  const batch = flattenBundles(bundles, { earlierStates: new StateHistory(100) })
  consumerRows = new Map(batch.v3_pages.map((r) => [r.mc_block_seqno, r]))
  await insertTables(ch.client, batch)
  await fillAccountLookupsKv(ch.client)
  const inner = clientReader(ch.client)
  const recording: ReadConnection = {
    jsonEachRow: (sql) => (sent.push(sql), inner.jsonEachRow(sql)),
    text: (sql) => (sent.push(sql), inner.text(sql)),
    bytes: (sql) => (sent.push(sql), inner.bytes(sql))
  }
  kv = new ClickHouseTxStore([recording])
  pages = new ClickHouseTxStore(ch.client, { pageKv: false })
  fromKv = buildApp({ store: kv, config, clock })
  fromPages = buildApp({ store: pages, config, clock })
  fromMemory = buildApp({ store: memoryStoreOf(bundles), config, clock })
}, 120_000)

afterAll(async () => {
  await fromKv?.close()
  await fromPages?.close()
  await fromMemory?.close()
  await ch?.close()
})

describe("v3_pages rows with their known states embedded", () => {
  it("the consumer embeds each known state of the bundle and keeps the hash of the others", () => {
    const states = new Map(bundles.flatMap((b) => b.account_states.map((s) => [s.hash, s] as const)))
    let embedded = 0
    let hashes = 0
    for (const row of consumerRows.values()) {
      for (const line of row.lines) {
        for (const field of fieldsOf(line).slice(0, 2)) {
          if (isJson(field)) {
            embedded++
            const s = states.get((JSON.parse(field) as { hash: string }).hash)!
            expect(s.balance !== null || s.account_status !== null || s.code_hash !== null).toBe(true)
          } else {
            hashes++
            const s = states.get(field)
            // unknown or hash-only: the reader looks it up (and renders it absent)
            if (s !== undefined)
              expect(s.balance === null && s.account_status === null && s.code_hash === null).toBe(true)
          }
        }
      }
    }
    expect(embedded).toBeGreaterThan(20)
    expect(hashes).toBeGreaterThan(20)
    // the state an earlier bundle brought is embedded too
    const known = b801.account_states.find((s) => s.balance !== null)!
    expect(consumerRows.get(802)!.lines.some((l) => l.startsWith(`{"hash":${JSON.stringify(known.hash)}`))).toBe(true)
  })

  it("answers from the consumer's rows as from tx_pages and the in-memory store", async () => {
    await sameAsPages()
    await sameApi()
  }, 300_000)

  it("each row's keys row holds per line the hashes it does not embed and its book, and a lone page is ONE statement", async () => {
    const keyRows = await storedKeys()
    for (const row of consumerRows.values())
      expect(keyRows.get(row.mc_block_seqno), `${row.mc_block_seqno}`).toEqual(keysOf(row))
    for (const b of bundles.filter((x) => x.transactions.length > 0)) {
      const row = consumerRows.get(b.mc_seqno)!
      for (let i = 0; i < row.lines.length; i++) {
        for (const book of [true, false]) {
          sent.length = 0
          await kv.v3PageText(b.mc_seqno, { limit: 1, offset: i, sort: "desc" }, book)
          // the lines and the lookups, whose keys the engine takes from the keys row (the table known filled by now)
          expect(sent, `${b.mc_seqno} line ${i} ${book}`).toHaveLength(1)
          expect(sent[0]).toContain("FROM v3_page_keys")
          expect(sent[0]).toContain("FROM account_lookups_kv")
        }
      }
    }
    // both kinds of line are there
    const lines = [...consumerRows.values()].flatMap((r) => r.lines.map(fieldsOf))
    expect(lines.some((f) => isJson(f[0]!) && isJson(f[1]!))).toBe(true)
    expect(lines.some((f) => !isJson(f[0]!) || !isJson(f[1]!))).toBe(true)
  }, 300_000)

  it("a lone page's one statement on the calling thread (tab-separated) answers the same, empty pages and books included", async () => {
    const readers = readClients(ch, 1)
    try {
      const now: Array<string> = []
      const other: Array<string> = []
      const r = readers.clients[0]!
      const recorded: ReadConnection = {
        jsonEachRow: (sql) => (other.push(sql), r.jsonEachRow(sql)),
        text: (sql) => (other.push(sql), r.text(sql)),
        bytes: (sql) => (other.push(sql), r.bytes(sql)),
        now: (sql, format) => (now.push(sql), r.now!(sql, format))
      }
      const lone = new ClickHouseTxStore([recorded], { alone: () => true })
      // the lookups table seen filled first (its marker asked once), as a running API has
      await lone.v3PageText(bundles[0]!.mc_seqno, { limit: 1, offset: 0, sort: "desc" }, true)
      for (const b of bundles) {
        for (const [i, shape] of [...shapes(b.transactions.length), { limit: 1, offset: 1_000_000, sort: "asc" as const }].entries()) {
          const book = i % 2 === 0
          now.length = 0
          const got = answerOf(await lone.v3PageText(b.mc_seqno, shape, book))
          expect(got, `${b.mc_seqno} ${JSON.stringify(shape)} ${book}`).toEqual(answerOf(await pages.v3PageText(b.mc_seqno, shape, book)))
          // a page of a stored row: its lines and lookups in one statement, on the calling thread
          // (the done marker's bitmap of a new range is read first, once)
          if (consumerRows.has(b.mc_seqno)) {
            const reads = now.filter((q) => /v3_pages|account_lookups_kv/.test(q))
            expect(reads, `${b.mc_seqno} ${JSON.stringify(shape)}`).toHaveLength(1)
            expect(reads[0]).toContain("FROM v3_page_keys")
            expect(reads[0]).toContain("FORMAT TabSeparatedRaw")
          }
        }
      }
      expect(other.filter((q) => /v3_pages|account_lookups_kv/.test(q))).toEqual([])
    } finally {
      await readers.close()
    }
  }, 300_000)

  it("blocks without a keys row answer the same with the lookups after the lines; the fill gives them the view's rows", async () => {
    await ch.client.command({ query: "TRUNCATE TABLE v3_page_keys" })
    const b = bundles.find((x) => x.transactions.length > 0)!
    sent.length = 0
    await kv.v3PageText(b.mc_seqno, { limit: 3, offset: 0, sort: "asc" }, true)
    expect(sent).toHaveLength(2)
    await sameAsPages()
    await sameApi()
    // the migration's fill (its last statement) makes the rows the view makes for the same lines
    const fill = readMigrations()
      .find((m) => m.name === "0153_create_v3_page_keys.sql")!
      .statements.at(-1)!
    expect(fill).toMatch(/^INSERT INTO v3_page_keys/m)
    await ch.client.command({ query: fill })
    const keyRows = await storedKeys()
    for (const row of consumerRows.values())
      expect(keyRows.get(row.mc_block_seqno), `${row.mc_block_seqno}`).toEqual(keysOf(row))
    sent.length = 0
    await kv.v3PageText(b.mc_seqno, { limit: 3, offset: 0, sort: "asc" }, true)
    expect(sent).toHaveLength(1)
  }, 300_000)

  it("rows written before (hashes only) and mixed rows answer the same", async () => {
    await writeRows([...consumerRows.values()].map((r) => withHashes(r, () => false)))
    expect((await storedRows()).some((r) => r.lines.some(embeds))).toBe(false)
    await sameAsPages()
    await sameApi()
    await writeRows([...consumerRows.values()].map((r) => withHashes(r, (line, field) => (line + field) % 2 === 0)))
    const mixed = (await storedRows()).flatMap((r) => r.lines.map(fieldsOf))
    expect(mixed.some((f) => isJson(f[0]!) !== isJson(f[1]!))).toBe(true)
    await sameAsPages()
    await sameApi()
  }, 300_000)

  it("the fill embeds every known state of rows written before, resumably, into the consumer's rows", async () => {
    await writeRows([...consumerRows.values()].map((r) => withHashes(r, () => false)))
    const controller = new AbortController()
    const progress: Array<number> = []
    const first = await embedV3States(ch.client, {
      batchBlocks: 2,
      signal: controller.signal,
      onProgress: (p) => {
        progress.push(p.through)
        controller.abort()
      }
    })
    expect(progress).toHaveLength(1)
    const rest = await embedV3States(ch.client, { batchBlocks: 2 })
    // every row with a known state rewritten once; the real blocks without states and the empty block are left
    const withStates = [...consumerRows.values()].filter((r) => r.lines.some(embeds)).length
    expect(first + rest).toBe(withStates)
    expect(await embedV3States(ch.client)).toBe(0)
    // the known states here all came with their own bundles: the rows are exactly the consumer's
    expect(await storedRows()).toEqual(
      JSON.parse(JSON.stringify([...consumerRows.values()].sort((a, b) => a.mc_block_seqno - b.mc_block_seqno)))
    )
    await sameAsPages()
    await sameApi()
  }, 300_000)
})
