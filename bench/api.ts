// Load benchmark of the read API: autocannon (in its own process) against the app listening on 127.0.0.1,
// for v2 getBlockTransactionsExt and v3 masterchainBlockShardState on a real 510-transaction mainnet block,
// first with the rendered-answer cache off (every request queries the store and renders), then on.
// Prints requests/s and p50/p99 latency per endpoint and the peak RSS of the serving process.
// BENCH_STORE=memory (default: in-memory store, measures the HTTP layer) | clickhouse (embedded ClickHouse,
// or CLICKHOUSE_URL, with the block ingested first); BENCH_CONNECTIONS (16), BENCH_SECONDS (10).
// BENCH_STORE_DIR=<ClickHouse data dir kept by `bench:ingest --store`> runs the volume mode instead: the store holds a
// whole generated chain (one million transactions), and each endpoint is loaded with requests cycling over
// BENCH_SAMPLE (default 200) different blocks picked at random from it, at 40 transactions per response, with the
// rendered-answer cache off (every request reads the store), then on after one pass over the sample filled it (a hot
// set of BENCH_SAMPLE blocks, as popular recent blocks are).
// BENCH_READ_CONNECTIONS (volume mode, default 1): the store reads through that many chdb connections on the same
// engine, so statements of concurrent requests can run side by side.
import { createClient, type ClickHouseClient } from "@clickhouse/client"
import { createChdbConnection } from "chdb/connection"
import { Either } from "effect"
import { mkdtempSync, readFileSync, rmSync } from "node:fs"
import { spawn } from "node:child_process"
import { createRequire } from "node:module"
import { availableParallelism, loadavg, tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { buildApp } from "../src/api/app.js"
import { addressBookAddresses, stateHashes } from "../src/api/assemble/v3.js"
import type { TxStore } from "../src/store/TxStore.js"
import {
  clickHouseSettings,
  inDatabase,
  makeClickHouseClient,
  type ClientConnection
} from "../src/clickhouse/ClickHouse.js"
import { applyMigrations } from "../src/clickhouse/migrations.js"
import { flattenBundles, INSERT_ORDER } from "../src/flatten/index.js"
import { ClickHouseTxStore } from "../src/store/Store.js"
import { extractBlock, toBlockRecord } from "../src/ton/block.js"
import { decodeTransaction } from "../src/ton/decode.js"
import type { BlockRecord, MasterchainBundle } from "../src/ton/record.js"
import { MemoryTxStore } from "../tools/fake/memoryStore.js"

interface Histogram {
  readonly average: number
  readonly p50: number
  readonly p99: number
  readonly max: number
}
interface AutocannonResult {
  readonly requests: Histogram & { readonly total: number }
  readonly latency: Histogram
  readonly non2xx: number
  readonly errors: number
}
const AUTOCANNON_CLI = createRequire(import.meta.url).resolve("autocannon/autocannon.js")

/** Runs the load generator as a child process, so its memory and CPU are not counted as the server's. */
const autocannon = (url: string): Promise<AutocannonResult> =>
  new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [AUTOCANNON_CLI, "-j", "-c", String(connections), "-d", String(seconds), url],
      {
        stdio: ["ignore", "pipe", "ignore"]
      }
    )
    let out = ""
    child.stdout.on("data", (d: Buffer) => (out += d.toString("utf8")))
    child.on("error", reject)
    child.on("exit", (code) =>
      code === 0 ? resolve(JSON.parse(out) as AutocannonResult) : reject(new Error(`autocannon exited with ${code}`))
    )
  })

const storeKind = process.env.BENCH_STORE ?? "memory"
const connections = Number(process.env.BENCH_CONNECTIONS ?? 16)
const seconds = Number(process.env.BENCH_SECONDS ?? 10)
const FIXTURE = join(
  import.meta.dirname,
  "../test/fixtures/real/blocks/mainnet__0_8000000000000000_40484438__tongo-block-3.boc"
)

