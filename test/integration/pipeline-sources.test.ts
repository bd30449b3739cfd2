// The two sources are interchangeable end to end: one generated chain (splits, merges, several shard blocks per
// masterchain block, recorded real transactions), served as JSON by the fake toncenter and as block files by a local
// liteserver with the same block ids, goes through the whole pipeline once per source (producer -> Kafka ->
// consumer -> ClickHouse, each into its own database). Every table then holds the same rows, compared canonically
// (rows sorted; only the columns that name an insert or its time left out, the analytics tables' partial aggregates
// merged per key), and the API answers every v2 and v3 route for every block byte for byte the same.
import type { ClickHouseClient } from "@clickhouse/client"
import type { Layer } from "effect"
import type { FastifyInstance } from "fastify"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { buildApp, type ApiAppConfig } from "../../src/api/app.js"
import { Upstream } from "../../src/source/Upstream.js"
import { ClickHouseTxStore } from "../../src/store/Store.js"
import { chainStats, type ChainData } from "../../tools/fake/ChainData.js"
import { generateChain } from "../../tools/fake/generate.js"
import { withBlockFiles } from "../../tools/fake/liteserver/blocks.js"
import { startFakeLiteserver, type FakeLiteserver } from "../../tools/fake/liteserver/server.js"
import { startFakeToncenter, type FakeToncenter } from "../../tools/fake/server.js"
import { testClickHouse, testKafka, type TestClickHouse } from "../support/integration.js"
import { expectedFrom } from "../support/pipeline/chainUpstream.js"
import { liteserverLayer } from "../support/pipeline/sources.js"
import { ingestChain } from "../support/pipeline/ingest.js"
import { readStored } from "../support/pipeline/stored.js"

/** Columns that record which insert wrote a row or when: they differ between any two runs. */
const RUN_COLUMNS = new Set(["insert_id", "inserted_at", "applied_at"])

interface TableDump {
  readonly rows: number
  /** The canonical rows, as JSON, sorted. */
  readonly lines: ReadonlyArray<string>
}

const query = async <T>(client: ClickHouseClient, q: string): Promise<Array<T>> =>
  (await client.query({ query: q, format: "JSONEachRow" })).json<T>()

/**
 * Every table of the current database, canonically: the rows without their run columns, sorted. A table with an
 * insert_id column holds partial aggregates per insert, whose split depends on batching: they are merged per key
 * (the columns that are not aggregates) first.
 */
