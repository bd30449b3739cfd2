// Load benchmark of the read API: autocannon (in its own process) against the app listening on 127.0.0.1,
// for v2 getBlockTransactionsExt and v3 masterchainBlockShardState on a real 510-transaction mainnet block,
// first with the rendered-answer cache off (every request queries the store and renders), then on.
// Prints requests/s and p50/p99 latency per endpoint and the peak RSS of the serving process.
// BENCH_STORE=memory (default: in-memory store, measures the HTTP layer) | clickhouse (embedded ClickHouse,
// or CLICKHOUSE_URL, with the block ingested first); BENCH_CONNECTIONS (16), BENCH_SECONDS (10).
// BENCH_STORE_DIR=<ClickHouse data dir kept by `bench:ingest --store`> runs the volume mode instead: the product's own
// API runnable (pipelines/api.ts, of BENCH_PROJECT_DIR or this checkout) serves the store on BENCH_PORT (18480) and
// each endpoint is loaded with requests spread over BENCH_SAMPLE (default 10,000, or all) random masterchain blocks, at
// 40 transactions per response, with API_CACHE_BYTES=0 (every request reads the store), then with the cache on after
// one pass filled it (BENCH_CACHE=off or on runs one of the two; BENCH_WARM=1 passes once untimed with it off); it
// prints req/s, p50/p99, one-connection latency (fetch; with BENCH_SINGLES_HTTP=1 also node:http on one keep-alive
// socket, printed beside it as "1-conn node:http"), the runnable's CPU per request and peak RSS; BENCH_V2_PER_MC=N
// takes N basechain blocks of each sampled masterchain block for the v2 pages (more blocks than masterchain ones). BENCH_LIMITS=10,40,100,256 (volume mode) mixes page shapes instead: each
// request's limit (v3) or count (v2) is drawn from the list, and each v3 request's order (asc or desc) and offset (0 to
// BENCH_MAX_OFFSET - 1, default 30: below every block's transaction count of the 200,000-transaction store) at random
// too (deterministic: the same requests on every run over the same store).
import type { ClickHouseClient } from "@clickhouse/client"
import { Either } from "effect"
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
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
import { parseCli } from "../src/infra/cli.js"
import { peakRssBytes, readStat } from "./lib/proc.js"
import { apiEntry, benchApiNodeArgs, type Runnable, startApiRunnable } from "./lib/runnable.js"
import { keepAliveGetter, v2BlocksOf, type VolumeEndpoint, volumeEndpoints } from "./lib/volumeSample.js"

