/**
 * Account states embedded in the `v3_pages` rows (src/flatten/v3_pages.ts) on the real engine, over a real mainnet
 * bundle with its states, generated bundles whose states after each transaction are known and before it hash-only,
 * and real mainnet blocks without states: the consumer's rows carry each known state of their bundle (or of an earlier
 * one it kept) as its JSON and
 * a page's lookups then ask only for the hashes left and the address book (none at all without a book when every
 * state is embedded); rows with hashes only (written before), mixed rows, and rows the fill (`npm run migrate`, the
 * start) rewrote answer exactly what `tx_pages` with the MergeTree lookups and the in-memory store answer.
 */
import type { FastifyInstance } from "fastify"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { buildApp, type ApiAppConfig } from "../../src/api/app.js"
import { StateHistory } from "../../src/flatten/bundle.js"
import { flattenBundles } from "../../src/flatten/index.js"
import type { V3PageRow } from "../../src/flatten/v3_pages.js"
import { fillAccountLookupsKv } from "../../src/store/accountLookupsKv.js"
import { embedV3States } from "../../src/store/embedV3States.js"
import { v3PageAnswer } from "../../src/store/pages.js"
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

/** The keys of the `account_lookups_kv` statements sent by `run`. */
const lookupsOf = async (run: () => Promise<unknown>): Promise<Array<string>> => {
  sent.length = 0
  await run()
  return sent.filter((s) => s.includes("FROM account_lookups_kv"))
}

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

  it("a page's lookups ask only the hashes its rows do not embed, and none without a book when all are", async () => {
    for (const b of bundles.filter((x) => x.transactions.length > 0)) {
      const row = consumerRows.get(b.mc_seqno)!
      for (let i = 0; i < row.lines.length; i++) {
        const [before, after, book] = fieldsOf(row.lines[i]!)
        const page = () => kv.v3PageText(b.mc_seqno, { limit: 1, offset: i, sort: "desc" }, true)
        const [sql] = await lookupsOf(page)
        for (const f of [before!, after!]) {
          const hash = isJson(f) ? (JSON.parse(f) as { hash: string }).hash : f
          expect(sql!.includes(hash), `${b.mc_seqno} line ${i}: ${hash}`).toBe(!isJson(f))
        }
        for (const a of book!.split(" ")) expect(sql).toContain(a)
        const bookless = await lookupsOf(() => kv.v3PageText(b.mc_seqno, { limit: 1, offset: i, sort: "desc" }, false))
        expect(bookless.length).toBe(isJson(before!) && isJson(after!) ? 0 : 1)
      }
    }
    // both kinds of line are there
    const lines = [...consumerRows.values()].flatMap((r) => r.lines.map(fieldsOf))
    expect(lines.some((f) => isJson(f[0]!) && isJson(f[1]!))).toBe(true)
    expect(lines.some((f) => !isJson(f[0]!) || !isJson(f[1]!))).toBe(true)
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
