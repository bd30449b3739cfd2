// End-to-end ingestion benchmark: a fake upstream (toncenter over HTTP, or with --source liteserver a liteserver over
// ADNL serving the chain as block files; a generated chain with the recorded real transactions) -> producer process -> local Kafka -> consumer process -> embedded ClickHouse. Prints, in one run: the decode ceiling
// (the producer's decoder over every transaction of the chain, one thread, per CPU-second), the Kafka record size and
// what each codec (gzip, lz4, zstd) makes of it, end-to-end transactions per second and its ratio to twice the
// ceiling (2 cores), CPU per transaction per process (producer, consumer, broker; whole, and after the clock started so
// that the broker's and the consumer's start-up stand apart; over the chain's second half, as a long backfill runs
// warm; the fake upstream's serving too), per thread of the
// producer and consumer (/proc/<pid>/task) and per stage (from the processes' own metrics: ton_stage_cpu_seconds_total,
// ton_kafka_codec_cpu_seconds), and the peak RSS of every process; for the producer and consumer, what their RSS is
// made of at its largest sample (the kernel's file-backed and anonymous split, the main thread's and the decode
// workers' V8 heaps, the embedded engine's own tracked memory, the rest as untracked native memory) and, for the
// consumer, the largest RSS minus the engine's tracked memory of the same moment.
// Usage: npm run bench:ingest -- [--mc 60] [--tx 30] [--seed 42] | [--gen-dir DIR] [--store DIR] [--solo false]
// [--codec none|gzip|lz4|zstd] (KAFKA_COMPRESSION of the producer; default the project's) [--runtime node|tsx]
// (node: the compiled runnables, as `npm run producer` starts them, built first when stale; tsx: the sources)
// [--cpu-prof DIR] (V8 CPU profiles of the producer and consumer processes, written to DIR when they exit).
// [--mem-log FILE] (every 10 s, one tab-separated line per pipeline process: seconds since the clock, transactions
// stored, RSS and its file-backed and anonymous parts, the main thread's V8 heap used / total and external memory,
// the decode workers' heaps + external, the engine's tracked memory: what grows over a long run).
// [--node-flags "FLAGS"] (Node/V8 flags for the producer and consumer processes, e.g. "--single-threaded-gc": how
// the processes' garbage collection or JIT settings change their CPU and memory, measured in one run).
// [--child-log DIR] (each pipeline process's stdout and stderr, whole, to DIR/<name>.log: e.g. the lines of
// `--node-flags --trace-gc`, which count its scavenges and mark-compacts).
// [--producer-node-flags "FLAGS"] (Node/V8 flags for the producer process alone, after --node-flags: e.g.
// "--trace-gc" or a garbage-collection setting measured on the producer without changing the consumer). Each
// runnable starts as its npm script in package.json starts it: with the script's Node flags (e.g. a V8 heap flag
// such as --max-semi-space-size) before --node-flags and --producer-node-flags, which can override them (V8 takes the
// last one), and the variables it sets before `node`, which --producer-env overrides.
// [--producer-env "K=V ..."] (variables set in the producer's environment alone, e.g. an allocator setting such as
// MALLOC_MMAP_THRESHOLD_=131072 measured for the producer without changing the other processes).
// (--store implies --solo false.) [--source toncenter|liteserver] (the producer's upstream; default toncenter, rate
// limits off either way: TONCENTER_RPS=10000, LITESERVER_RPS=0). PORT_RANGE=LOW-HIGH in the environment keeps every
// port the bench listens on or hands its processes (broker, fake upstream, metrics) inside that range.
// [--engine in-process|server] (server: the embedded engine in a process of its own, `npm run clickhouse:serve`, and
// the consumer writing to it over HTTP with CLICKHOUSE_URL, so that the consumer's RSS is Node's alone and the
// engine's is the server's; implies --solo false).
// --gen-dir serves a chain written by `npm run generate` instead (e.g. the million-transaction one); --store keeps the
// consumer's ClickHouse data directory there (reused as is when it already holds the whole chain), which is how the
// API benchmark gets its million-transaction store. Numbers are printed, never asserted.
import { spawn, spawnSync, type ChildProcess } from "node:child_process"
import { appendFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { parseCli } from "../src/infra/cli.js"
import { chainStats } from "../tools/fake/ChainData.js"
import { benchChain, chainTransactionBocs } from "./lib/chain.js"
import { peakRssBytes, readStat, threadStats } from "./lib/proc.js"
import { runnableCommand } from "./lib/runnable.js"
import type { ChainData } from "../tools/fake/ChainData.js"
import { startFakeToncenter } from "../tools/fake/server.js"
import { type LiteChain, withBlockFiles } from "../tools/fake/liteserver/blocks.js"
import { startFakeLiteserver } from "../tools/fake/liteserver/server.js"
import { loadGeneratedChain } from "../tools/gen/chain.js"
import { repoRoot, startLocalKafka } from "../src/infra/kafkaBroker.js"
import { freePortPair } from "../tools/ports.js"
import { Either } from "effect"
import { DEFAULT_KAFKA_COMPRESSION, settings } from "../src/config.js"
import { compressWith, decompressWith } from "../src/kafka/compression.js"
import { pipelineDecode } from "../src/producer/assemble.js"
import { installFastCellHash } from "../src/ton/fastHash.js"

const USAGE = `Usage: npm run bench:ingest -- [--mc 60] [--tx 30] [--seed 42] | [--gen-dir DIR] [--store DIR] [--solo false]
  [--codec none|gzip|lz4|zstd] [--runtime node|tsx] [--cpu-prof DIR] [--batch-rows 50000] [--mem-log FILE]
  [--source toncenter|liteserver] [--node-flags "FLAGS"] [--child-log DIR] [--engine in-process|server]
  [--producer-env "K=V ..."] [--producer-node-flags "FLAGS"]
  End-to-end ingest over a generated chain; numbers are printed, never asserted (see the file's header).`
const args = parseCli({
  mc: { type: "string", default: "60" },
  tx: { type: "string", default: "30" },
  seed: { type: "string", default: "42" },
  "batch-rows": { type: "string", default: "50000" },
  "gen-dir": { type: "string" },
  store: { type: "string" },
  solo: { type: "string", default: "true" },
  codec: { type: "string" },
  runtime: { type: "string", default: "node" },
  "cpu-prof": { type: "string" },
  "mem-log": { type: "string" },
  source: { type: "string", default: "toncenter" },
  "node-flags": { type: "string", default: "" },
  "child-log": { type: "string" },
  engine: { type: "string", default: "in-process" },
  "producer-env": { type: "string", default: "" },
  "producer-node-flags": { type: "string", default: "" }
}, USAGE)
if (args.source !== "toncenter" && args.source !== "liteserver") {
  process.stderr.write(`--source must be toncenter or liteserver\n${USAGE}\n`)
  process.exit(2)
}
if (args.engine !== "in-process" && args.engine !== "server") {
  process.stderr.write(`--engine must be in-process or server\n${USAGE}\n`)
  process.exit(2)
}
/** The process that owns the engine with --engine server (its RSS and CPU lines name it). */
const ENGINE_SERVER = "clickhouse server (engine)"
/** The process the fake upstream serves from (this one), as the CPU and RSS lines name it. */
const FAKE = `bench (fake ${args.source})`

/** What a kept store holds, written once the whole chain is stored; a store without it is rebuilt from scratch. */
interface StoreStamp {
  readonly chain: string
  readonly first: number
  readonly last: number
  readonly txs: number
  /** When the store was built, and the report of the run that built it (printed again when the store is reused). */
  readonly builtAt?: string
  readonly report?: string
}
const stampPath = (store: string) => join(store, "bench-store.json")
const readStoreStamp = (store: string): StoreStamp | undefined =>
  existsSync(stampPath(store)) ? (JSON.parse(readFileSync(stampPath(store), "utf8")) as StoreStamp) : undefined

const PRERENDER_TXS = 200_000
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
const peakRss = new Map<string, number>()
/** Peak of V8 heap (total) plus external memory, from each pipeline process's own metrics: Node's share of its RSS. */
const peakNode = new Map<string, number>()
const noteNode = (name: string, m: Map<string, number>) => {
  const heap = m.get("ton_exporter_nodejs_heap_size_total_bytes")
  const external = m.get("ton_exporter_nodejs_external_memory_bytes")
  if (heap !== undefined && external !== undefined) peakNode.set(name, Math.max(peakNode.get(name) ?? 0, heap + external))
}
/**
 * What one pipeline process's resident memory is made of at one moment: the kernel's split of its RSS
 * (/proc/<pid>/status: RssFile is code and mapped files, RssAnon anonymous memory: heaps of every kind), the main
 * thread's V8 heap and external memory, the decode workers' heaps (ton_thread_heap_bytes, as each worker last answered)
 * and the embedded engine's own tracked memory (ton_engine_memory_tracked_bytes, its MemoryTracking, read by the same
 * scrape). The rest of RssAnon is native memory no one accounts for: Node's and the libraries' mallocs (glibc's
 * arenas), thread stacks, the engine's untracked allocations.
 */
interface MemSample {
  readonly rss: number
  readonly file: number
  readonly anon: number
  readonly heap: number
  readonly external: number
  readonly workers: number
  readonly engine: number | undefined
}
const memSample = (pid: number | undefined, m: Map<string, number>): MemSample | undefined => {
  let status: string
  try {
    status = readFileSync(`/proc/${pid}/status`, "utf8")
  } catch {
    return undefined // gone
  }
  const kb = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)?.[1] ?? NaN) * 1024
  let workers = 0
  for (const [k, v] of m) if (/^ton_thread_heap_bytes\{.*kind="(total|external)"/.test(k)) workers += v
  return {
    rss: kb("VmRSS"),
    file: kb("RssFile") + kb("RssShmem"),
    anon: kb("RssAnon"),
    heap: m.get("ton_exporter_nodejs_heap_size_total_bytes") ?? NaN,
    external: m.get("ton_exporter_nodejs_external_memory_bytes") ?? NaN,
    workers,
    // 0: the gauge exists but no reading of the engine has answered yet.
    engine: m.get("ton_engine_memory_tracked_bytes") || undefined
  }
}
/** Per process, the sample of largest RSS and (the consumer) the one of largest RSS minus the engine's tracked memory. */
const peakSample = new Map<string, MemSample>()
const peakOutsideEngine = new Map<string, MemSample>()
const noteSample = (name: string, s: MemSample | undefined) => {
  if (s === undefined || Number.isNaN(s.rss) || Number.isNaN(s.heap)) return
  if (s.rss > (peakSample.get(name)?.rss ?? -1)) peakSample.set(name, s)
  const outside = (x: MemSample) => x.rss - (x.engine ?? 0)
  const was = peakOutsideEngine.get(name)
  if (s.engine !== undefined && (was === undefined || outside(s) > outside(was))) peakOutsideEngine.set(name, s)
}
const composition = (s: MemSample): string => {
  const m = (b: number) => (b / 1048576).toFixed(0)
  const rest = s.anon - s.heap - s.external - s.workers - (s.engine ?? 0)
  return `RSS ${m(s.rss)} = files/code ${m(s.file)} + anonymous ${m(s.anon)} (main V8 heap ${m(s.heap)}, external ${m(s.external)}` +
    (s.workers > 0 ? `, decode workers' heaps+external ${m(s.workers)}` : "") +
    (s.engine !== undefined ? `, engine tracked ${m(s.engine)}` : "") +
    `, untracked native ${m(rest)})`
}
/** One line per pipeline process of --mem-log: its memory now, as `memSample` splits it. */
const memLogLine = (name: string, s: MemSample | undefined, m: Map<string, number>, t: number, stored: number): string => {
  const f = (b: number | undefined) => (b === undefined ? "NaN" : (b / 1048576).toFixed(1))
  return [t.toFixed(0), name, stored, f(s?.rss), f(s?.file), f(s?.anon), f(m.get("ton_exporter_nodejs_heap_size_used_bytes")),
    f(s?.heap), f(s?.external), f(s?.workers), f(s?.engine)].join("\t") + "\n"
}
/** CPU seconds (user + system) each process used, last sample before it exited. */
const cpuSeconds = new Map<string, number>()
/** CPU seconds per thread name (/proc/<pid>/task/<tid>/comm) of the pipeline processes, last sample. */
const threadCpu = new Map<string, Map<string, number>>()
const sampleThreads = (name: string, pid: number) => {
  const seen = threadCpuTids.get(name) ?? new Map<string, [string, number]>()
  for (const [tid, t] of threadStats(pid)) seen.set(tid, [t.comm.replace(/[0-9]+$/, "#"), t.cpu])
  threadCpuTids.set(name, seen)
  // The main thread is the one whose id is the process's (a library may rename it); other threads of one name are
  // told apart by their start order.
  const sums = new Map<string, number>()
  const nth = new Map<string, number>()
  for (const [tid, [comm, sec]] of [...seen].sort((a, b) => Number(a[0]) - Number(b[0]))) {
    let label = "main"
    if (tid !== String(pid)) {
      const k = (nth.get(comm) ?? 0) + 1
      nth.set(comm, k)
      label = comm === "node" ? `node#${k}` : comm
    }
    sums.set(label, (sums.get(label) ?? 0) + sec)
  }
  threadCpu.set(name, sums)
}
const threadCpuTids = new Map<string, Map<string, [string, number]>>()
/**
 * The broker JVM's thread names by thread id, from `jstack` (its `nid=0x..` is the kernel's thread id): the kernel's
 * 15-character names cannot tell Kafka's network threads from its request handlers. Digits become `#`, so that a pool
 * sums into one line; an unnamed id (jstack missing, or a thread gone) keeps the kernel's name.
 */