const dumpTables = async (client: ClickHouseClient): Promise<Map<string, TableDump>> => {
  const tables = await query<{ name: string }>(
    client,
    "SELECT name FROM system.tables WHERE database = currentDatabase() AND engine NOT LIKE '%View' ORDER BY name"
  )
  const out = new Map<string, TableDump>()
  for (const { name } of tables) {
    const columns = await query<{ name: string; type: string }>(
      client,
      `SELECT name, type FROM system.columns WHERE database = currentDatabase() AND table = '${name}' ORDER BY position`
    )
    const kept = columns.filter((c) => !RUN_COLUMNS.has(c.name))
    const merged = columns.some((c) => c.name === "insert_id")
    const keys = kept.filter((c) => !/^(Simple)?AggregateFunction\(/.test(c.type)).map((c) => `\`${c.name}\``)
    const select = kept.map((c) => {
      const simple = /^SimpleAggregateFunction\((\w+),/.exec(c.type)
      const full = /^AggregateFunction\((\w+),/.exec(c.type)
      if (!merged) return full ? `finalizeAggregation(\`${c.name}\`) AS \`${c.name}\`` : `\`${c.name}\``
      if (simple) return `${simple[1]}(\`${c.name}\`) AS \`${c.name}\``
      if (full) return `${full[1]}Merge(\`${c.name}\`) AS \`${c.name}\``
      return `\`${c.name}\``
    })
    const q = `SELECT ${select.join(", ")} FROM \`${name}\`${merged && keys.length > 0 ? ` GROUP BY ${keys.join(", ")}` : ""}`
    const rows = await query<Record<string, unknown>>(client, q)
    const lines = rows.map((r) => JSON.stringify(r)).sort()
    out.set(name, { rows: lines.length, lines })
  }
  return out
}

// no response cache: every request must reach the store under test
const apiConfig: ApiAppConfig = { network: "testnet", api: { keys: [], rateLimit: 0 }, cacheBytes: 0 }
const clock = { nowMs: () => 1724745562699, random: () => 0.5335802192168009 }

describe("pipeline: the toncenter and liteserver sources store and serve the same chain identically", () => {
  let chain: ChainData
  let toncenter: FakeToncenter
  let liteserver: FakeLiteserver
  const chs: Array<TestClickHouse> = []
  const apps: Array<FastifyInstance> = []
  const tk = testKafka("pipeline-sources")

  beforeAll(async () => {
    const files = withBlockFiles(
      generateChain({
        seed: 31,
        mcBlocks: 16,
        txPerBlock: 3,
        initialShards: 2,
        maxShards: 8,
        splitChance: 0.35,
        mergeChance: 0.35,
        maxBlocksPerShard: 3,
        fixtures: true,
        network: "testnet"
      })
    )
    chain = files.chain
    toncenter = await startFakeToncenter({ chain })
    liteserver = await startFakeLiteserver({ chain: files })
  })
  afterAll(async () => {
    for (const app of apps) await app.close()
    await liteserver?.stop()
    await toncenter?.stop()
    for (const ch of chs) await ch.close()
  })

  /** The whole chain through the pipeline from `source` into a database of its own. */
  const ingest = async (name: string, source: Layer.Layer<Upstream>): Promise<TestClickHouse> => {
    const ch = await testClickHouse(`pipeline_sources_${name}`)
    chs.push(ch)
    const summary = await ingestChain({ tk, ch, chain, name, source })
    expect(summary).toMatchObject({ first: chain.first, last: chain.last, deadLetters: 0 })
    return ch
  }

  it("every table holds the same rows and every route answers the same bytes", { timeout: 300_000 }, async () => {
    const stats = chainStats(chain)
    expect(stats.splitChildren).toBeGreaterThan(0)
    expect(stats.merges).toBeGreaterThan(0)

    const viaToncenter = await ingest(
      "toncenter",
      // v3 block headers: they carry rand_seed, created_by, master_ref_seqno and vert_seqno_incr, as the blocks the
      // liteserver source reads do (v2 headers alone leave them null)
      Upstream.layerFrom({
        url: toncenter.url,
        v3BlocksUrl: toncenter.url,
        rps: 0,
        concurrency: 8,
        retries: 2,
        timeoutMs: 10_000
      })
    )
    // as the runnables read: block files to the producer, whose decode worker reads each block whole
    const viaLiteserver = await ingest("liteserver", liteserverLayer([liteserver], { files: true }))
    // each source really was used: toncenter answered headers, the liteserver whole blocks
    expect(toncenter.requests.filter((r) => r.endpoint === "getBlockTransactionsExt").length).toBeGreaterThan(0)
    expect(liteserver.requests.filter((r) => r.method === "getBlock").length).toBeGreaterThan(stats.blocks / 2)

    // both hold the chain itself
    const expected = expectedFrom(chain)
    for (const ch of [viaToncenter, viaLiteserver]) {
      const stored = await readStored(ch.client)
      expect(stored.blocks).toEqual(expected.blocks)
      expect(stored.txHashes).toEqual(expected.txHashes)
    }

    const [a, b] = [await dumpTables(viaToncenter.client), await dumpTables(viaLiteserver.client)]
    expect([...b.keys()]).toEqual([...a.keys()])
    // pages in the key-value rows (a single node's consumer writes tx_pages only for blocks those cannot serve)
    for (const table of [
      "blocks",
      "transactions",
      "messages",
      "mc_blocks_done",
      "v3_pages",
      "v2_pages",
      "analytics_tx_mc"
    ]) {
      expect(a.get(table)?.rows ?? 0, table).toBeGreaterThan(0)
    }
    for (const [table, dump] of a) {
      const other = b.get(table)!
      expect(other.rows, `rows of ${table}`).toBe(dump.rows)
      // compared line by line first, so that a difference names its table and row rather than a huge array
      const differing = dump.lines.findIndex((line, i) => line !== other.lines[i])
      expect(differing === -1 ? undefined : [dump.lines[differing], other.lines[differing]], table).toBeUndefined()
    }

    const [fromToncenter, fromLiteserver] = [viaToncenter, viaLiteserver].map((ch) => {
      const app = buildApp({ store: new ClickHouseTxStore(ch.client), config: apiConfig, clock })
      apps.push(app)
      return app
    }) as [FastifyInstance, FastifyInstance]
    let answered = 0
    const same = async (url: string) => {
      const [x, y] = await Promise.all([fromToncenter.inject(url), fromLiteserver.inject(url)])
      expect(x.statusCode, url).toBe(200)
      expect(y.statusCode, url).toBe(x.statusCode)
      expect(y.body, url).toBe(x.body)
      answered += 1
    }
    let blocks = 0
    for (let s = chain.first; s <= chain.last; s++) {
      for (const q of ["", "&limit=1000&sort=asc", "&limit=7&offset=3&sort=desc"]) {
        await same(`/api/v3/masterchainBlockShardState?seqno=${s}${q}`)
        await same(`/api/v3/transactionsByMasterchainBlock?seqno=${s}${q}`)
      }
      await same(`/api/v3/masterchainBlockShards?seqno=${s}`)
      await same(`/api/v2/shards?seqno=${s}`)
      const mc = chain.masterchain.get(s)!
      for (const blk of [mc.block, ...mc.shardBlocks]) {
        const id = blk.record.id
        const at = `workchain=${id.workchain}&shard=${id.shard}&seqno=${id.seqno}`
        await same(`/api/v2/getBlockTransactionsExt?${at}&count=1000`)
        await same(`/api/v2/getBlockTransactionsExt?${at}&root_hash=${encodeURIComponent(id.root_hash)}&count=7`)
        blocks += 1
      }
    }
    expect(blocks).toBe(expected.blocks.length)
    expect(answered).toBe(8 * (chain.last - chain.first + 1) + 2 * blocks)
  })
})
