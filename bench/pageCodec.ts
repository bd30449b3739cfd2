// What a page row's compression costs on the read path: `v3_pages` (sql/0131) and `v2_pages` (sql/0132) rows read
// from copies of the tables written with RocksDB's ZSTD (the engine's default, what the product's tables hold), LZ4
// and no compression (`column_family_options.compression` of a table section in the engine's configuration file).
// Over a copy of a store kept by `bench:ingest --store` (BENCH_STORE_DIR; the bench adds tables to it): a first run
// makes the copies in a process of its own (INSERT ... SELECT, then OPTIMIZE TABLE; timed) and exits, so that the
// measuring run starts with cold engine caches. The measuring run, in this process, one session with the API's
// settings: each table's size on disk, then per table the statement the store runs for a lone page (v3: a block's
// first 40 lines in descending order; v2: a shard block's whole row) for BENCH_BLOCKS (300) distinct random blocks:
// each block's first read in the process, then the same statement at once again (its block cached), the tables
// alternating block by block; answers compared. With BENCH_CONVERT=1 it reports instead whether OPTIMIZE TABLE
// rewrites a table's existing files with the options it was opened with (a ZSTD copy compacted since its last write,
// opened as LZ4: its size before and after). Prints the median wall and the median and mean of this process's CPU
// per statement (engine threads included); numbers are printed, never asserted.
import { Session } from "chdb"
import { spawnSync } from "node:child_process"
import { readdirSync, statSync } from "node:fs"
import { loadavg } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { withConfigFile } from "../src/clickhouse/engineConfig.js"
import { sessionSetup } from "../src/store/readers.js"
import { strArray } from "../src/store/sql.js"
import { benchStore } from "./lib/store.js"

const { dir, database, stamp } = benchStore()
const count = Number(process.env.BENCH_BLOCKS ?? 300)
const median = (xs: ReadonlyArray<number>): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!

const CODECS = [
  ["zstd", "kZSTD"],
  ["lz4", "kLZ4Compression"],
  ["none", "kNoCompression"]
] as const
const COPIES = ["v3_pages", "v2_pages"].flatMap((t) =>
  CODECS.map(([c, option]) => ({ table: t, name: `${t}_${c}`, option }))
)
// a ZSTD copy reopened as LZ4, for the question whether OPTIMIZE TABLE converts existing files
const CONVERTED = "v3_pages_converted"
const converting = process.env.BENCH_CONVERT_STEP === "1"

const section = (name: string, option: string): string => `      <table>
        <name>${name}</name>
        <column_family_options>
          <compression>${option}</compression>
        </column_family_options>
      </table>
`
const xml = [
  "<clickhouse><rocksdb><tables>",
  ...COPIES.map((c) => section(c.name, c.option)),
  section(CONVERTED, converting ? "kLZ4Compression" : "kZSTD"),
  "</tables></rocksdb></clickhouse>"
].join("\n")
const s = withConfigFile(xml, (args) => new Session(dir, { connectionArgs: [...args] }))
for (const statement of sessionSetup(database)) s.query(statement)
const tsv = (sql: string): string => s.query(sql, "TabSeparatedRaw")

const exists = (table: string): boolean =>
  tsv(`SELECT count() FROM system.tables WHERE database = currentDatabase() AND name = '${table}'`).trim() === "1"
