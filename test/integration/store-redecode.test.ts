/**
 * The re-decode of a store written by an older body decoder (src/store/redecode.ts) on the real engine: real mainnet
 * blocks are ingested as the consumer writes them, their decoded columns and pre-rendered pages are then made stale
 * (as an older decoder would have left them), and the re-decode must bring back exactly what a fresh ingest holds:
 * the same decoded columns and opcode names, and API answers equal byte for byte. A run stopped after its first
 * batch leaves every block answering either its old bytes or the fresh ones (a block without pages answers from the
 * rows, freshly), and the next run resumes at its cursor. Both store shapes a single node holds: written by its
 * consumer (pages in the key-value rows, `tx_pages` only for blocks they cannot serve) and written before that (every
 * transaction's piece in `tx_pages` too); the re-render writes the key-value rows straight from the row tables.
 */
import type { FastifyInstance } from "fastify"
import { Effect, Layer } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { buildApp, type ApiAppConfig } from "../../src/api/app.js"
import { ClickHouse } from "../../src/clickhouse/ClickHouse.js"
import { Migrations } from "../../src/clickhouse/migrations.js"
import { flattenBundles, INSERT_ORDER } from "../../src/flatten/index.js"
import { BodyRedecode } from "../../src/store/BodyRedecode.js"
import { redecodeBodies, storedDecoderVersion } from "../../src/store/redecode.js"
import { ClickHouseTxStore } from "../../src/store/Store.js"
import { BODY_DECODER_VERSION } from "../../src/ton/bodies/version.js"
import { testClickHouse, type TestClickHouse } from "../support/integration.js"
import { realBlockBundles } from "../unit/store/realBlocks.js"

const config: ApiAppConfig = { network: "mainnet", api: { keys: [], rateLimit: 0 }, cacheBytes: 0 }
const clock = { nowMs: () => 1724745562699, random: () => 0.5335802192168009 }
const bundles = realBlockBundles().bundles

let ch: TestClickHouse
let app: FastifyInstance

/** Every v3 and v2 page of the fixture blocks, by URL. */
const urls = (): Array<string> => {
  const out: Array<string> = []
  for (const b of bundles) {
    out.push(`/api/v3/masterchainBlockShardState?seqno=${b.mc_seqno}&limit=1000&sort=asc`)
    out.push(`/api/v3/transactionsByMasterchainBlock?seqno=${b.mc_seqno}&limit=1000`)
    for (const blk of [b.mc_block, ...b.shard_blocks]) {
      out.push(
        `/api/v2/getBlockTransactionsExt?workchain=${blk.id.workchain}&shard=${blk.id.shard}&seqno=${blk.id.seqno}&count=1000`
      )
    }
  }
  return out
}

const answers = async (): Promise<Map<string, string>> => {
  const out = new Map<string, string>()
  for (const url of urls()) {
    const r = await app.inject(url)
    expect(r.statusCode, url).toBe(200)
    out.set(url, r.body)
  }
  return out
}

const text = async (query: string): Promise<string> => (await ch.client.query({ query, format: "TabSeparated" })).text()

/** The decoded columns and opcode names, in a fixed order. */
const columns = async (): Promise<string> =>
  [
    await text("SELECT DISTINCT hash, decoded FROM message_contents ORDER BY hash, decoded"),
    await text(
      "SELECT mc_block_seqno, tx_account, tx_lt, direction, msg_index, decoded_opcode FROM messages ORDER BY ALL"
    ),
    await text("SELECT DISTINCT opcode, name FROM opcode_names ORDER BY opcode, name")
  ].join("\n--\n")

const mutate = (query: string) => ch.client.command({ query, clickhouse_settings: { mutations_sync: "2" } })

/**
 * What an older decoder leaves: other texts (and names, unless `bodiesOnly`) in the columns, and pages rendered from
 * them.
 */
