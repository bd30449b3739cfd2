// A lone uncached v3 page's two statements on one store, each timed apart and counted by the engine: the page's lines
// from its block's `v3_pages` row (sql/0131), then the multi-get of `account_lookups_kv` (sql/0142) by the keys cut
// from them, as src/store/Store.ts sends them. Over a copy of a store kept by `bench:ingest --store`
// (BENCH_STORE_DIR: the engine writes to it), the engine started with the API's configuration (its lookups cache,
// CLICKHOUSE_LOOKUPS_CACHE_BYTES, default 128 MiB; the tables' Bloom filters, CLICKHOUSE_KV_BLOOM_BITS) and a
// session with the API's read settings; BENCH_BLOCKS (300) random masterchain blocks (BENCH_SEED), pages of 40
// newest first with the address book; BENCH_PASSES (2) passes over the same blocks (the first finds the engine's
// caches empty; later ones as the earlier left them). The two statements alternate page by page. Printed per pass
// and statement: wall p50 / p90 and this process's CPU per statement (engine threads included), the table's RocksDB
// statistics per statement (`system.rocksdb`: blocks read, cache hits and misses, bytes decompressed, keys found per
// level, Bloom filter answers), and, over a counting pass of each statement alone, the engine's own ProfileEvents per
// statement (`system.events` around it, less a snapshot's own). Before the passes it waits for the tables'
// background compactions (`system.rocksdb`) to settle. With BENCH_JSON=1 a last line holds the figures as JSON.
// Never asserts a number.
import { Session } from "chdb"
import { readFileSync, readdirSync, statSync } from "node:fs"
import { load, quantile } from "./lib/stats.js"
import { join } from "node:path"
import { withConfigFile, withEngineConfig } from "../src/clickhouse/engineConfig.js"
import { DEFAULT_KV_BLOOM_BITS, DEFAULT_LOOKUPS_CACHE_BYTES } from "../src/config.js"
import { nativeStringColumns } from "../src/store/native.js"
import { sessionSetup } from "../src/store/readers.js"
import { strKeys } from "../src/store/sql.js"
import { pageKeys } from "./lib/pageKeys.js"
import { benchStore } from "./lib/store.js"

const { dir, database, stamp } = benchStore()
const count = Number(process.env.BENCH_BLOCKS ?? 300)
const passes = Number(process.env.BENCH_PASSES ?? 2)
const cacheBytes = Number(process.env.CLICKHOUSE_LOOKUPS_CACHE_BYTES ?? DEFAULT_LOOKUPS_CACHE_BYTES)
const bloomBits = Number(process.env.CLICKHOUSE_KV_BLOOM_BITS ?? DEFAULT_KV_BLOOM_BITS)
const TABLES = ["v3_pages", "account_lookups_kv"] as const
type Table = (typeof TABLES)[number]

// the engine started as the API starts it (its configuration read once, by the process's first session)
// BENCH_ENGINE_XML: a file of engine configuration to start with instead (RocksDB options tried before they are settings)
const startWith = (args: ReadonlyArray<string>): Session =>
  new Session(dir, args.length === 0 ? undefined : { connectionArgs: [...args] })
const xmlFile = process.env.BENCH_ENGINE_XML
const session =
  xmlFile === undefined
    ? withEngineConfig({ lookupsCacheBytes: cacheBytes, kvBloomBits: bloomBits }, startWith)
    : withConfigFile(readFileSync(xmlFile, "utf8"), startWith)
for (const statement of sessionSetup(database)) session.query(statement)
const bytes = async (sql: string): Promise<Buffer> => {
  const r = (await session.queryAsync(sql, { format: "TabSeparatedRaw" })).bytes()
  return Buffer.from(r.buffer, r.byteOffset, r.byteLength)
}

/** Each table's directory: its table files (count, MiB) and write-ahead log (MiB), as on disk now. */
const layout = (): string =>
  TABLES.map((t) => {
    const uuid = session.query(`SELECT uuid FROM system.tables WHERE database = '${database}' AND name = '${t}'`, "TSV")
    const d = join(dir, "store", uuid.trim().slice(0, 3), uuid.trim())
    const files = readdirSync(d).map((f) => ({ f, size: statSync(join(d, f)).size }))
    const mib = (xs: typeof files): string => (xs.reduce((s, x) => s + x.size, 0) / 2 ** 20).toFixed(1)
    const sst = files.filter((x) => x.f.endsWith(".sst"))
    const blob = files.filter((x) => x.f.endsWith(".blob"))
    const blobs = blob.length === 0 ? "" : `, ${blob.length} blob files ${mib(blob)} MiB`
    return `${t}: ${sst.length} table files ${mib(sst)} MiB${blobs}, log ${mib(files.filter((x) => x.f.endsWith(".log")))} MiB`
  }).join("; ")

