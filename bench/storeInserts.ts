// The consumer's inserts into stores of different sizes: the same batches (the ingest benchmark's chain, built and
// encoded once per run as a single node's sink makes them) inserted through the consumer's own insert
// (`insertEncoded`) into a store kept by `bench:ingest --store` (a hard-linked copy of a master copy, one per run, so
// every run starts from the same parts and RocksDB files) or into an empty one, each run a process of its own (one
// engine per process), the stores alternating round by round so the machine's load falls on all alike. Per run:
// the process's CPU while each table's statements ran (the pipeline's "insert" figure: background threads running
// meanwhile count in it), then a tail with nothing else running until the engine's merges are done (at most --tail
// seconds): the process's CPU over it; the whole run's CPU by thread (chdb's pools by name; RocksDB's background
// threads are the `node` threads that appear when the engine starts, V8's those before it); RocksDB's own counters
// per key-value table (`system.rocksdb`: compaction CPU, bytes read and written by compaction); the merges per table
// (`system.merges` polled: merges seen and the bytes of the parts they read; the embedded engine keeps no part_log)
// and the engine's merge counters (`system.events`). --config NAME=FILE,... adds configuration variants (a file holding XML inside `<clickhouse>`, e.g. a
// `<rocksdb>` section): every store runs under every variant. The master copies are only read (hard links for the
// parts' files and RocksDB's table files, which the engine never rewrites in place; RocksDB's logs and small files
// copied).
// Usage: npx tsx bench/storeInserts.ts --stores 1m=DIR,200k=DIR,empty= [--config base=,blob=FILE] [--mc 60]
// [--tx 30] [--seed 42] [--batches 12] [--rounds 3] [--tail 60] [--work DIR] (STORE_INSERTS_THREADS=1: each run also
// lists its threads' CPU on stderr). Numbers are printed, never asserted.
import { spawnSync } from "node:child_process"
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs"
import { createRequire } from "node:module"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { fileURLToPath } from "node:url"
import { makeClickHouseClient, type ClickHouseHandle } from "../src/clickhouse/ClickHouse.js"
import { applyMigrations } from "../src/clickhouse/migrations.js"
import { INSERT_ORDER } from "../src/flatten/bundle.js"
import { parseCli } from "../src/infra/cli.js"
import { processCpuSeconds } from "../src/ops/cpu.js"
import { benchBundles, encodedBatches } from "./lib/chain.js"

const USAGE = `Usage: npx tsx bench/storeInserts.ts --stores NAME=DIR,... [--config NAME=FILE,...] [--mc 60] [--tx 30]
  [--seed 42] [--batches 12] [--rounds 3] [--tail 60] [--work DIR]
  The consumer's inserts into stores of different sizes, with the engine's background work; numbers are printed,
  never asserted. (NAME= with no DIR: an empty store.)`
const args = parseCli(
  {
    stores: { type: "string", default: "" },
    config: { type: "string", default: "base=" },
    mc: { type: "string", default: "60" },
    tx: { type: "string", default: "30" },
    seed: { type: "string", default: "42" },
    batches: { type: "string", default: "12" },
    rounds: { type: "string", default: "3" },
    tail: { type: "string", default: "60" },
    work: { type: "string", default: "" },
    child: { type: "string", default: "" },
    "child-config": { type: "string", default: "" }
  },
  USAGE
)
const pairs = (s: string) =>
  s
    .split(",")
    .filter((x) => x !== "")
    .map((x) => {
      const k = x.indexOf("=")
      return [x.slice(0, k), x.slice(k + 1)] as const
    })

/** What one run prints (a JSON line on stdout). */
interface RunResult {
  readonly txs: number
  readonly idle: number
  readonly insert: Record<string, number>
  readonly tail: number
  readonly tailWall: number
  readonly threads: Record<string, number>
  readonly rocksdb: Record<string, Record<string, number>>
  /** per MergeTree table: merges seen running, the compressed bytes they read, the change in active parts */
  readonly merges: Record<string, { merges: number; read: number; written: number; cpu: number; inserted: number }>
  /** the engine's counters (system.events) over the inserts and the tail */
  readonly counters: Record<string, number>
}


/** utime + stime seconds of every thread of this process, by thread id, with its name. */
const threadTimes = (): Map<number, [string, number]> => {
  const out = new Map<number, [string, number]>()
  for (const tid of readdirSync("/proc/self/task")) {
    try {
      const stat = readFileSync(`/proc/self/task/${tid}/stat`, "utf8")
      const close = stat.lastIndexOf(")")
      const comm = stat.slice(stat.indexOf("(") + 1, close)
      const f = stat.slice(close + 2).split(" ")
      out.set(Number(tid), [comm, (Number(f[11]) + Number(f[12])) / 100])
    } catch {
      // the thread ended between the listing and the read
    }
  }
  return out
}