/** The 510-transaction shard block with a stand-in masterchain block committing it. */
const bundle = (): MasterchainBundle => {
  const block = Either.getOrThrow(extractBlock(readFileSync(FIXTURE)))
  const h = block.header
  const mcSeqno = h.master_ref!.seqno + 1
  const id = { workchain: h.workchain, shard: h.shard, seqno: h.seqno, root_hash: h.root_hash, file_hash: h.file_hash }
  const header = (over: Partial<BlockRecord>): BlockRecord => ({ ...toBlockRecord(h, mcSeqno), ...over })
  const shard = header({})
  const mcId = {
    workchain: -1,
    shard: "-9223372036854775808",
    seqno: mcSeqno,
    root_hash: h.root_hash,
    file_hash: h.file_hash
  }
  return {
    schema_version: 1,
    network: "mainnet",
    mc_seqno: mcSeqno,
    mc_block: header({ id: mcId, prev_blocks: [], tx_count: 0 }),
    shard_blocks: [shard],
    shard_tops: [id],
    transactions: block.transactions.map((t) =>
      Either.getOrThrow(decodeTransaction(t.boc, { block: id, mc_block_seqno: mcSeqno }))
    ),
    account_states: [],
    code_hashes: {}
  }
}

const openStore = async (
  b: MasterchainBundle
): Promise<{ store: TxStore; close: () => Promise<void>; raw?: ClickHouseClient }> => {
  if (storeKind === "memory") {
    const store = new MemoryTxStore([
      { mc: b.mc_block, shardBlocks: b.shard_blocks, shardTops: b.shard_tops, transactions: b.transactions }
    ])
    return { store, close: async () => {} }
  }
  const dataDir = mkdtempSync(join(tmpdir(), "bench-api-"))
  const handle = await makeClickHouseClient({
    url: process.env.CLICKHOUSE_URL,
    user: process.env.CLICKHOUSE_USER ?? "default",
    password: process.env.CLICKHOUSE_PASSWORD ?? "",
    database: `bench_api_${process.pid}`,
    dataDir
  })
  await applyMigrations(handle.client)
  const rows = flattenBundles([b])
  for (const table of INSERT_ORDER) {
    if (rows[table].length > 0)
      await handle.client.insert<object>({ table, values: rows[table], format: "JSONEachRow" })
  }
  return {
    store: new ClickHouseTxStore(handle.client),
    raw: handle.client,
    close: async () => {
      await handle.client.close()
      rmSync(dataDir, { recursive: true, force: true })
    }
  }
}

const median = (xs: Array<number>): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!

/** Store calls one uncached request makes, timed without HTTP: median of sequential runs, then calls/s at 8 in flight. */
const storeTimings = async (store: TxStore, b: MasterchainBundle, raw?: ClickHouseClient) => {
  const blk = b.shard_blocks[0]!.id
  const calls: Array<[string, () => Promise<unknown>]> = [
    ["blockById (v2)", () => store.blockById(blk)],
    ["blockTransactions count=40 (v2)", () => store.blockTransactions(blk, null, 40)],
    [
      "transactionsByMcSeqno limit=40 (v3)",
      () => store.transactionsByMcSeqno(b.mc_seqno, { limit: 40, offset: 0, sort: "desc" })
    ],
    ["accountStates x40 (v3)", () => store.accountStates(stateHashes(b.transactions.slice(0, 40)))],
    ["codeHashes x40 (v3)", () => store.codeHashes(addressBookAddresses(b.transactions.slice(0, 40)))]
  ]
  if (raw !== undefined)
    calls.unshift([
      "SELECT 1 (engine overhead)",
      () => raw.query({ query: "SELECT 1", format: "JSONEachRow" }).then((r) => r.json())
    ])
  const runs = Number(process.env.BENCH_RUNS ?? 30)
  for (const [name, f] of calls) {
    await f()
    const ts: Array<number> = []
    for (let i = 0; i < runs; i++) {
      const t0 = performance.now()
      await f()
      ts.push(performance.now() - t0)
    }
    const t0 = performance.now()
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        for (let i = 0; i < runs / 2; i++) await f()
      })
    )
    const perSec = (8 * Math.floor(runs / 2) * 1000) / (performance.now() - t0)
    console.log(
      `store ${name.padEnd(40)} median ${median(ts).toFixed(1).padStart(6)} ms  min ${Math.min(...ts)
        .toFixed(1)
        .padStart(6)} ms  8-in-flight ${perSec.toFixed(0).padStart(5)} calls/s`
    )
  }
}

/** Samples this process's RSS until `stop`, which prints it as measured before and at peak. */
const rssSampler = () => {
  const baseRss = process.memoryUsage.rss()
  let peakRss = baseRss
  const timer = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage.rss())), 50)
  const mib = (n: number) => `${(n / 1024 / 1024).toFixed(0)} MiB`
  return {
    stop: (before: string) => {
      clearInterval(timer)
      console.log(`serving process RSS: ${mib(baseRss)} ${before}, peak ${mib(peakRss)} under load`)
    }
  }
}