// No options: every setting is an environment variable (see the comment at the top).
parseCli(
  {},
  `usage: npm run bench:api
Settings are environment variables:
  BENCH_STORE=memory|clickhouse   one real block, in memory (the HTTP layer) or in ClickHouse (default memory)
  BENCH_STORE_DIR=DIR             volume mode: the product's API runnable over a store kept by bench:ingest --store
  BENCH_PROJECT_DIR=DIR           (volume mode) the checkout whose runnable serves (default this one)
  BENCH_SAMPLE=N                  (volume mode) random masterchain blocks requested (default 10000, or all)
  BENCH_CACHE=off|on              (volume mode) run one cache mode only (default both)
  BENCH_WARM=1                    (volume mode, cache off) one untimed pass over the sample first (engine caches warm)
  BENCH_ENDPOINT=v2|v3|blocks|shards[,...]
                                  (volume mode) the endpoints loaded (default v2,v3): v2 getBlockTransactionsExt,
                                  v3 masterchainBlockShardState, blocks = v3 masterchainBlockShards, shards = v2 shards
                                  (the last two: one request per sampled masterchain block)
  BENCH_SINGLES=N                 (volume mode) one-connection requests for the latency figure
  BENCH_SINGLES_HTTP=1            (volume mode) a second one-connection figure, node:http on a keep-alive socket
                                  (over the next BENCH_SINGLES paths, alternating with the fetch ones)
  BENCH_V2_PER_MC=N               (volume mode) v2 pages over N basechain blocks of each sampled masterchain block
  BENCH_PORT=P                    (volume mode) the runnable's port (default 18480)
  BENCH_LIMITS=A,B,...            (volume mode) mixed page shapes: limits/counts drawn from the list, v3 orders and
                                  offsets at random (default: every page limit/count 40, desc, offset 0)
  BENCH_MAX_OFFSET=N              (volume mode, with BENCH_LIMITS) v3 offsets drawn from 0..N-1 (default 30)
  BENCH_RUNNABLE=dist|tsx         (volume mode) the compiled runnable (npm run build first) or the sources (default tsx)
  BENCH_API_NODE_ARGS="..."       (volume mode) Node options of the runnable alone (e.g. --cpu-prof --cpu-prof-dir=DIR)
  BENCH_CONNECTIONS=N             concurrent connections (default 16)
  BENCH_SECONDS=N                 seconds per load run (default 10)`
)

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
    ...(store.pages === undefined
      ? []
      : ([
          [
            "v3PageText limit=40 with address book (v3)",
            () => store.pages!.v3PageText(b.mc_seqno, { limit: 40, offset: 0, sort: "desc" }, true)
          ],
          ["v2PageText count=40 (v2)", () => store.pages!.v2PageText(b.shard_blocks[0]!, null, 40)]
        ] as Array<[string, () => Promise<unknown>]>)),
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
  // BENCH_CACHE=off (or on) runs one of the two passes only
  const cacheOn = 64 * 1024 * 1024
  const modes = process.env.BENCH_CACHE === "off" ? [0] : process.env.BENCH_CACHE === "on" ? [cacheOn] : [0, cacheOn]
  for (const cacheBytes of modes) {
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
    const dir = mkdtempSync(join(tmpdir(), "bench-api-load-"))
    const inputFile = join(dir, "input.json")
    writeFileSync(inputFile, JSON.stringify({ base, paths, connections, seconds }))
    const child = spawn(process.execPath, ["--import", "tsx", LOADGEN, inputFile], {
      stdio: ["ignore", "pipe", "inherit"]
    })
    child.on("exit", () => rmSync(dir, { recursive: true, force: true }))
    let out = ""
    child.stdout.on("data", (d: Buffer) => (out += d.toString("utf8")))
    child.on("error", reject)
    child.on("exit", (code) =>
      code === 0 ? resolve(JSON.parse(out) as AutocannonResult) : reject(new Error(`loadgen exited with ${code}`))
    )
  })

/** CPU seconds (user + system) and peak RSS (VmHWM) of a running process, from /proc. */
const procUsage = (pid: number): { cpu: number; peakRss: number } => ({
  cpu: readStat(`/proc/${pid}/stat`).cpu,
  peakRss: peakRssBytes(pid)
})

/** The product's API runnable (pipelines/api.ts of BENCH_PROJECT_DIR) over the store; resolves once it listens. */
const startRunnable = (project: string, dataDir: string, port: number, env: Record<string, string>): Promise<Runnable> =>
  startApiRunnable({
    project,
    dataDir,
    port,
    // BENCH_RUNNABLE=dist runs the compiled runnable (what `npm run api` starts: dist/pipelines/api.bundle.js, built by `npm run build`);
    // BENCH_API_NODE_ARGS adds Node options to it alone
    nodeArgs: benchApiNodeArgs(),
    entry: process.env.BENCH_RUNNABLE === "dist" ? apiEntry(project) : ["--import", "tsx", "pipelines/api.ts"],
    env
  })

const percentile = (xs: Array<number>, p: number): number =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))]!

/** A deterministic shuffle (the same sample on every run over the same store). */
const shuffled = <A>(xs: ReadonlyArray<A>, seed: number): Array<A> => {
  const out = [...xs]
  let x = seed >>> 0 || 1
  for (let i = out.length - 1; i > 0; i--) {
    x ^= x << 13
    x ^= x >>> 17
    x ^= x << 5
    const j = (x >>> 0) % (i + 1)
    ;[out[i], out[j]] = [out[j]!, out[i]!]
  }
  return out
}

/**
 * Volume mode: the product's own runnable (pipelines/api.ts) over a store kept by `bench:ingest --store`, requests
 * spread uniformly over BENCH_SAMPLE (default 10,000, or every block if the store has fewer) random masterchain
 * blocks, 40 transactions per response; once with API_CACHE_BYTES=0 (every request reads the store) and once with
 * the default cache after one pass over the sample filled it. Reports req/s and p50/p99 at BENCH_CONNECTIONS, the
 * one-connection latency of a sequential pass, the runnable's CPU per request (its /proc counters over the load) and
 * its peak RSS. BENCH_PROJECT_DIR runs another checkout's runnable (e.g. the main branch) over the same store.
 */