/** The tables' RocksDB statistics (`system.rocksdb`), by table and name. */
const rocks = (): Map<string, number> => {
  const m = new Map<string, number>()
  for (const line of session
    .query(
      `SELECT table, name, value FROM system.rocksdb WHERE database = '${database}' AND table IN ('${TABLES.join("','")}')`,
      "TSV"
    )
    .trim()
    .split("\n")) {
    const [t, n, v] = line.split("\t")
    m.set(`${t}\t${n}`, Number(v))
  }
  return m
}
const events = (): Map<string, number> => {
  const m = new Map<string, number>()
  for (const line of session.query("SELECT event, value FROM system.events", "TSV").trim().split("\n")) {
    const [n, v] = line.split("\t")
    m.set(n!, Number(v))
  }
  return m
}
const diff = (a: Map<string, number>, b: Map<string, number>): Map<string, number> => {
  const d = new Map<string, number>()
  for (const [k, v] of b) if (v !== (a.get(k) ?? 0)) d.set(k, v - (a.get(k) ?? 0))
  return d
}

// RocksDB's statistics worth reading per statement (the rest printed only with BENCH_ALL_STATS=1)
const ROCKS = [
  "block.cache.data.hit",
  "block.cache.data.miss",
  "block.cache.index.hit",
  "block.cache.index.miss",
  "block.cache.filter.hit",
  "block.cache.filter.miss",
  "number.block.decompressed",
  "bytes.decompressed.to",
  "bytes.decompressed.from",
  "block.checksum.compute.count",
  "last.level.read.count",
  "last.level.read.bytes",
  "non.last.level.read.count",
  "non.last.level.read.bytes",
  "number.keys.read",
  "memtable.hit",
  "memtable.miss",
  "l0.hit",
  "l1.hit",
  "l2andup.hit",
  "bloom.filter.useful",
  "bloom.filter.full.positive",
  "no.file.opens",
  "compact.write.bytes",
  // the page rows' values in blob files (CLICKHOUSE_PAGES_MIN_BLOB_BYTES): read and decompressed on every read, no cache
  "blobdb.blob.file.bytes.read",
  "blobdb.cache.hit",
  "blobdb.cache.miss"
]

// Wait for the tables' flushes and compactions at open to end: their written bytes unchanged over two seconds.
const settle = async (): Promise<void> => {
  const written = (): number =>
    [...rocks()]
      .filter(([k]) => k.endsWith("compact.write.bytes") || k.endsWith("flush.write.bytes"))
      .reduce((s, [, v]) => s + v, 0)
  let before = written()
  for (let i = 0; i < 60; i++) {
    await new Promise((r) => setTimeout(r, 2000))
    const now = written()
    if (now === before) return
    before = now
  }
}

const page = "arraySlice(lines, 1, 40)"
const linesSql = (n: number): string =>
  `SELECT mc_block_seqno, length(${page} AS page), arrayStringConcat(page, '\\n') FROM v3_pages
   WHERE mc_block_seqno IN [${n}] SETTINGS enable_analyzer = 0 FORMAT TabSeparatedRaw`
const lookupsSql = (keys: string): string =>
  `SELECT key, value FROM account_lookups_kv WHERE key IN ${keys} SETTINGS enable_analyzer = 0 FORMAT Native`
const lineText = (t: Buffer): string => {
  const s = t.toString("utf8")
  return s.slice(s.indexOf("\t", s.indexOf("\t") + 1) + 1)
}

let x = Number(process.env.BENCH_SEED ?? 12345)
const blocks = Array.from({ length: count }, () => {
  x = (x * 1103515245 + 12345) % 2 ** 31
  return stamp.first + (x % (stamp.last - stamp.first + 1))
})

console.log(
  `store ${dir} (blocks ${stamp.first}..${stamp.last}), ` +
    (xmlFile === undefined
      ? `lookups cache ${cacheBytes} B, Bloom filters ${bloomBits} bits a key`
      : `engine configuration ${xmlFile}`)
)
console.log(`  at open: ${layout()}`)
const opened = rocks()
await settle()
const settled = rocks()
const work = diff(opened, settled)
console.log(
  `  settled: ${layout()}; background work after the first statements: ` +
    (TABLES.map(
      (t) => `${t} compaction ${((work.get(`${t}\tcompact.write.bytes`) ?? 0) / 2 ** 20).toFixed(1)} MiB`
    ).join(", ") || "none")
)

// BENCH_WARM_BLOCKS: that many other random blocks' pages read first, untimed, so the passes find the engine's caches
// as a long-running API over the whole history leaves them
const warm = Number(process.env.BENCH_WARM_BLOCKS ?? 0)
if (warm > 0) {
  let y = 777
  const t0 = performance.now()
  for (let i = 0; i < warm; i++) {
    y = (y * 1103515245 + 12345) % 2 ** 31
    const { hashes, book } = pageKeys(
      lineText(await bytes(linesSql(stamp.first + (y % (stamp.last - stamp.first + 1)))))
    )
    await bytes(lookupsSql(strKeys([...hashes, ...book].filter((k) => k.length > 0))))
  }
  console.log(`  warmed by ${warm} other blocks' pages in ${((performance.now() - t0) / 1000).toFixed(1)} s`)
}