/** Bytes of a table's files on disk (its RocksDB directory). */
const sizeOf = (table: string): number => {
  const path = tsv(
    `SELECT data_paths[1] FROM system.tables WHERE database = currentDatabase() AND name = '${table}'`
  ).trim()
  const walk = (p: string): number =>
    readdirSync(p, { withFileTypes: true }).reduce(
      (n, e) => n + (e.isDirectory() ? walk(join(p, e.name)) : statSync(join(p, e.name)).size),
      0
    )
  return walk(path)
}
const mib = (bytes: number): string => `${(bytes / 1024 / 1024).toFixed(1)} MiB`
const timed = (label: string, sql: string): void => {
  const c0 = process.cpuUsage()
  const t0 = performance.now()
  tsv(sql)
  const c = process.cpuUsage(c0)
  console.log(
    `  ${label.padEnd(60)} ${((performance.now() - t0) / 1000).toFixed(2)} s wall, ` +
      `${((c.user + c.system) / 1e6).toFixed(2)} s CPU`
  )
}
const copy = (from: string, to: string): void => {
  tsv(`CREATE TABLE ${to} AS ${from}`)
  timed(`INSERT INTO ${to} SELECT * FROM ${from}`, `INSERT INTO ${to} SELECT * FROM ${from}`)
  timed(`OPTIMIZE TABLE ${to}`, `OPTIMIZE TABLE ${to}`)
}

if (process.env.BENCH_COPY_ONLY === "1") {
  // in a process of its own: copying reads every block of the tables, which would fill this process's caches
  console.log(`copies (load ${loadavg()[0]!.toFixed(2)}):`)
  for (const c of COPIES) if (!exists(c.name)) copy(c.table, c.name)
  if (!exists(CONVERTED)) copy("v3_pages", CONVERTED)
  s.close()
  process.exit(0)
}
if (converting) {
  // the ZSTD copy, opened with LZ4 as its compression: does OPTIMIZE TABLE rewrite what it holds?
  const before = sizeOf(CONVERTED)
  timed(`OPTIMIZE TABLE ${CONVERTED} (opened with LZ4)`, `OPTIMIZE TABLE ${CONVERTED}`)
  console.log(
    `  ${CONVERTED}: ${mib(before)} before, ${mib(sizeOf(CONVERTED))} after (v3_pages_lz4 ` +
      `${mib(sizeOf("v3_pages_lz4"))}, v3_pages_zstd ${mib(sizeOf("v3_pages_zstd"))})`
  )
  s.close()
  process.exit(0)
}
if (!COPIES.every((c) => exists(c.name)) || !exists(CONVERTED)) {
  s.close()
  const made = spawnSync(process.execPath, [...process.execArgv, fileURLToPath(import.meta.url)], {
    env: { ...process.env, BENCH_COPY_ONLY: "1" },
    stdio: "inherit"
  })
  if (made.status !== 0) throw new Error("copying the tables failed")
  console.log("copies made; run again (this process's engine read the tables while copying)")
  process.exit(0)
}
if (process.env.BENCH_CONVERT === "1") {
  s.close()
  const step = spawnSync(process.execPath, [...process.execArgv, fileURLToPath(import.meta.url)], {
    env: { ...process.env, BENCH_CONVERT_STEP: "1" },
    stdio: "inherit"
  })
  if (step.status !== 0) throw new Error("the conversion step failed")
  process.exit(0)
}

console.log(
  `page codecs, ${count} random blocks of ${stamp.first}-${stamp.last}, load ${loadavg()
    .map((l) => l.toFixed(2))
    .join(" ")}`
)
for (const t of ["v3_pages", "v2_pages"])
  console.log(
    `  ${t.padEnd(14)} ${mib(sizeOf(t)).padStart(10)} (the store's)  ` +
      COPIES.filter((c) => c.table === t)
        .map((c) => `${c.name} ${mib(sizeOf(c.name))}`)
        .join("  ")
  )

let x = 12345
const next = (n: number): number => {
  x = (x * 1103515245 + 12345) % 2 ** 31
  return x % n
}
/** `n` distinct draws from `pool`, so each page's first statement is its block's first read in this process. */
const distinct = <A>(pool: ReadonlyArray<A>, n: number): Array<A> => {
  const picked = new Set<number>()
  while (picked.size < Math.min(n, pool.length)) picked.add(next(pool.length))
  return [...picked].map((i) => pool[i]!)
}
const mcBlocks = distinct(
  Array.from({ length: stamp.last - stamp.first + 1 }, (_, i) => stamp.first + i),
  count
)
const v2Blocks = distinct(tsv(`SELECT block FROM v2_pages_zstd`).trim().split("\n"), count)