const jvmThreadNames = (pid: number): Map<string, string> => {
  const out = new Map<string, string>()
  const r = spawnSync("jstack", [String(pid)], { encoding: "utf8", timeout: 20_000 })
  for (const line of (r.stdout ?? "").split("\n")) {
    const m = /^"(.*)" .*nid=0x([0-9a-f]+)/.exec(line)
    if (m) out.set(String(parseInt(m[2]!, 16)), m[1]!.replace(/ListenerName\([A-Z]+\)-/, "").replace(/(?<![CG])[0-9]+/g, "#"))
  }
  return out
}
type ThreadStats = ReturnType<typeof threadStats>
/** The broker's CPU by thread name between two `threadStats` snapshots (threads started in between count from zero). */
const jvmThreadCpu = (pid: number, before: ThreadStats, after: ThreadStats): Map<string, number> => {
  const names = jvmThreadNames(pid)
  const sums = new Map<string, number>()
  for (const [tid, t] of after) {
    const name = names.get(tid) ?? `${t.comm.replace(/[0-9]+/g, "#")} (kernel name)`
    sums.set(name, (sums.get(name) ?? 0) + t.cpu - (before.get(tid)?.cpu ?? 0))
  }
  return sums
}
const watched = new Map<string, () => number | undefined>()