const child = async (dir: string, configFile: string): Promise<RunResult> => {
  const bundles = benchBundles(Number(args.seed), Number(args.mc), Number(args.tx))
  const txs = bundles.reduce((n, b) => n + b.transactions.length, 0)
  const batches = encodedBatches(bundles, Number(args.batches))
  const before = new Set(threadTimes().keys())
  const extra = configFile === "" ? "" : readFileSync(configFile, "utf8")
  const cfgDir = mkdtempSync(join(tmpdir(), "store-inserts-cfg-"))
  const cfg = join(cfgDir, "config.xml")
  writeFileSync(cfg, `<clickhouse>\n${extra}\n</clickhouse>\n`)
  const { Session } = createRequire(import.meta.url)("chdb") as typeof import("chdb")
  const starter = new Session(dir, { connectionArgs: [`--config-file=${cfg}`] })
  const ch: ClickHouseHandle = await makeClickHouseClient({
    url: undefined,
    user: "default",
    password: "",
    database: "ton",
    dataDir: dir
  })
  await applyMigrations(ch.client)
  const rows = async <A>(query: string): Promise<Array<A>> =>
    (await (await ch.client.query({ query, format: "JSONEachRow" })).json()) as Array<A>
  const mergesRunning = async () =>
    Number((await rows<{ n: string }>("SELECT count() AS n FROM system.merges"))[0]!.n)
  // settle: the store's tables load in the background and merges may run at open; wait for two quiet seconds in a
  // row (the process under 50 ms of CPU a second, no merge running), then measure an idle stretch
  const quiet = async (limitMs: number) => {
    const start = Date.now()
    let calm = 0
    while (calm < 2 && Date.now() - start < limitMs) {
      const c = processCpuSeconds()
      await sleep(1000)
      calm = processCpuSeconds() - c < 0.05 && (await mergesRunning()) === 0 ? calm + 1 : 0
    }
  }
  await quiet(180_000)
  const i0 = processCpuSeconds()
  await sleep(3000)
  const idle = (processCpuSeconds() - i0) / 3
  const rocks = async () => {
    const out: Record<string, Record<string, number>> = {}
    for (const r of await rows<{ table: string; name: string; value: string }>(
      "SELECT table, name, value FROM system.rocksdb WHERE database = 'ton'"
    ))
      (out[r.table] ??= {})[r.name] = Number(r.value)
    return out
  }
  const r0 = await rocks()
  const events = async () =>
    new Map(
      (await rows<{ event: string; value: string }>("SELECT event, value FROM system.events")).map(
        (r) => [r.event, Number(r.value)] as const
      )
    )
  const activeParts = async () =>
    new Map(
      (
        await rows<{ table: string; n: string }>(
          "SELECT table, count() AS n FROM system.parts WHERE database = 'ton' AND active GROUP BY table"
        )
      ).map((r) => [r.table, Number(r.n)] as const)
    )
  /** merges seen running, by result part: their table and the bytes of the parts they read */
  const seen = new Map<string, { table: string; bytes: number }>()
  let stopPoll = false
  const poll = async () => {
    while (!stopPoll) {
      for (const m of await rows<{ table: string; part: string; bytes: string }>(
        "SELECT table, result_part_name AS part, total_size_bytes_compressed AS bytes FROM system.merges WHERE database = 'ton'"
      ))
        seen.set(`${m.table}/${m.part}`, { table: m.table, bytes: Number(m.bytes) })
      await sleep(250)
    }
  }
  const parts0 = await activeParts()
  const e0 = await events()
  const th0 = threadTimes()
  const polling = poll()
  const insert: Record<string, number> = {}
  for (const batch of batches) {
    for (const b of batch) {
      const c0 = processCpuSeconds()
      await ch.insertEncoded(b)
      insert[b.table] = (insert[b.table] ?? 0) + processCpuSeconds() - c0
    }
  }
  const tail0 = processCpuSeconds()
  const w0 = Date.now()
  await quiet(Number(args.tail) * 1000)
  const tail = processCpuSeconds() - tail0
  const tailWall = (Date.now() - w0) / 1000
  const th1 = threadTimes()
  if (process.env.STORE_INSERTS_THREADS === "1")
    process.stderr.write(`${[...th1].map(([tid, [c, t]]) => `${tid} ${c} ${before.has(tid)} ${t}`).join("\n")}\n`)
  const r1 = await rocks()
  const parts1 = await activeParts()
  const e1 = await events()
  stopPoll = true
  await polling
  const merges: RunResult["merges"] = {}
  for (const m of seen.values()) {
    const x = (merges[m.table] ??= { merges: 0, read: 0, written: 0, cpu: 0, inserted: 0 })
    x.merges++
    x.read += m.bytes
  }
  for (const [table, n] of parts1) {
    const x = (merges[table] ??= { merges: 0, read: 0, written: 0, cpu: 0, inserted: 0 })
    x.written = n - (parts0.get(table) ?? 0)
  }
  const counters: Record<string, number> = {}
  for (const [k, v] of e1) if (v - (e0.get(k) ?? 0) !== 0) counters[k] = v - (e0.get(k) ?? 0)
  const threads: Record<string, number> = {}
  for (const [tid, [comm, t]] of th1) {
    const name =
      tid === process.pid ? "main" : comm === "node" ? (before.has(tid) ? "node (V8)" : "node (new: RocksDB)") : comm
    const d = t - (th0.get(tid)?.[1] ?? 0)
    threads[name] = (threads[name] ?? 0) + d
  }
  const rocksdb: RunResult["rocksdb"] = {}
  for (const [table, stats] of Object.entries(r1)) {
    const d: Record<string, number> = {}
    for (const [k, v] of Object.entries(stats)) {
      const x = v - (r0[table]?.[k] ?? 0)
      if (x !== 0) d[k] = x
    }
    rocksdb[table] = d
  }
  await ch.client.close()
  starter.close()
  rmSync(cfgDir, { recursive: true, force: true })
  return { txs, idle, insert, tail, tailWall, threads, rocksdb, merges, counters }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

if (args.child !== "") {
  const r = await child(args.child, args["child-config"])
  process.stdout.write(`RESULT ${JSON.stringify(r)}\n`)
  process.exit(0)
}

/**
 * RocksDB appends to its write-ahead log and rewrites its small files in place, so in each key-value table's directory
 * (one holding `CURRENT`) of a hard-linked copy every file but the immutable table files (`*.sst`) becomes a copy of
 * its own: the master copy's stay as they were.
 */
const ownRocksdbFiles = (dir: string) => {
  const store = join(dir, "store")
  for (const prefix of readdirSync(store))
    for (const table of readdirSync(join(store, prefix))) {
      const t = join(store, prefix, table)
      const files = readdirSync(t)
      if (!files.includes("CURRENT")) continue
      for (const f of files) {
        if (f.endsWith(".sst")) continue
        copyFileSync(join(t, f), join(t, `${f}.own`))
        renameSync(join(t, `${f}.own`), join(t, f))
      }
    }
}

const stores = pairs(args.stores)
const configs = pairs(args.config)
if (stores.length === 0) throw new Error(USAGE)
const work = args.work !== "" ? resolve(args.work) : mkdtempSync(join(tmpdir(), "store-inserts-"))
mkdirSync(work, { recursive: true })
const runs = stores.flatMap(([s, dir]) => configs.map(([c, file]) => ({ name: `${s}/${c}`, dir, file })))
const results = new Map<string, Array<RunResult>>(runs.map((r) => [r.name, []]))
const self = fileURLToPath(import.meta.url)
for (let round = 0; round < Number(args.rounds); round++) {
  for (const run of round % 2 === 0 ? runs : [...runs].reverse()) {
    const dir = join(work, "run")
    rmSync(dir, { recursive: true, force: true })
    if (run.dir !== "") {
      const cp = spawnSync("cp", ["-al", resolve(run.dir), dir])
      if (cp.status !== 0) throw new Error(`cp -al ${run.dir}: ${cp.stderr}`)
      ownRocksdbFiles(dir)
    } else mkdirSync(dir)
    const load = readFileSync("/proc/loadavg", "utf8").split(" ")[0]
    const passOn = ["mc", "tx", "seed", "batches", "tail"].flatMap((k) => [`--${k}`, String(args[k as keyof typeof args])])
    const p = spawnSync(
      process.execPath,
      [...process.execArgv, self, "--child", dir, "--child-config", run.file === "" ? "" : resolve(run.file), ...passOn],
      { encoding: "utf8", maxBuffer: 64 << 20 }
    )
    const line = p.stdout.split("\n").find((l) => l.startsWith("RESULT "))
    if (line === undefined) throw new Error(`run ${run.name} failed: ${p.stderr.slice(-4000)}`)
    const r = JSON.parse(line.slice(7)) as RunResult
    results.get(run.name)!.push(r)
    const us = (s: number) => ((s / r.txs) * 1e6).toFixed(1)
    const ins = Object.values(r.insert).reduce((a, b) => a + b, 0)
    console.log(
      `round ${round + 1} ${run.name} (load ${load}): insert ${us(ins)} us/tx, tail ${us(r.tail)} (${r.tailWall.toFixed(0)} s), idle ${(r.idle * 1000).toFixed(0)} ms/s`
    )
    rmSync(dir, { recursive: true, force: true })
  }
}

const med = (a: ReadonlyArray<number>) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)]!
const first = [...results.values()][0]![0]!
const txs = first.txs
const us = (sec: number) => ((sec / txs) * 1e6).toFixed(1)
const names = [...results.keys()]
console.log(`\n${txs} transactions in ${args.batches} batches; medians of ${args.rounds} rounds, CPU us/tx`)
console.log(`${"".padEnd(34)}${names.map((n) => n.padStart(16)).join("")}`)
const row = (label: string, f: (r: RunResult) => number, fmt: (x: number) => string = us) =>
  console.log(`${label.padEnd(34)}${names.map((n) => fmt(med(results.get(n)!.map(f))).padStart(16)).join("")}`)