// the store's lone-page statements (src/store/Store.ts v3PageLines and v2PageRows)
const v3Page = (table: string, seqno: number): string =>
  `SELECT mc_block_seqno, length(arraySlice(lines, 0 + 1, 40) AS page), arrayStringConcat(page, '\\n') FROM ${table}
   WHERE mc_block_seqno IN [${seqno}] SETTINGS enable_analyzer = 0 FORMAT TabSeparatedRaw`
const v2Row = (table: string, block: string): string =>
  `SELECT block, mc_block_seqno, root_hash, file_hash, keys, countSubstrings(v2, '\\n'), v2 FROM ${table}
   WHERE block IN ${strArray([block])} SETTINGS enable_analyzer = 0 FORMAT TabSeparatedRaw`

/**
 * `count` pages per table, the tables alternating (rotated each round): each page's statement, then the same statement
 * at once again (its block now in RocksDB's block cache); per table the median wall, median and mean CPU of each, answers
 * compared across tables.
 */
const measure = async (title: string, tables: ReadonlyArray<string>, sql: (t: string, i: number) => string) => {
  const wall = tables.map(() => [[], []] as [Array<number>, Array<number>])
  const cpu = tables.map(() => [[], []] as [Array<number>, Array<number>])
  const bytes = tables.map(() => 0)
  for (let i = 0; i < count; i++) {
    let answer: Buffer | undefined
    for (let k = 0; k < tables.length; k++) {
      const j = (i + k) % tables.length
      for (const pass of [0, 1]) {
        const c0 = process.cpuUsage()
        const t0 = performance.now()
        const b = (await s.queryAsync(sql(tables[j]!, i), { format: "TabSeparatedRaw" })).bytes()
        wall[j]![pass]!.push(performance.now() - t0)
        const c = process.cpuUsage(c0)
        cpu[j]![pass]!.push((c.user + c.system) / 1000)
        const out = Buffer.from(b.buffer, b.byteOffset, b.byteLength)
        bytes[j]! += pass === 0 ? out.length : 0
        if (answer === undefined) answer = Buffer.from(out)
        else if (!out.equals(answer)) throw new Error(`${tables[j]}: another answer for statement ${i}`)
      }
    }
  }
  console.log(`${title} (${count} each, load ${loadavg()[0]!.toFixed(2)})`)
  tables.forEach((t, j) => {
    const [w0, w1] = wall[j]!
    const [c0, c1] = cpu[j]!
    const mean = (xs: ReadonlyArray<number>): number => xs.reduce((a, b) => a + b, 0) / xs.length
    console.log(
      `  ${t.padEnd(14)} first: wall p50 ${median(w0).toFixed(3)} CPU p50 ${median(c0).toFixed(3)} mean ` +
        `${mean(c0).toFixed(3)} ms   again: wall p50 ${median(w1).toFixed(3)} CPU p50 ${median(c1).toFixed(3)} mean ` +
        `${mean(c1).toFixed(3)} ms   out ${(bytes[j]! / count / 1024).toFixed(1)} KiB`
    )
  })
}

// warm-up of the statement path only (keys no page below asks)
for (const c of COPIES) for (let i = 0; i < 5; i++) tsv(c.table === "v3_pages" ? v3Page(c.name, 1) : v2Row(c.name, "x"))
const v3Tables = COPIES.filter((c) => c.table === "v3_pages").map((c) => c.name)
const v2Tables = COPIES.filter((c) => c.table === "v2_pages").map((c) => c.name)
await measure("v3 page (first 40 lines, desc), a block's first read and the same again", v3Tables, (t, i) =>
  v3Page(t, mcBlocks[i]!)
)
await measure("v2 row, a shard block's first read and the same again", v2Tables, (t, i) => v2Row(t, v2Blocks[i]!))
console.log(
  `load after ${loadavg()
    .map((l) => l.toFixed(2))
    .join(" ")}`
)
s.close()