/** The API over `store` listening on 127.0.0.1, once with the rendered-answer cache off and once on (64 MiB). */
const withEachCacheSetting = async (
  store: TxStore,
  use: (app: ReturnType<typeof buildApp>, base: string, cacheBytes: number) => Promise<void>
) => {
  for (const cacheBytes of [0, 64 * 1024 * 1024]) {
    const app = buildApp({ store, config: { network: "mainnet", api: { keys: [], rateLimit: 0 }, cacheBytes } })
    const base = await app.listen({ host: "127.0.0.1", port: 0 })
    await use(app, base, cacheBytes)
    await app.close()
  }
}

const LOADGEN = join(import.meta.dirname, "lib/loadgen.ts")

/** Load over many paths, from a child process (bench/lib/loadgen.ts). */
const loadPaths = (base: string, paths: ReadonlyArray<string>): Promise<AutocannonResult> =>
  new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ["--import", "tsx", LOADGEN, JSON.stringify({ base, paths, connections, seconds })],
      { stdio: ["ignore", "pipe", "inherit"] }
    )
    let out = ""
    child.stdout.on("data", (d: Buffer) => (out += d.toString("utf8")))
    child.on("error", reject)
    child.on("exit", (code) =>
      code === 0 ? resolve(JSON.parse(out) as AutocannonResult) : reject(new Error(`loadgen exited with ${code}`))
    )
  })

/** Another read-only client on the process's chdb engine, bound to `database` the way ClickHouse.ts binds its own. */
const extraChdbReader = (dataDir: string, database: string): ClickHouseClient => {
  const base = createChdbConnection({ path: resolve(dataDir) })
  const connection = { ...inDatabase(base, database), close: () => base.close() }
  return createClient({ connection: connection as unknown as ClientConnection, clickhouse_settings: clickHouseSettings })
}

/** Volume mode: an existing store of a whole generated chain, requests spread over many blocks. */
const volume = async (dataDir: string) => {
  const sample = Number(process.env.BENCH_SAMPLE ?? 200)
  const handle = await makeClickHouseClient({
    url: undefined,
    user: "default",
    password: "",
    database: process.env.CLICKHOUSE_DATABASE ?? "ton",
    dataDir
  })
  const rows = async <T>(query: string): Promise<Array<T>> =>
    (await handle.client.query({ query, format: "JSONEachRow" })).json<T>()
  const [counts] = await rows<{ txs: string; blocks: string; mc: string; bytes: string }>(
    `SELECT (SELECT count() FROM transactions) AS txs, (SELECT count() FROM blocks) AS blocks,
            (SELECT count() FROM mc_blocks_done) AS mc,
            (SELECT sum(bytes_on_disk) FROM system.parts WHERE active AND database = currentDatabase()) AS bytes`
  )
  // A fixed pseudo-random sample, the same on every run over the same store.
  const mcs = await rows<{ mc_seqno: number }>(
    `SELECT mc_seqno FROM mc_blocks_done ORDER BY cityHash64(mc_seqno) LIMIT ${sample}`
  )
  const shardBlocks = await rows<{ workchain: number; shard: string; seqno: number; tx_count: number }>(
    `SELECT workchain, toString(shard) AS shard, seqno, tx_count FROM blocks
     WHERE workchain = 0 AND tx_count > 0 ORDER BY cityHash64(shard, seqno) LIMIT ${sample}`
  )
  const database = process.env.CLICKHOUSE_DATABASE ?? "ton"
  const extraReaders = Array.from({ length: Math.max(0, Number(process.env.BENCH_READ_CONNECTIONS ?? 1) - 1) }, () =>
    extraChdbReader(dataDir, database)
  )
  const store = new ClickHouseTxStore([handle.client, ...extraReaders])
  const targets: Array<[string, Array<string>]> = [
    [
      "v2 getBlockTransactionsExt count=40",
      shardBlocks.map((b) => `/api/v2/getBlockTransactionsExt?workchain=${b.workchain}&shard=${b.shard}&seqno=${b.seqno}&count=40`)
    ],
    [
      "v3 masterchainBlockShardState limit=40",
      mcs.map((m) => `/api/v3/masterchainBlockShardState?seqno=${m.mc_seqno}&limit=40`)
    ]
  ]
  console.log(
    `bench:api volume store=${dataDir} transactions=${counts!.txs} blocks=${counts!.blocks} mc_blocks=${counts!.mc} ` +
      `on-disk=${(Number(counts!.bytes) / 1024 / 1024).toFixed(0)} MiB sample=${sample} blocks per endpoint ` +
      `connections=${connections} read-connections=${1 + extraReaders.length} duration=${seconds}s ` +
      `node=${process.version} cpus=${availableParallelism()} load=${loadavg()[0]!.toFixed(1)}`
  )
  const rss = rssSampler()
  await withEachCacheSetting(store, async (app, base, cacheBytes) => {
    for (const [name, paths] of targets) {
      // Every sampled path must answer 200 before it is loaded: a benchmark of error pages measures nothing.
      const singles: Array<number> = []
      let bodyBytes = 0
      // With the cache on, this pass also fills it: the load then measures a hot set of BENCH_SAMPLE blocks.
      for (const path of paths) {
        const t0 = performance.now()
        const check = await app.inject(path)
        singles.push(performance.now() - t0)
        if (check.statusCode !== 200) throw new Error(`${path}: ${check.statusCode} ${check.body.slice(0, 200)}`)
        bodyBytes += check.body.length
      }
      const r = await loadPaths(base, paths)
      console.log(
        `${cacheBytes === 0 ? "cache off" : "cache on "} ${name.padEnd(41)} ` +
          `${r.requests.average.toFixed(0).padStart(6)} req/s  ` +
          `p50 ${String(r.latency.p50).padStart(5)} ms  p99 ${String(r.latency.p99).padStart(5)} ms  ` +
          `${cacheBytes === 0 ? "sequential" : "first pass"} median ${median(singles).toFixed(0).padStart(4)} ms  ` +
          `mean body ${(bodyBytes / paths.length / 1024).toFixed(0)} KiB  ` +
          `done ${r.requests.total}  non-2xx ${r.non2xx}  errors ${r.errors}`
      )
    }
  })
  rss.stop("before load")
  for (const c of extraReaders) await c.close()
  await handle.client.close()
}