for (const t of INSERT_ORDER.filter((t) => first.insert[t] !== undefined)) row(`insert ${t}`, (r) => r.insert[t] ?? 0)
row("insert, all tables", (r) => Object.values(r.insert).reduce((a, b) => a + b, 0))
row("tail (merges, compaction)", (r) => r.tail)
row("insert + tail", (r) => Object.values(r.insert).reduce((a, b) => a + b, 0) + r.tail)
const threadNames = [...new Set([...results.values()].flatMap((l) => l.flatMap((r) => Object.keys(r.threads))))]
  .filter((t) => [...results.values()].some((l) => med(l.map((r) => r.threads[t] ?? 0)) / txs > 1e-6))
  .sort()
for (const t of threadNames) row(`  thread ${t}`, (r) => r.threads[t] ?? 0)
const kv = [...new Set([...results.values()].flatMap((l) => l.flatMap((r) => Object.keys(r.rocksdb))))].sort()
for (const t of kv) {
  row(`rocksdb ${t} compaction cpu`, (r) => (r.rocksdb[t]?.["rocksdb.compaction.total.time.cpu_micros"] ?? r.rocksdb[t]?.["compaction.total.time.cpu_micros"] ?? 0) / 1e6)
  const perTx = (x: number) => (x / txs).toFixed(0)
  row(`  compaction written B/tx`, (r) => r.rocksdb[t]?.["rocksdb.compact.write.bytes"] ?? r.rocksdb[t]?.["compact.write.bytes"] ?? 0, perTx)
  row(`  compaction read B/tx`, (r) => r.rocksdb[t]?.["rocksdb.compact.read.bytes"] ?? r.rocksdb[t]?.["compact.read.bytes"] ?? 0, perTx)
}
const mt = [...new Set([...results.values()].flatMap((l) => l.flatMap((r) => Object.keys(r.merges))))].sort()
for (const t of mt) {
  const perTx = (x: number) => (x / txs).toFixed(0)
  row(`merges ${t}: read B/tx`, (r) => r.merges[t]?.read ?? 0, perTx)
  row(`  merges seen`, (r) => r.merges[t]?.merges ?? 0, (x) => x.toFixed(0))
  row(`  active parts change`, (r) => r.merges[t]?.written ?? 0, (x) => x.toFixed(0))
}
for (const e of ["MergedRows", "MergedUncompressedBytes", "MergeTotalMilliseconds", "MergesTimeMilliseconds", "InsertedRows", "InsertedBytes", "UserTimeMicroseconds", "SystemTimeMicroseconds", "OSCPUVirtualTimeMicroseconds"])
  row(`event ${e} per tx`, (r) => r.counters[e] ?? 0, (x) => (x / txs).toFixed(1))
console.log(`\nrocksdb counters (last round, per transaction):`)
for (const [n, l] of results) {
  const r = l[l.length - 1]!
  for (const [t, d] of Object.entries(r.rocksdb))
    console.log(`  ${n} ${t}: ${Object.entries(d).filter(([k]) => /compact|flush|ingest|bytes.written|stall|blob/.test(k)).map(([k, v]) => `${k}=${(v / txs).toPrecision(3)}`).join(" ")}`)
}
process.exit(0)