// the keys of each block's page, cut outside the timed passes (the first pass's lines statement reads the rows anyway)
const keysOf = new Map<number, string>()
const keyCounts: Array<number> = []
const found: Array<number> = []

type Figures = { wall: Array<number>; cpu: number; stats: Map<string, number>; n: number }
const report: Array<Record<string, unknown>> = []
for (let pass = 1; pass <= passes; pass++) {
  const f: Record<Table, Figures> = {
    v3_pages: { wall: [], cpu: 0, stats: new Map(), n: 0 },
    account_lookups_kv: { wall: [], cpu: 0, stats: new Map(), n: 0 }
  }
  const before = rocks()
  const load0 = load()
  for (const n of blocks) {
    let c = process.cpuUsage()
    let t = performance.now()
    const lines = lineText(await bytes(linesSql(n)))
    f.v3_pages.wall.push(performance.now() - t)
    c = process.cpuUsage(c)
    f.v3_pages.cpu += (c.user + c.system) / 1000
    f.v3_pages.n++
    let keys = keysOf.get(n)
    if (keys === undefined) {
      const { hashes, book } = pageKeys(lines)
      const all = [...hashes, ...book].filter((k) => k.length > 0)
      keyCounts.push(all.length)
      keysOf.set(n, (keys = strKeys(all)))
    }
    c = process.cpuUsage()
    t = performance.now()
    const got = await bytes(lookupsSql(keys))
    f.account_lookups_kv.wall.push(performance.now() - t)
    c = process.cpuUsage(c)
    f.account_lookups_kv.cpu += (c.user + c.system) / 1000
    f.account_lookups_kv.n++
    if (pass === 1) found.push(nativeStringColumns(got, 2)[0]!.length)
  }
  const d = diff(before, rocks())
  console.log(`  pass ${pass} (load ${load0} -> ${load()}):`)
  for (const t of TABLES) {
    const fig = f[t]
    const per = (name: string): number => (d.get(`${t}\t${name}`) ?? 0) / fig.n
    const shown =
      process.env.BENCH_ALL_STATS === "1"
        ? [...d].filter(([k]) => k.startsWith(`${t}\t`)).map(([k]) => k.slice(t.length + 1))
        : ROCKS
    const stats = shown
      .map((name) => [name, per(name)] as const)
      .filter(([, v]) => v !== 0)
      .map(([name, v]) => `${name} ${v >= 100 ? v.toFixed(0) : v.toFixed(2)}`)
    console.log(
      `    ${t.padEnd(19)} wall p50 ${quantile(fig.wall, 0.5).toFixed(3)} ms  p90 ${quantile(fig.wall, 0.9).toFixed(3)} ms` +
        `  CPU ${(fig.cpu / fig.n).toFixed(3)} ms per statement`
    )
    console.log(`      rocksdb per statement: ${stats.join(", ")}`)
    report.push({
      pass,
      table: t,
      p50: quantile(fig.wall, 0.5),
      p90: quantile(fig.wall, 0.9),
      cpu: fig.cpu / fig.n,
      rocks: Object.fromEntries(shown.map((name) => [name, per(name)]))
    })
  }
}
const mean = (xs: ReadonlyArray<number>): number => xs.reduce((s, v) => s + v, 0) / xs.length
console.log(`  keys per page: mean ${mean(keyCounts).toFixed(1)}, found ${mean(found).toFixed(1)}`)

// the engine's own counters per statement, each statement kind alone over the blocks (after the passes: caches warm)
const snapshotCost = diff(events(), events())
const counted: Record<string, Record<string, number>> = {}
for (const t of TABLES) {
  const e0 = events()
  for (const n of blocks) await bytes(t === "v3_pages" ? linesSql(n) : lookupsSql(keysOf.get(n)!))
  const d = diff(e0, events())
  const per: Record<string, number> = {}
  for (const [k, v] of d) {
    const own = v - (snapshotCost.get(k) ?? 0)
    if (own !== 0) per[k] = own / blocks.length
  }
  counted[t] = per
  const shown = Object.entries(per)
    .filter(
      ([k]) => !/Microseconds|Nanoseconds|Memory|Query$|SelectQuery|Milliseconds/.test(k) || /CPU|IO|Wait/.test(k)
    )
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([k, v]) => `${k} ${v >= 100 ? v.toFixed(0) : v.toFixed(2)}`)
  console.log(`  ${t} alone, engine events per statement (pass ${passes + 1}): ${shown.join(", ")}`)
}
if (process.env.BENCH_JSON === "1")
  console.log(JSON.stringify({ dir, load: load(), report, counted, keys: mean(keyCounts), found: mean(found) }))
session.close()