/** VmHWM is the kernel's record of the peak resident set; sampled until the process is gone. */
const sampleRss = () => {
  for (const [name, pid] of watched) {
    const p = pid()
    if (p === undefined) continue
    try {
      peakRss.set(name, Math.max(peakRss.get(name) ?? 0, peakRssBytes(p)))
      cpuSeconds.set(name, readStat(`/proc/${p}/stat`).cpu)
      if (name === "producer" || name === "consumer") sampleThreads(name, p)
    } catch {
      // the process exited between samples; its last sample stands
    }
  }
}

const scrape = async (port: number): Promise<Map<string, number>> => {
  const out = new Map<string, number>()
  try {
    const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text()
    for (const line of text.split("\n")) {
      const m = /^([a-z_]+(?:\{[^}]*\})?) (\S+)$/.exec(line)
      if (m) out.set(m[1]!, Number(m[2]))
    }
  } catch {
    // not up yet, or already gone
  }
  return out
}

const nodeFlags = args["node-flags"].split(/\s+/).filter((f) => f.length > 0)
const producerEnvPairs = args["producer-env"].split(/\s+/).filter((f) => f.length > 0)
if (producerEnvPairs.some((p) => !/^[A-Za-z_][A-Za-z0-9_]*=/.test(p))) {
  process.stderr.write(`--producer-env takes NAME=VALUE pairs\n${USAGE}\n`)
  process.exit(2)
}
const producerEnv: Record<string, string> = Object.fromEntries(
  producerEnvPairs.map((p) => [p.slice(0, p.indexOf("=")), p.slice(p.indexOf("=") + 1)])
)
const producerNodeFlags = args["producer-node-flags"].split(/\s+/).filter((f) => f.length > 0)
if ([...nodeFlags, ...producerNodeFlags].some((f) => !f.startsWith("--"))) {
  process.stderr.write(`--node-flags and --producer-node-flags take flags starting with "--"\n${USAGE}\n`)
  process.exit(2)
}

/** The npm script of each runnable the bench starts: its Node flags there (package.json) are the runnable's own. */
const NPM_SCRIPTS: Record<string, string> = {
  "pipelines/producer.ts": "producer",
  "pipelines/consumer.ts": "consumer",
  "pipelines/clickhouse-server.ts": "clickhouse:serve"
}

const child = (
  name: string,
  script: string,
  env: Record<string, string>,
  ownFlags: ReadonlyArray<string> = []
): ChildProcess => {
  const prof = args["cpu-prof"] === undefined ? [] : ["--cpu-prof", "--cpu-prof-dir", args["cpu-prof"]]
  const runnable = runnableCommand(NPM_SCRIPTS[script]!, repoRoot)
  const argv = [
    ...prof,
    ...runnable.flags,
    ...nodeFlags,
    ...ownFlags,
    // compiled: the file the npm script runs (the producer's bundle, the other runnables' compiled modules)
    ...(args.runtime === "tsx" ? ["--import", "tsx", script] : [runnable.file])
  ]
  const proc = spawn(process.execPath, argv, {
    cwd: repoRoot,
    env: { ...process.env, ...runnable.env, ...env },
    stdio: ["ignore", "pipe", "pipe"]
  })
  let tail = ""
  const keep = (c: Buffer) => (tail = (tail + c.toString()).slice(-4000))
  proc.stdout!.on("data", keep)
  proc.stderr!.on("data", keep)
  const logDir = args["child-log"]
  if (logDir !== undefined) {
    mkdirSync(logDir, { recursive: true })
    const file = join(logDir, `${name.replace(/[^A-Za-z0-9_.-]+/g, "_")}.log`)
    writeFileSync(file, "")
    const save = (c: Buffer) => appendFileSync(file, c)
    proc.stdout!.on("data", save)
    proc.stderr!.on("data", save)
  }
  proc.once("exit", (code) => {
    if (code !== 0 && code !== null) process.stderr.write(`${name} exited with ${code}:\n${tail}\n`)
  })
  watched.set(name, () => (proc.exitCode === null ? proc.pid : undefined))
  return proc
}