const main = async () => {
  if (process.env.BENCH_STORE_DIR) return volume(process.env.BENCH_STORE_DIR)
  const b = bundle()
  const { store, close, raw } = await openStore(b)
  const blk = b.shard_blocks[0]!.id
  if (process.env.BENCH_MODE === "store") {
    console.log(`bench:api store timings store=${storeKind} load=${loadavg()[0]!.toFixed(1)}`)
    await storeTimings(store, b, raw)
    await close()
    return
  }
  const targets: Array<[string, string]> = [
    [
      "v2 getBlockTransactionsExt count=40",
      `/api/v2/getBlockTransactionsExt?workchain=0&shard=${blk.shard}&seqno=${blk.seqno}`
    ],
    [
      "v2 getBlockTransactionsExt count=256",
      `/api/v2/getBlockTransactionsExt?workchain=0&shard=${blk.shard}&seqno=${blk.seqno}&count=256`
    ],
    // 40 transactions per response is the size the API goals are stated at.
    ["v3 masterchainBlockShardState limit=40", `/api/v3/masterchainBlockShardState?seqno=${b.mc_seqno}&limit=40`],
    ["v3 masterchainBlockShardState limit=100", `/api/v3/masterchainBlockShardState?seqno=${b.mc_seqno}`],
    ["v3 masterchainBlockShardState limit=1000", `/api/v3/masterchainBlockShardState?seqno=${b.mc_seqno}&limit=1000`]
  ]
  console.log(
    `bench:api store=${storeKind} block=(0,8000000000000000,${blk.seqno}) txs=${b.transactions.length} ` +
      `connections=${connections} duration=${seconds}s node=${process.version} cpus=${availableParallelism()} ` +
      `load=${loadavg()[0]!.toFixed(1)}`
  )
  const rss = rssSampler()
  await withEachCacheSetting(store, async (app, base, cacheBytes) => {
    for (const [name, path] of targets) {
      const t0 = performance.now()
      const check = await app.inject(path)
      const single = performance.now() - t0
      if (check.statusCode !== 200) throw new Error(`${name}: ${check.statusCode} ${check.body.slice(0, 200)}`)
      const r = await autocannon(`${base}${path}`)
      console.log(
        `${cacheBytes === 0 ? "cold" : "warm"} ${name.padEnd(41)} ` +
          `${r.requests.average.toFixed(0).padStart(6)} req/s  ` +
          `p50 ${String(r.latency.p50).padStart(5)} ms  p99 ${String(r.latency.p99).padStart(5)} ms  ` +
          `single ${single.toFixed(0).padStart(4)} ms  body ${(check.body.length / 1024).toFixed(0)} KiB  ` +
          `done ${r.requests.total}  non-2xx ${r.non2xx}  errors ${r.errors}`
      )
    }
  })
  rss.stop("before load (data loaded)")
  await close()
}

await main()