const makeStale = async ({ bodiesOnly = false } = {}) => {
  await mutate(
    'ALTER TABLE message_contents UPDATE decoded = if(cityHash64(hash) % 2 = 0, NULL, \'{"@type":"older"}\') ' +
      "WHERE decoded IS NOT NULL"
  )
  if (!bodiesOnly) await staleNames()
  const pieceOpcodes = bodiesOnly ? "v3" : 'replaceAll(v3, \'"decoded_opcode":"\', \'"decoded_opcode":"older_\')'
  await mutate(`ALTER TABLE tx_pages UPDATE v3 = replaceAll(${pieceOpcodes}, '"@type":"', '"@type":"older_') WHERE 1`)
  // and the key-value copies of those pages (sql/0131), rewritten whole as every write of them is
  await ch.client.command({
    query: `INSERT INTO v3_pages SELECT mc_block_seqno, asc_rank,
            arrayMap(l -> replaceAll(${pieceOpcodes.replace("v3", "l")}, '"@type":"', '"@type":"older_'), lines) FROM v3_pages`
  })
}

const v3Rows = async (): Promise<string> => text("SELECT * FROM v3_pages ORDER BY mc_block_seqno")

/** Done masterchain blocks with transactions and no pages at all (no `v3_pages` row, no `tx_pages` rows). */
const blocksWithoutPages = async (): Promise<Array<number>> =>
  (
    await text(
      `SELECT mc_seqno FROM mc_blocks_done WHERE tx_count > 0
         AND mc_seqno NOT IN (SELECT mc_block_seqno FROM v3_pages)
         AND mc_seqno NOT IN (SELECT mc_block_seqno FROM tx_pages)
       ORDER BY mc_seqno`
    )
  )
    .split("\n")
    .filter((l) => l !== "")
    .map(Number)

/** `tx_pages` rows per masterchain block, as text. */
const txPageCounts = async (): Promise<string> =>
  text("SELECT mc_block_seqno, count() FROM tx_pages FINAL GROUP BY mc_block_seqno ORDER BY mc_block_seqno")
let freshV3Rows: string

const staleNames = async () => {
  await mutate(
    "ALTER TABLE messages UPDATE decoded_opcode = multiIf(decoded_opcode IS NULL, 'older_unnamed', " +
      "concat('older_', decoded_opcode)) WHERE opcode IS NOT NULL"
  )
  await ch.client.command({
    query: "INSERT INTO opcode_names SELECT opcode, concat('older_', name) FROM opcode_names"
  })
}

let fresh: Map<string, string>
/** A quarter of the stored BOC bytes: a run takes a few batches. */
let batchBytes = 0
let freshColumns: string

const differing = (got: Map<string, string>) =>
  [...got].filter(([url, body]) => fresh.get(url) !== body).map(([u]) => u)