/** Transactions in masterchain blocks first..seqno, for progress lines. */
const cumulativeTxs = (chain: ChainData): ((seqno: number) => number) => {
  const upTo = new Map<number, number>()
  let sum = 0
  for (let s = chain.first; s <= chain.last; s++) {
    const mc = chain.masterchain.get(s)
    if (mc !== undefined) sum += mc.block.txs.length + mc.shardBlocks.reduce((n, b) => n + b.txs.length, 0)
    upTo.set(s, sum)
  }
  return (seqno) => upTo.get(Math.min(seqno, chain.last)) ?? 0
}

/** Peak RSS and CPU seconds per process: which stage the machine's cores went to; what the pipeline's RSS holds. */
const resources = (): Array<string> => [
  "peak RSS (the kernel's VmHWM) and CPU time (user+system) per process (Node: peak main-thread V8 heap + external",
  "  memory):",
  ...[...peakRss].map(
    ([name, bytes]) =>
      `  ${name.padEnd(24)} ${mb(bytes).padStart(7)}  ${(cpuSeconds.get(name) ?? NaN).toFixed(1).padStart(7)} s cpu` +
      (peakNode.has(name) ? `  (Node ${mb(peakNode.get(name))})` : "")
  ),
  "memory of the pipeline processes, sampled with each metrics scrape (every ~250 ms; the RSS read right after it):",
  ...[...peakSample].map(([name, s]) => `  ${name.padEnd(9)} largest sample: ${composition(s)}`),
  ...[...peakOutsideEngine].map(
    ([name, s]) =>
      `  ${name.padEnd(9)} peak RSS minus the engine's tracked memory (max over samples of VmRSS - MemoryTracking ` +
      `of the same scrape): ${mb(s.rss - (s.engine ?? 0))}\n            at that sample: ${composition(s)}`
  )
]

const cpuNow = () => {
  const u = process.cpuUsage()
  return (u.user + u.system) / 1e6
}

/** The ceiling and the codecs are measured on at most this many transactions, spread evenly over the chain. */
const CEILING_SAMPLE_TXS = 50_000

/**
 * The producer's decoder over every transaction of the chain (over an even sample of CEILING_SAMPLE_TXS of a larger
 * one: the records' JSON of a million transactions would not fit in memory) on this thread (the ceiling one core
 * sets), then the records' JSON cut into ~1 MB batches (as kafkajs compresses a produce request's records) through
 * each codec.
 */
const ceilingAndCodecs = async (chain: ChainData): Promise<{ perCpuSecond: number; lines: Array<string> }> => {
  installFastCellHash()
  const all = chainTransactionBocs(chain)
  const step = Math.max(1, Math.ceil(all.length / CEILING_SAMPLE_TXS))
  const ctxs = step === 1 ? all : all.filter((_, i) => i % step === 0)
  const of = step === 1 ? "of the chain" : `(every ${step}th of the chain's ${all.length})`
  const records: Array<unknown> = []
  const t0 = cpuNow()
  for (const [boc, ctx] of ctxs) {
    const r = pipelineDecode(boc, ctx)
    if (Either.isRight(r)) records.push(r.right)
  }
  // The ceiling is the decoding alone, as bench/decode.ts measures it; the records' JSON is the next stage's.
  const decodeCpu = cpuNow() - t0
  const json = records.map((r) => Buffer.from(JSON.stringify(r)))
  records.length = 0
  const perCpuSecond = ctxs.length / decodeCpu
  const batches: Array<Buffer> = []
  for (let i = 0; i < json.length; ) {
    const part: Array<Buffer> = []
    let bytes = 0
    while (i < json.length && bytes < 1 << 20) {
      part.push(json[i]!)
      bytes += json[i]!.length
      i++
    }
    batches.push(Buffer.concat(part))
  }
  const raw = batches.reduce((n, b) => n + b.length, 0)
  const n = json.length
  const lines = [
    `decode ceiling: ${ctxs.length} transactions ${of} decoded on one thread in ${decodeCpu.toFixed(2)} s CPU = ` +
      `${perCpuSecond.toFixed(0)} tx per CPU-second (one core); 2 cores: ${(2 * perCpuSecond).toFixed(0)} tx/s`,
    `kafka record size: ${(raw / n).toFixed(0)} B of JSON per transaction record (${batches.length} batches of ~1 MB):`,
    `  codec   wire B/tx  ratio  compress us/tx  decompress us/tx`
  ]
  for (const codec of ["gzip", "lz4", "zstd"] as const) {
    let wire = 0
    const c0 = cpuNow()
    const packed: Array<Buffer> = []
    for (const b of batches) packed.push(await compressWith(codec, b))
    const c1 = cpuNow()
    for (const p of packed) await decompressWith(codec, p)
    const c2 = cpuNow()
    for (const p of packed) wire += p.length
    lines.push(
      `  ${codec.padEnd(6)} ${(wire / n).toFixed(0).padStart(10)}  ${(raw / wire).toFixed(2).padStart(5)}` +
        `  ${(((c1 - c0) / n) * 1e6).toFixed(1).padStart(14)}  ${(((c2 - c1) / n) * 1e6).toFixed(1).padStart(16)}`
    )
  }
  return { perCpuSecond, lines }
}

const mb = (b: number | undefined) => (b === undefined ? "-" : `${(b / 1024 / 1024).toFixed(0)} MB`)

/** The fake upstream the producer reads, and the producer's settings that point it there. */
const startFake = async (
  chain: ChainData,
  liteFiles: LiteChain | undefined,
  prerender: boolean
): Promise<{ readonly env: Readonly<Record<string, string>>; readonly stop: () => Promise<void> }> => {
  if (liteFiles !== undefined) {
    const lite = await startFakeLiteserver({ chain: liteFiles, port: await freePortPair() })
    return { env: { LITESERVER_CONFIG: lite.config, LITESERVER_RPS: "0" }, stop: lite.stop }
  }
  const http = await startFakeToncenter({ chain, prerender, port: await freePortPair() })
  return {
    env: {
      TONCENTER_URL: http.url,
      TONCENTER_RPS: "10000",
      TONCENTER_CONCURRENCY: "16",
      // a chain with account states is read as a real node's is: v3 accountStates for every bundle's accounts
      ...(chain.states !== undefined ? { TONCENTER_V3_URL: http.url } : {})
    },
    stop: http.stop
  }
}