const volume = async (dataDir: string) => {
  const project = resolve(process.env.BENCH_PROJECT_DIR ?? join(import.meta.dirname, ".."))
  const port = Number(process.env.BENCH_PORT ?? 18480)
  const stamp = JSON.parse(readFileSync(join(dataDir, "bench-store.json"), "utf8")) as {
    first: number
    last: number
    txs: number
  }
  const all = Array.from({ length: stamp.last - stamp.first + 1 }, (_, i) => stamp.first + i)
  const mcs = shuffled(all, 1).slice(0, Number(process.env.BENCH_SAMPLE ?? 10_000))
  const base = `http://127.0.0.1:${port}`
  // the sequential pass over the first BENCH_SINGLES paths of the sample (default 500)
  const singlesCount = Number(process.env.BENCH_SINGLES ?? 500)
  const singlesHttpOn = process.env.BENCH_SINGLES_HTTP === "1"
  // BENCH_V2_PER_MC: basechain blocks per sampled masterchain block for the v2 pages (default 1)
  const v2PerMc = Number(process.env.BENCH_V2_PER_MC ?? 1)
  if (!Number.isInteger(v2PerMc) || v2PerMc < 1) throw new Error(`BENCH_V2_PER_MC: ${process.env.BENCH_V2_PER_MC}`)
  // BENCH_LIMITS: mixed page shapes, drawn by a seeded generator per request (the same on every run)
  const limits = (process.env.BENCH_LIMITS ?? "").split(",").filter((x) => x !== "").map(Number)
  if (limits.some((n) => !Number.isInteger(n) || n < 1)) throw new Error(`BENCH_LIMITS: ${process.env.BENCH_LIMITS}`)
  const maxOffset = Number(process.env.BENCH_MAX_OFFSET ?? 30)
  const drawer = (seed: number) => (n: number): number => {
    seed ^= seed << 13
    seed ^= seed >>> 17
    seed ^= seed << 5
    return (seed >>> 0) % n
  }
  const v3Shape = (draw: (n: number) => number): string =>
    limits.length === 0
      ? "limit=40"
      : `limit=${limits[draw(limits.length)]}&offset=${draw(maxOffset)}&sort=${draw(2) === 0 ? "asc" : "desc"}`
  const v2Count = (draw: (n: number) => number): number => (limits.length === 0 ? 40 : limits[draw(limits.length)]!)
  const endpoints = volumeEndpoints(process.env.BENCH_ENDPOINT)
  const shapes = limits.length === 0 ? "40" : `mixed(${limits.join(",")}; v3 offsets 0-${maxOffset - 1}, asc/desc)`
  console.log(
    `bench:api volume store=${dataDir} transactions=${stamp.txs} mc_blocks=${all.length} ` +
      `sample=${mcs.length} blocks per endpoint shapes=${shapes} project=${project} connections=${connections} ` +
      `duration=${seconds}s ` +
      `node=${process.version} cpus=${availableParallelism()} load=${loadavg()[0]!.toFixed(1)}`
  )
  // BENCH_CACHE=off (or on) runs one of the two passes only
  const cacheOn = 64 * 1024 * 1024
  const modes = process.env.BENCH_CACHE === "off" ? [0] : process.env.BENCH_CACHE === "on" ? [cacheOn] : [0, cacheOn]
  for (const cacheBytes of modes) {
    const api = await startRunnable(project, dataDir, port, {
      API_CACHE_BYTES: String(cacheBytes),
      ...(process.env.API_READ_CONNECTIONS ? { API_READ_CONNECTIONS: process.env.API_READ_CONNECTIONS } : {})
    })
    try {
      // v2 pages: for each sampled masterchain block, one basechain block of it with transactions
      const v2: Array<string> = []
      const drawV2 = drawer(7)
      const drawV3 = drawer(11)
      for (const seqno of endpoints.includes("v2") ? mcs : []) {
        const res = await fetch(`${base}/api/v3/masterchainBlockShards?seqno=${seqno}`)
        const blocks = ((await res.json()) as { blocks: Array<{ workchain: number; shard: string; seqno: number; tx_count: number }> }).blocks
        for (const b of v2BlocksOf(seqno, blocks, v2PerMc)) {
          const shard = BigInt.asIntN(64, BigInt(`0x${b.shard}`)).toString()
          v2.push(`/api/v2/getBlockTransactionsExt?workchain=0&shard=${shard}&seqno=${b.seqno}&count=${v2Count(drawV2)}`)
        }
      }
      const v3 = mcs.map((m) => `/api/v3/masterchainBlockShardState?seqno=${m}&${v3Shape(drawV3)}`)
      const targets: Array<[VolumeEndpoint, string, Array<string>]> = [
        ["v2", `v2 getBlockTransactionsExt count=${shapes}`, v2],
        ["v3", `v3 masterchainBlockShardState limit=${shapes}`, v3],
        ["blocks", "v3 masterchainBlockShards", mcs.map((m) => `/api/v3/masterchainBlockShards?seqno=${m}`)],
        ["shards", "v2 shards", mcs.map((m) => `/api/v2/shards?seqno=${m}`)]
      ]
      for (const [endpoint, name, paths] of targets) {
        // BENCH_ENDPOINT: the endpoints loaded, in this order
        if (!endpoints.includes(endpoint)) continue
        // One connection, sequentially: the cache-off pass reads the store every time; with the cache on, a first
        // pass fills it and a second one is timed.
        if (cacheBytes > 0) for (const path of paths) await fetch(base + path).then((r) => r.arrayBuffer())
        // BENCH_WARM=1: with the cache off, one untimed pass over the sample on four connections first, so the timed
        // requests find the engine's own caches (RocksDB's block caches, the page cache) as a long-running API does
        else if (process.env.BENCH_WARM === "1") {
          let next = 0
          const worker = async (): Promise<void> => {
            while (next < paths.length) await fetch(base + paths[next++]!).then((r) => r.arrayBuffer())
          }
          await Promise.all([worker(), worker(), worker(), worker()])
        }
        // fetch (undici) over the first BENCH_SINGLES paths, as this figure has always been taken; with
        // BENCH_SINGLES_HTTP=1 a node:http keep-alive socket over the next BENCH_SINGLES, the two requests alternating
        const singles: Array<number> = []
        const singlesHttp: Array<number> = []
        let bodyBytes = 0
        const http = singlesHttpOn ? keepAliveGetter(base) : undefined
        for (let i = 0; i < singlesCount; i++) {
          const path = paths[i % paths.length]!
          const t0 = performance.now()
          const res = await fetch(base + path)
          const body = await res.arrayBuffer()
          singles.push(performance.now() - t0)
          if (res.status !== 200) throw new Error(`${path}: ${res.status} ${Buffer.from(body).toString().slice(0, 200)}`)
          bodyBytes += body.byteLength
          if (http === undefined) continue
          const pathHttp = paths[(singlesCount + i) % paths.length]!
          const t1 = performance.now()
          const r = await http.get(pathHttp)
          singlesHttp.push(performance.now() - t1)
          if (r.status !== 200) throw new Error(`${pathHttp}: ${r.status} ${r.body.toString().slice(0, 200)}`)
        }
        const httpSockets = http?.sockets() ?? 0
        http?.close()
        const before = procUsage(api.pid)
        const r = await loadPaths(base, paths)
        const after = procUsage(api.pid)
        const cpuMs = ((after.cpu - before.cpu) * 1000) / Math.max(1, r.requests.total)
        console.log(
          `${cacheBytes === 0 ? "cache off" : "cache on "} ${name.padEnd(39)} ` +
            `${r.requests.average.toFixed(0).padStart(6)} req/s  ` +
            `p50 ${String(r.latency.p50).padStart(4)} ms  p99 ${String(r.latency.p99).padStart(4)} ms  ` +
            `1-conn p50 ${percentile(singles, 0.5).toFixed(1).padStart(5)} ms p99 ${percentile(singles, 0.99).toFixed(1).padStart(5)} ms  ` +
            (singlesHttp.length === 0
              ? ""
              : `1-conn node:http p50 ${percentile(singlesHttp, 0.5).toFixed(1).padStart(5)} ms p99 ` +
                `${percentile(singlesHttp, 0.99).toFixed(1).padStart(5)} ms (${httpSockets} socket${httpSockets === 1 ? "" : "s"})  `) +
            `cpu/req ${cpuMs.toFixed(2)} ms  peak RSS ${(after.peakRss / 1024 / 1024).toFixed(0)} MiB  ` +
            `mean body ${(bodyBytes / singles.length / 1024).toFixed(0)} KiB  ` +
            `done ${r.requests.total} over ${paths.length} pages  non-2xx ${r.non2xx}  errors ${r.errors}`
        )
      }
    } finally {
      await api.stop()
    }
  }
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