describe.each([
  { shape: "written by a single node's consumer (pages in the key-value rows)", pageKv: true },
  { shape: "written before (every transaction's piece in tx_pages too)", pageKv: false }
])("re-decode to this build's body decoder, a store $shape", ({ pageKv }) => {
  let freshTxPages: string

  beforeAll(async () => {
    ch = await testClickHouse(pageKv ? "redecode_kv" : "redecode")
    // Written as the consumer writes: every table, pages included, by this build's decoder.
    const batch = flattenBundles(bundles, { pageKv })
    for (const table of INSERT_ORDER) {
      if (batch[table].length === 0) continue
      await ch.client.insert<object>({ table, values: batch[table], format: "JSONEachRow" })
    }
    app = buildApp({ store: new ClickHouseTxStore(ch.client), config, clock })
    batchBytes = Math.ceil(Number(await text("SELECT sum(length(boc)) FROM message_contents")) / 4)
    fresh = await answers()
    freshColumns = await columns()
    freshV3Rows = await v3Rows()
    freshTxPages = await txPageCounts()
  }, 120_000)

  afterAll(async () => {
    await app?.close()
    await ch?.close()
  })

  it("a store without a recorded version gets every stale value corrected and its pages rendered again", async () => {
    expect(await storedDecoderVersion(ch.client)).toBe(0)
    await makeStale()
    expect(await columns()).not.toBe(freshColumns)
    expect(differing(await answers()).length).toBeGreaterThan(0)

    const lines: Array<string> = []
    const report = await redecodeBodies(ch.client, { batchBytes, onProgress: (l) => lines.push(l) })
    expect(report.outcome).toBe("redecoded")
    expect(report.to).toBe(BODY_DECODER_VERSION)
    expect(report.changedBodies).toBeGreaterThan(0)
    expect(report.opcodes).toBeGreaterThan(0)
    expect(report.renderedBlocks).toBeGreaterThan(0)
    expect(lines.filter((l) => l.includes("bodies decoded")).length).toBeGreaterThan(1)

    expect(await columns()).toBe(freshColumns)
    expect(differing(await answers())).toEqual([])
    expect(await blocksWithoutPages()).toEqual([])
    // the key-value page rows of the re-rendered blocks were deleted and written again, rendered from the rows
    expect(await v3Rows()).toBe(freshV3Rows)
    // and `tx_pages` holds no piece the key-value rows serve: unchanged in a store written so
    if (pageKv) expect(await txPageCounts()).toBe(freshTxPages)
    expect(await storedDecoderVersion(ch.client)).toBe(BODY_DECODER_VERSION)

    const again = await redecodeBodies(ch.client)
    expect(again.outcome).toBe("current")
  })

  it("a run stopped after a batch keeps every answer old or fresh, and the next run resumes and finishes", async () => {
    await makeStale({ bodiesOnly: true })
    const stale = await answers()
    const next = BODY_DECODER_VERSION + 1
    const controller = new AbortController()
    const stopped = await redecodeBodies(ch.client, {
      version: next,
      batchBytes,
      updateBytes: 1,
      signal: controller.signal,
      onProgress: (l) => {
        if (l.includes("bodies decoded")) controller.abort()
      }
    })
    expect(stopped.outcome).toBe("stopped")
    expect(stopped.opcodes).toBe(0)
    expect(await storedDecoderVersion(ch.client)).toBe(BODY_DECODER_VERSION)

    const during = await answers()
    const dropped = new Set(await blocksWithoutPages())
    expect(dropped.size).toBeGreaterThan(0)
    for (const [url, body] of during) expect([fresh.get(url), stale.get(url)], url).toContain(body)
    for (const b of bundles.filter((x) => dropped.has(x.mc_seqno))) {
      const url = `/api/v3/masterchainBlockShardState?seqno=${b.mc_seqno}&limit=1000&sort=asc`
      expect(during.get(url), url).toBe(fresh.get(url))
    }

    const lines: Array<string> = []
    const resumed = await redecodeBodies(ch.client, {
      version: next,
      batchBytes,
      updateBytes: 1,
      onProgress: (l) => lines.push(l)
    })
    expect(
      lines.some((l) => l.startsWith("redecode: resuming after ")),
      lines.join("\n")
    ).toBe(true)
    expect(resumed.outcome).toBe("redecoded")
    expect(resumed.bodies).toBeGreaterThan(stopped.bodies)
    expect(await columns()).toBe(freshColumns)
    expect(differing(await answers())).toEqual([])
    expect(await v3Rows()).toBe(freshV3Rows)
    if (pageKv) expect(await txPageCounts()).toBe(freshTxPages)
    expect(await storedDecoderVersion(ch.client)).toBe(next)
  })
  it("the start-up step (BodyRedecode) runs on the service's client and leaves a store of a newer decoder as is", async () => {
    const layer = BodyRedecode.layerAwaited.pipe(
      Layer.provide(Migrations.layer),
      Layer.provideMerge(ClickHouse.fromConfig(ch.config))
    )
    const codeKv = async () =>
      (
        await (
          await ch.client.query({
            query: `SELECT countIf(key = '') AS filled, countIf(key LIKE '%:%') AS accounts,
                           (SELECT uniqExact(account) FROM latest_account_code) AS reported
                    FROM account_lookups_kv`,
            format: "JSONEachRow"
          })
        ).json<{ filled: string | number; accounts: string | number; reported: string | number }>()
      )[0]!
    expect(Number((await codeKv()).filled)).toBe(0)
    const report = await Effect.runPromise(Effect.flatMap(BodyRedecode, (s) => s.done).pipe(Effect.provide(layer)))
    // the start-up step fills the key-value lookups of a store written before them (sql/0142), once
    const filled = await codeKv()
    expect(Number(filled.filled)).toBe(1)
    expect(Number(filled.accounts)).toBe(Number(filled.reported))
    expect(report?.outcome).toBe("newer")
    expect(report?.from).toBe(BODY_DECODER_VERSION + 1)
    expect(differing(await answers())).toEqual([])
  })
})