const main = async () => {
  if (args.runtime !== "tsx") {
    const built = spawnSync(process.execPath, [join(repoRoot, "scripts/build-if-stale.mjs")], { stdio: "inherit" })
    if (built.status !== 0) throw new Error("npm run build failed")
  }
  const scratch = mkdtempSync(join(tmpdir(), "bench-ingest-"))
  const rssTimer = setInterval(sampleRss, 200)
  watched.set(FAKE, () => process.pid)
  const t0 = Date.now()
  const generated: ChainData =
    args["gen-dir"] !== undefined
      ? await loadGeneratedChain(args["gen-dir"])
      : benchChain(Number(args.seed), Number(args.mc), Number(args.tx))
  // The liteserver serves blocks as files: built from the chain, with new block ids (a root hash is the built cell's
  // hash) and the same transactions; both the fake and the counts below use the built chain.
  const liteFiles = args.source === "liteserver" ? withBlockFiles(generated) : undefined
  const chain: ChainData = liteFiles?.chain ?? generated
  if (liteFiles !== undefined) {
    process.stdout.write(`block files built for the liteserver in ${((Date.now() - t0) / 1000).toFixed(1)} s (before the clock)\n`)
  }
  const stats = chainStats(chain)
  process.stdout.write(`chain: ${chain.name} ${JSON.stringify(stats)} (ready in ${((Date.now() - t0) / 1000).toFixed(1)} s)\n`)
  const codec = args.codec ?? DEFAULT_KAFKA_COMPRESSION
  const ceiling = await ceilingAndCodecs(chain)
  process.stdout.write(ceiling.lines.join("\n") + "\n")
  const store = args.store
  if (store !== undefined) {
    const stamp = readStoreStamp(store)
    if (stamp !== undefined && stamp.chain === chain.name && stamp.first === chain.first && stamp.last === chain.last) {
      process.stdout.write(
        `store ${store} already holds this chain (${stamp.txs} transactions); nothing to ingest.\n` +
          (stamp.report === undefined ? "" : `Report of the run that built it (${stamp.builtAt ?? "?"}):\n${stamp.report}\n`)
      )
      return
    }
    // Anything else there is a partial or different run: start over rather than mix chains.
    rmSync(store, { recursive: true, force: true })
    mkdirSync(store, { recursive: true })
  }
  // A kept store is about the chain at volume: the stage-alone reruns would double a long run for no new figure.
  const soloStages = args.solo !== "false" && store === undefined && args.engine === "in-process"
  // KAFKA_LOCAL_JVM_OPTIONS as the pipeline's own local broker takes it (e.g. to measure the JIT's tiers).
  const jvmOptions = Either.getOrThrowWith(
    settings.kafka.localJvmOptions.parse(process.env.KAFKA_LOCAL_JVM_OPTIONS ?? ""),
    (problem) => new Error(`KAFKA_LOCAL_JVM_OPTIONS: ${problem}`)
  )
  const kafka = await startLocalKafka({ port: await freePortPair(), dataDir: join(scratch, "kafka"), jvmOptions })
  watched.set("kafka broker (JVM)", () => kafka.pid())
  // The fake toncenter decodes every transaction to render toncenter's JSON, as costly as the producer's own decode;
  // rendered before the clock starts (chains up to PRERENDER_TXS), the run measures the exporter, not the fake. The
  // fake liteserver serves the block files built above as they are.
  const prerender = stats.txs <= PRERENDER_TXS
  const renderStart = Date.now()
  const fake = await startFake(chain, liteFiles, prerender)
  if (liteFiles !== undefined) process.stdout.write(`fake liteserver on ${fake.env.LITESERVER_CONFIG}\n`)
  else if (prerender) process.stdout.write(`fake upstream answers rendered in ${((Date.now() - renderStart) / 1000).toFixed(1)} s (before the clock)\n`)
  else process.stdout.write(`fake upstream renders on request (chain above ${PRERENDER_TXS} tx): its CPU is shared with the exporter's\n`)
  const [producerPort, consumerPort] = [await freePortPair(), await freePortPair()]
  // SQL_PORT=0: the consumer's SQL endpoint is no part of ingest (and its default port may be taken).
  const common = {
    KAFKA_BROKERS: kafka.brokers.join(","),
    KAFKA_TOPIC_PREFIX: "bench",
    KAFKA_COMPRESSION: codec,
    NETWORK: "mainnet",
    LOG_LEVEL: "warn",
    SQL_PORT: "0"
  }
  let engineServer: ChildProcess | undefined
  try {
    // With --engine server the engine's process starts first (it applies the migrations) and the consumer writes to
    // it over HTTP, as several consumers of one group would.
    let engineEnv: Record<string, string> = { CLICKHOUSE_DATA_DIR: store ?? join(scratch, "chdb") }
    if (args.engine === "server") {
      const sqlPort = await freePortPair()
      engineServer = child(ENGINE_SERVER, "pipelines/clickhouse-server.ts", { ...common, ...engineEnv, SQL_PORT: String(sqlPort) })
      const url = `http://127.0.0.1:${sqlPort}/`
      while (!(await fetch(`${url}?query=SELECT%201`).then((r) => r.ok, () => false))) {
        if (engineServer.exitCode !== null) throw new Error("clickhouse server exited")
        await sleep(200)
      }
      engineEnv = { CLICKHOUSE_URL: url }
    }
    const consumer = child("consumer", "pipelines/consumer.ts", {
      ...common,
      ...engineEnv,
      CONSUMER_BATCH_ROWS: args["batch-rows"]!,
      METRICS_PORT: String(consumerPort)
    })
    while ((await scrape(consumerPort)).size === 0) await sleep(200)
    // CPU the broker and the consumer spent before the clock (JVM and engine start-up, migrations): set apart.
    sampleRss()
    const cpuAtStart = new Map(cpuSeconds)
    const brokerPid = kafka.pid()
    const brokerThreadsAtStart: ThreadStats = brokerPid === undefined ? new Map() : threadStats(brokerPid)
    const start = Date.now()
    const producer = child("producer", "pipelines/producer.ts", {
      ...common,
      ...fake.env,
      PRODUCER_MODE: "backfill",
      PRODUCER_FROM: String(chain.first),
      PRODUCER_TO: String(chain.last),
      METRICS_PORT: String(producerPort),
      ...producerEnv
    }, producerNodeFlags)
    let producerMetrics = new Map<string, number>()
    let producerDone: number | undefined
    let firstStored: number | undefined
    producer.once("exit", () => (producerDone = Date.now()))
    let consumerMetrics = new Map<string, number>()
    let lastReport = Date.now()
    let lastMemLog = 0
    const memLog = args["mem-log"]
    if (memLog !== undefined) {
      writeFileSync(
        memLog,
        "s\tprocess\tstored_tx\trss_mb\trss_file_mb\trss_anon_mb\theap_used_mb\theap_total_mb\texternal_mb" +
          "\tworkers_heap_external_mb\tengine_tracked_mb\n"
      )
    }
    const txsUpTo = cumulativeTxs(chain)
    // Each process's CPU when it had handled half the chain (the producer: published; the consumer: stored), so the
    // second half's CPU per transaction is read apart from start-up and the JIT's warm-up, as a long backfill runs.
    // The broker is read from the producer's half: it has taken half the records then, and the consumer, which lags
    // by whole batches, has fetched less, so its second half carries more than half of the fetches (read high, not low).
    const half = Math.ceil(stats.txs / 2)
    const atHalf = new Map<string, { cpu: number; tx: number }>()
    const noteHalf = (names: ReadonlyArray<string>, tx: number) => {
      if (tx < half) return
      for (const name of names) {
        const cpu = cpuSeconds.get(name)
        if (!atHalf.has(name) && cpu !== undefined) atHalf.set(name, { cpu, tx })
      }
    }
    while (true) {
      const p = await scrape(producerPort)
      // Read right after its scrape, so the process's RSS and its own figures are of the same moment.
      const pMem = p.size > 0 ? memSample(producer.pid, p) : undefined
      if (p.size > 0) producerMetrics = p
      noteNode("producer", p)
      noteSample("producer", pMem)
      // A scrape that timed out (a busy machine) keeps the last answer rather than reading as "nothing stored".
      const c = await scrape(consumerPort)
      const cMem = c.size > 0 ? memSample(consumer.pid, c) : undefined
      if (c.size > 0) consumerMetrics = c
      noteNode("consumer", c)
      noteSample("consumer", cMem)
      const stored = consumerMetrics.get("ton_consumer_last_mc_seqno") ?? -1
      if (firstStored === undefined && stored >= chain.first) firstStored = Date.now()
      noteHalf(["producer", "kafka broker (JVM)"], producerMetrics.get("ton_producer_transactions_total") ?? 0)
      noteHalf(["consumer"], stored >= chain.first ? txsUpTo(stored) : 0)
      if (memLog !== undefined && Date.now() - lastMemLog >= 10_000) {
        lastMemLog = Date.now()
        const t = (lastMemLog - start) / 1000
        const done = stored >= chain.first ? txsUpTo(stored) : 0
        appendFileSync(memLog, memLogLine("producer", pMem, p, t, done) + memLogLine("consumer", cMem, c, t, done))
      }
      if (stored >= chain.last) break
      if (Date.now() - lastReport >= 10_000) {
        // Progress on long runs: stored position, rate so far and the time left at that rate.
        lastReport = Date.now()
        const done = stored >= chain.first ? txsUpTo(stored) : 0
        const rate = done / ((lastReport - start) / 1000)
        // One redrawn line (\r): `npm run bench` keeps only its last state.
        process.stdout.write(
          `\r  stored mc ${stored}/${chain.last}: ${done}/${stats.txs} tx, ${rate.toFixed(0)} tx/s, ` +
            `ETA ${rate > 0 ? ((stats.txs - done) / rate).toFixed(0) : "?"} s   `
        )
      }
      if (consumer.exitCode !== null) throw new Error("consumer exited")
      if (producer.exitCode !== null && producer.exitCode !== 0) throw new Error("producer failed")
      // Each scrape costs the process its default metrics (memoryUsage, event-loop histograms): not too often.
      await sleep(250)
    }
    const end = Date.now()
    sampleRss()
    // The broker's threads over the clock, read before anyone stops (its clients' goodbyes are no part of the run).
    const brokerThreads =
      brokerPid === undefined ? new Map<string, number>() : jvmThreadCpu(brokerPid, brokerThreadsAtStart, threadStats(brokerPid))
    producer.kill("SIGTERM")
    consumer.kill("SIGTERM")
    await sleep(500)
    if (engineServer !== undefined && engineServer.exitCode === null) {
      const server = engineServer
      const gone = new Promise((r) => server.once("exit", r))
      server.kill("SIGTERM")
      await Promise.race([gone, sleep(10_000)])
    }

    const seconds = (end - start) / 1000
    const producerSeconds = ((producerDone ?? end) - start) / 1000
    const txs = stats.txs
    const fetchSum = producerMetrics.get("ton_producer_fetch_seconds_sum") ?? NaN
    const fetchCount = producerMetrics.get("ton_producer_fetch_seconds_count") ?? NaN
    const publishSum = producerMetrics.get("ton_producer_publish_seconds_sum") ?? NaN
    const publishCount = producerMetrics.get("ton_producer_publish_seconds_count") ?? NaN
    const insertRows: Array<string> = []
    let insertTotal = 0
    for (const [k, v] of consumerMetrics) {
      const m = /^ton_consumer_insert_seconds_sum\{table="([a-z0-9_]+)"\}$/.exec(k)
      if (!m) continue
      insertTotal += v
      const rows = consumerMetrics.get(`ton_consumer_rows_total{table="${m[1]}"}`) ?? 0
      const tableCpu = (step: string) =>
        consumerMetrics.get(`ton_consumer_table_cpu_seconds_total{table="${m[1]}",step="${step}"}`) ?? 0
      const us = (sec: number) => `${((sec / stats.txs) * 1e6).toFixed(1).padStart(6)}`
      insertRows.push(
        `    ${m[1]!.padEnd(20)} ${String(rows).padStart(8)} rows  ${v.toFixed(2).padStart(7)} s  ${(rows / v).toFixed(0).padStart(8)} rows/s` +
          `  CPU us/tx: build ${us(tableCpu("build"))}  encode ${us(tableCpu("encode"))}  insert ${us(tableCpu("insert"))}`
      )
    }
    // Rows of every table without pieces are built together ("other"); their encode and insert CPU is per table above.
    const otherBuild = consumerMetrics.get(`ton_consumer_table_cpu_seconds_total{table="other",step="build"}`)
    if (otherBuild !== undefined) {
      insertRows.push(`    (build of the tables without pieces, together: ${((otherBuild / stats.txs) * 1e6).toFixed(1)} us/tx CPU)`)
    }
    sampleRss()
    const stage = (m: Map<string, number>, name: string) => m.get(`ton_stage_cpu_seconds_total{stage="${name}"}`) ?? 0
    const codecCpu = (m: Map<string, number>, d: string) => m.get(`ton_kafka_codec_cpu_seconds{direction="${d}"}`) ?? 0
    const perTx = (sec: number) => `${((sec / txs) * 1000).toFixed(3).padStart(7)} ms/tx`
    const pCpu = cpuSeconds.get("producer") ?? NaN
    const cCpu = cpuSeconds.get("consumer") ?? NaN
    const kCpu = cpuSeconds.get("kafka broker (JVM)") ?? NaN
    const kStart = cpuAtStart.get("kafka broker (JVM)") ?? NaN
    const cStart = cpuAtStart.get("consumer") ?? NaN
    // The fake upstream serves from this process: its CPU after the clock is what answering the producer cost.
    const fakeCpu = (cpuSeconds.get(FAKE) ?? NaN) - (cpuAtStart.get(FAKE) ?? NaN)
    const decodeCpu = stage(producerMetrics, "decode")
    const produceCpu = stage(producerMetrics, "record_encode") + codecCpu(producerMetrics, "compress")
    const consumeCpu = stage(consumerMetrics, "kafka_consume") + codecCpu(consumerMetrics, "decompress")
    const flattenCpu = stage(consumerMetrics, "flatten")
    const encodeCpu = stage(consumerMetrics, "encode")
    const insertCpu = stage(consumerMetrics, "insert")
    const rawBytes = producerMetrics.get(`ton_kafka_codec_bytes{direction="compress",side="raw"}`) ?? 0
    const wireBytes = producerMetrics.get(`ton_kafka_codec_bytes{direction="compress",side="wire"}`) ?? 0
    const rate = txs / seconds
    const secondHalf = (): string => {
      const names: ReadonlyArray<[string, string]> = [["producer", "producer"], ["consumer", "consumer"], ["broker", "kafka broker (JVM)"]]
      const parts = names.map(([label, name]) => {
        const h = atHalf.get(name)
        const sec = (cpuSeconds.get(name) ?? NaN) - (h?.cpu ?? NaN)
        return [label, h === undefined ? NaN : sec / (txs - h.tx)] as const
      })
      const ms = (x: number) => `${(x * 1000).toFixed(3).padStart(7)} ms/tx`
      return `  second half of the chain (each process from the moment it had handled ${half} transactions: start-up and warm-up apart):\n  ` +
        parts.map(([label, x]) => `${label} ${ms(x)}`).join("   ") +
        `   all three ${ms(parts.reduce((a, [, x]) => a + x, 0))}`
    }
    const cpuLines = [
      `CPU per transaction, end-to-end run (user+system; start-up included):`,
      `  producer ${perTx(pCpu)}   consumer ${perTx(cCpu)}   broker ${perTx(kCpu)}   ` +
        `all three ${perTx(pCpu + cCpu + kCpu)} (2 cores allow ${(2000 / rate).toFixed(3)} ms/tx at this rate)`,
      `  after the clock started (broker and consumer start-up set apart: ${kStart.toFixed(1)} s, ${cStart.toFixed(1)} s of CPU):`,
      `  producer ${perTx(pCpu)}   consumer ${perTx(cCpu - cStart)}   broker ${perTx(kCpu - kStart)}   ` +
        `all three ${perTx(pCpu + cCpu - cStart + kCpu - kStart)}   (fake ${args.source} serving ${perTx(fakeCpu).trim()})`,
      secondHalf(),
      `  by stage (from the processes' metrics; "rest" is the process's CPU outside the measured stages):`,
      `    producer  fetch + rest      ${perTx(pCpu - decodeCpu - produceCpu)}  (${args.source === "liteserver" ? "ADNL, block files" : "HTTP, toncenter JSON"}, kafkajs protocol, runtime, GC, start-up)`,
      `    producer  decode            ${perTx(decodeCpu)}  (worker threads)`,
      `    producer  kafka produce     ${perTx(produceCpu)}  (record encoding ${perTx(stage(producerMetrics, "record_encode"))}, ${codec} compress ${perTx(codecCpu(producerMetrics, "compress"))})`,
      `    broker    kafka             ${perTx(kCpu)}`,
      `    consumer  kafka consume     ${perTx(consumeCpu)}  (${codec} decompress ${perTx(codecCpu(consumerMetrics, "decompress"))}, JSON parse ${perTx(stage(consumerMetrics, "kafka_consume"))})`,
      `    consumer  flatten           ${perTx(flattenCpu)}`,
      `    consumer  encode            ${perTx(encodeCpu)}`,
      `    consumer  clickhouse insert ${perTx(insertCpu)}  (process CPU while the engine inserts)`,
      `    consumer  rest              ${perTx(cCpu - consumeCpu - flattenCpu - encodeCpu - insertCpu)}  (kafkajs, trace ids, dedup lookups, runtime, GC, start-up)`,
      ...[...threadCpu].map(
        ([proc, sums]) =>
          `  ${proc} CPU by thread: ` +
          [...sums]
            .sort((a, b) => b[1] - a[1])
            .filter(([, sec]) => sec >= 0.05)
            .map(([comm, sec]) => `${comm} ${perTx(sec).trim()}`)
            .join(", ")
      ),
      `  kafka broker (JVM) CPU by thread after the clock (names from jstack; # is a pool's index): ` +
        [...brokerThreads]
          .sort((a, b) => b[1] - a[1])
          .filter(([, sec]) => sec >= 0.05)
          .map(([name, sec]) => `${name} ${perTx(sec).trim()}`)
          .join(", "),
      ...(engineServer === undefined
        ? []
        : [
            `  the engine in its own process (--engine server), after the clock: ` +
              `${perTx((cpuSeconds.get(ENGINE_SERVER) ?? NaN) - (cpuAtStart.get(ENGINE_SERVER) ?? NaN)).trim()} ` +
              `(the consumer's figures above are then Node's alone and its HTTP client's)`
          ]),
      `  kafka bytes produced: ${(rawBytes / txs).toFixed(0)} B/tx uncompressed, ${(wireBytes / txs).toFixed(0)} B/tx as ${codec} ` +
        `(bundle + transaction records; ratio ${(rawBytes / wireBytes).toFixed(2)})`
    ]
    const head = [
      "",
      `end to end: ${txs} transactions, ${stats.blocks} blocks, ${stats.mcBlocks} masterchain blocks in ${seconds.toFixed(1)} s (codec ${codec})`,
      `  = ${(txs / seconds).toFixed(0)} tx/s, ${(stats.blocks / seconds).toFixed(1)} blocks/s, ${(stats.mcBlocks / seconds).toFixed(1)} mc blocks/s`,
      `  = ${((100 * rate) / (2 * ceiling.perCpuSecond)).toFixed(0)}% of the 2-core decode ceiling (${(2 * ceiling.perCpuSecond).toFixed(0)} tx/s)`,
      `  (from producer start, including its start-up; first bundle stored after ${(((firstStored ?? end) - start) / 1000).toFixed(1)} s)`,
      "stages:",
      `  producer process      ${producerSeconds.toFixed(1)} s wall = ${(txs / producerSeconds).toFixed(0)} tx/s (start-up included)`,
      `  upstream fetch+decode ${fetchSum.toFixed(1)} s over ${fetchCount} bundles = ${(fetchSum / fetchCount * 1000).toFixed(0)} ms/bundle (up to 8 in parallel)`,
      `  kafka transactions    ${publishSum.toFixed(2)} s over ${publishCount} transactions = ${(publishSum / publishCount * 1000).toFixed(0)} ms each, ${(txs / publishSum).toFixed(0)} tx/s`,
      `  clickhouse inserts    ${insertTotal.toFixed(2)} s in ${consumerMetrics.get("ton_consumer_flushes_total") ?? 0} batches = ${(txs / insertTotal).toFixed(0)} tx/s of insert time`,
      ...insertRows,
      ...cpuLines
    ]
    if (!soloStages) {
      sampleRss()
      const report = [...head, ...resources()].join("\n")
      process.stdout.write(report + "\n")
      if (store !== undefined) {
        await sleep(1_000) // let the consumer close its data directory
        const stamp: StoreStamp = {
          chain: chain.name,
          first: chain.first,
          last: chain.last,
          txs: stats.txs,
          builtAt: new Date().toISOString(),
          report: report.trim()
        }
        writeFileSync(stampPath(store), JSON.stringify(stamp, null, 2))
      }
      return
    }
    // Stages alone, so each number is not shared with the others' CPU (this machine may have few cores).
    const soloConsumerPort = await freePortPair()
    const soloStart = Date.now()
    const solo = child("consumer (alone)", "pipelines/consumer.ts", {
      ...common,
      CLICKHOUSE_DATA_DIR: join(scratch, "chdb-solo"),
      CONSUMER_GROUP: "bench-solo",
      CONSUMER_BATCH_ROWS: args["batch-rows"]!,
      METRICS_PORT: String(soloConsumerPort)
    })
    let soloMetrics = new Map<string, number>()
    while (((soloMetrics = await scrape(soloConsumerPort)).get("ton_consumer_last_mc_seqno") ?? -1) < chain.last) {
      if (solo.exitCode !== null) throw new Error("solo consumer exited")
      await sleep(250)
    }
    const soloConsumerSeconds = (Date.now() - soloStart) / 1000
    // The topic is full when it starts: what a backfill's consumer does (batches, their insert CPU, the whole process).
    const soloCpu = soloMetrics.get("ton_exporter_process_cpu_seconds_total") ?? 0
    const soloInsert = soloMetrics.get(`ton_stage_cpu_seconds_total{stage="insert"}`) ?? 0
    solo.kill("SIGTERM")
    await sleep(500)
    const soloProducerStart = Date.now()
    const soloProducer = child("producer (alone)", "pipelines/producer.ts", {
      ...common,
      KAFKA_TOPIC_PREFIX: "bench-solo",
      ...fake.env,
      PRODUCER_MODE: "backfill",
      PRODUCER_FROM: String(chain.first),
      PRODUCER_TO: String(chain.last),
      METRICS_PORT: String(await freePortPair()),
      ...producerEnv
    }, producerNodeFlags)
    const soloProducerCode = await new Promise<number | null>((r) => soloProducer.once("exit", r))
    if (soloProducerCode !== 0) throw new Error("solo producer failed")
    const soloProducerSeconds = (Date.now() - soloProducerStart) / 1000

    const lines = [
      ...head,
      "stages alone (start-up included):",
      `  producer alone        ${soloProducerSeconds.toFixed(1)} s = ${(txs / soloProducerSeconds).toFixed(0)} tx/s (fake ${args.source} -> decode -> Kafka)`,
      `  consumer alone        ${soloConsumerSeconds.toFixed(1)} s = ${(txs / soloConsumerSeconds).toFixed(0)} tx/s (Kafka -> ClickHouse, topic already full)`,
      `  consumer alone        ${soloMetrics.get("ton_consumer_flushes_total") ?? 0} batches, insert stage ${(soloInsert / txs * 1000).toFixed(3)} ms/tx, process CPU ${(soloCpu / txs * 1000).toFixed(3)} ms/tx (start-up included)`,
      ...resources()
    ]
    process.stdout.write(lines.join("\n") + "\n")
  } finally {
    if (engineServer !== undefined && engineServer.exitCode === null) engineServer.kill("SIGTERM")
    clearInterval(rssTimer)
    await fake.stop()
    await kafka.stop()
    rmSync(scratch, { recursive: true, force: true })
  }
}

main().then(
  () => process.exit(0),
  (e: unknown) => {
    process.stderr.write(`bench failed: ${e instanceof Error ? e.stack : String(e)}\n`)
    process.exit(1)
  }
)
