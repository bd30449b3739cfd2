// A v3 page's lookups statement (one multi-get of `account_lookups_kv`, sql/0142, by the page's state hashes and book
// addresses) against the engine's floor: where its time goes beyond a statement's own cost. Over a copy of a store
// kept by `bench:ingest --store` (BENCH_STORE_DIR; the bench adds a table to it), in this process, one session with
// the API's settings, the engine started as the product starts it (CLICKHOUSE_LOOKUPS_CACHE_BYTES, here
// BENCH_CACHE_BYTES, default the product's). Parts, alternating statement by statement where they compare:
// - `pages`: the lookups of BENCH_BLOCKS (300) random masterchain blocks' first 40 lines, a first pass and the same
//   pages again, on `account_lookups_kv` (its cache sized by the setting) against copies of it made here (by a first
//   run, in a process of its own, so that the measuring one starts with cold caches): `lookups_default_cache` with
//   RocksDB's own 32 MiB cache (main's) and `lookups_hash_index` with the sized cache, a bloom filter and a hash index
//   in each data block (a table-file layout); with RocksDB's block cache misses per statement;
// - `keys`: 1, 10, 130 and 1,000 keys found and not found, and one page's keys asked again (every block cached),
//   beside `SELECT 1` and a key lookup of one absent key (the floors);
// - `forms`: the page's keys as the store spells them (split of one literal) against an array literal, a tuple,
//   RowBinary output and a direct join from the key list, answers compared;
// - `found`: where a found key's cost goes beyond an absent one's: 130 keys found or absent (all in one place of the
//   key order, or each beside a found one), every block cached, read as the store reads them (key and value as text),
//   counted only (no row leaves the engine), with one column, with every column, in other output formats, and from
//   the copy with a bloom filter and a hash index in each block.
// BENCH_PARTS picks parts (comma-separated). Prints the median wall and this process's CPU per statement (engine
// threads included); numbers are printed, never asserted.
import { Session } from "chdb"
import { spawnSync } from "node:child_process"
import { loadavg } from "node:os"
import { fileURLToPath } from "node:url"
import { engineConfigXml, withConfigFile } from "../src/clickhouse/engineConfig.js"
import { DEFAULT_LOOKUPS_CACHE_BYTES } from "../src/config.js"
import { sessionSetup } from "../src/store/readers.js"
import { str, strArray, strKeys } from "../src/store/sql.js"
import { nativeStringColumns } from "../src/store/native.js"
import { pageKeys } from "./lib/pageKeys.js"
import { benchStore } from "./lib/store.js"

const { dir, database, stamp } = benchStore()
const count = Number(process.env.BENCH_BLOCKS ?? 300)
const cacheBytes = Number(process.env.BENCH_CACHE_BYTES ?? DEFAULT_LOOKUPS_CACHE_BYTES)
const parts = (process.env.BENCH_PARTS ?? "pages,keys,forms,found").split(",").map((p) => p.trim())
const median = (xs: ReadonlyArray<number>): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!

const SIZED = "account_lookups_kv"
const DEFAULT = "lookups_default_cache"
const HASHED = "lookups_hash_index"
// the product's configuration, and beside it the copy with a bloom filter and a hash index in each data block (both
// written into its table files when they are made: a layout, not a read option) and the same cache size
const hashed = `      <table>
        <name>${HASHED}</name>
        <block_based_table_options>
          <block_cache>${cacheBytes}</block_cache>
          <filter_policy>bloomfilter:10:false</filter_policy>
          <data_block_index_type>kDataBlockBinaryAndHash</data_block_index_type>
        </block_based_table_options>
      </table>
`
const xml = (
  engineConfigXml({ lookupsCacheBytes: cacheBytes }) ??
  "<clickhouse><rocksdb><tables>\n</tables></rocksdb></clickhouse>"
).replace("    </tables>", `${hashed}    </tables>`)
const s = withConfigFile(xml, (args) => new Session(dir, { connectionArgs: [...args] }))
for (const statement of sessionSetup(database)) s.query(statement)
const tsv = (sql: string): string => s.query(sql, "TabSeparatedRaw")

const exists = (table: string): boolean =>
  tsv(`SELECT count() FROM system.tables WHERE database = currentDatabase() AND name = '${table}'`).trim() === "1"
if (process.env.BENCH_COPY_ONLY === "1") {
  // in a process of its own: copying reads every block of the table, which would fill this process's caches
  for (const copy of [DEFAULT, HASHED]) {
    if (exists(copy)) continue
    tsv(`CREATE TABLE ${copy} (key String, mc_seqno UInt32, value String)
         ENGINE = EmbeddedRocksDB PRIMARY KEY key SETTINGS optimize_for_bulk_insert = 0`)
    tsv(`INSERT INTO ${copy} SELECT * FROM ${SIZED}`)
    tsv(`OPTIMIZE TABLE ${copy}`)
  }
  s.close()
  process.exit(0)
}
if (!exists(DEFAULT) || !exists(HASHED)) {
  s.close()
  const copy = spawnSync(process.execPath, [...process.execArgv, fileURLToPath(import.meta.url)], {
    env: { ...process.env, BENCH_COPY_ONLY: "1" },
    stdio: "inherit"
  })
  if (copy.status !== 0) throw new Error("copying the table failed")
  console.log("copies made; run again (this process's engine read the table while copying)")
  process.exit(0)
}

/** RocksDB's block cache data misses of `table` since it opened. */
const misses = (table: string): number =>
  Number(
    tsv(`SELECT sum(value) FROM system.rocksdb WHERE database = currentDatabase() AND table = '${table}'
         AND name = 'block.cache.data.miss'`).trim() || 0
  )

let x = 12345
const blocks = Array.from({ length: count }, () => {
  x = (x * 1103515245 + 12345) % 2 ** 31
  return stamp.first + (x % (stamp.last - stamp.first + 1))
})
// the keys of each page as the store cuts them from its lines (src/store/Store.ts)
const pages = blocks.map((n) => {
  const { hashes, book } = pageKeys(
    tsv(`SELECT arrayStringConcat(arraySlice(lines, 1, 40), '\\n') FROM v3_pages WHERE mc_block_seqno IN [${n}]
         SETTINGS enable_analyzer = 0 FORMAT TabSeparatedRaw`)
  )
  return [...hashes, ...book]
})
const lookups = (table: string, keys: ReadonlyArray<string>): string =>
  `SELECT key, value FROM ${table} WHERE key IN ${strKeys(keys)} SETTINGS enable_analyzer = 0 FORMAT TabSeparatedRaw`

interface Variant {
  readonly label: string
  readonly sql: (i: number) => string
  readonly table?: string
  readonly format?: string
  /** What the reader does with the output, timed with the statement (the bytes as chdb hands them). */
  readonly decode?: (b: Buffer) => unknown
}

/** `rounds` statements of each variant, alternating; per variant the median wall, CPU and cache misses. */
const measure = async (title: string, variants: ReadonlyArray<Variant>, rounds: number): Promise<void> => {
  const wall = variants.map(() => [] as Array<number>)
  const cpu = variants.map(() => 0)
  const bytes = variants.map(() => 0)
  const missed = variants.map((v) => (v.table === undefined ? 0 : -misses(v.table)))
  for (let i = 0; i < rounds; i++) {
    for (let k = 0; k < variants.length; k++) {
      const j = (i + k) % variants.length
      const v = variants[j]!
      const sql = v.sql(i)
      const c0 = process.cpuUsage()
      const t0 = performance.now()
      const out = (await s.queryAsync(sql, { format: v.format ?? "TabSeparatedRaw" })).bytes()
      v.decode?.(Buffer.from(out.buffer, out.byteOffset, out.byteLength))
      bytes[j]! += out.length
      wall[j]!.push(performance.now() - t0)
      const c = process.cpuUsage(c0)
      cpu[j]! += (c.user + c.system) / 1000
    }
  }
  variants.forEach((v, j) => {
    if (v.table !== undefined) missed[j]! += misses(v.table)
  })
  console.log(`${title} (${rounds} statements each, load ${loadavg()[0]!.toFixed(2)})`)
  variants.forEach((v, j) =>
    console.log(
      `  ${v.label.padEnd(44)} wall p50 ${median(wall[j]!).toFixed(3)} ms  CPU ${(cpu[j]! / rounds).toFixed(3)} ms` +
        `  out ${(bytes[j]! / rounds / 1024).toFixed(1)} KiB` +
        (v.table === undefined ? "" : `  block misses ${(missed[j]! / rounds).toFixed(1)}`)
    )
  )
}

const keyCounts = pages.map((p) => p.length).sort((a, b) => a - b)
console.log(
  `kv lookups, ${count} random masterchain blocks of ${stamp.first}-${stamp.last}, keys per page p50 ` +
    `${keyCounts[count >> 1]} (${keyCounts[0]}-${keyCounts[count - 1]}), ${SIZED}'s cache ${cacheBytes} bytes, ` +
    `load ${loadavg()
      .map((l) => l.toFixed(2))
      .join(" ")}`
)
// warm-up of the statement path only (no page of the passes below)
for (let i = 0; i < 10; i++) tsv(lookups(SIZED, [`absent${i}`]))

if (parts.includes("pages")) {
  const both = (pass: string): Array<Variant> => [
    { label: `${pass}, ${SIZED} (sized cache)`, table: SIZED, sql: (i) => lookups(SIZED, pages[i]!) },
    { label: `${pass}, ${DEFAULT} (32 MiB)`, table: DEFAULT, sql: (i) => lookups(DEFAULT, pages[i]!) },
    { label: `${pass}, ${HASHED} (sized, bloom, hash)`, table: HASHED, sql: (i) => lookups(HASHED, pages[i]!) }
  ]
  await measure("pages: each page's lookups, first pass", both("first pass"), count)
  await measure("pages: the same pages again", both("again"), count)
}

if (parts.includes("keys")) {
  // the table's keys spread over its whole range: every 16th row
  const present = tsv(`SELECT key FROM ${SIZED} WHERE key != '' AND cityHash64(key) % 16 = 0`).trim().split("\n")
  // every present key read once first, so the sized cache holds every block these statements need
  tsv(`SELECT count() FROM ${SIZED} WHERE NOT ignore(value)`)
  const found = (n: number) => (i: number) =>
    lookups(
      SIZED,
      Array.from({ length: n }, (_, j) => present[(i * 7919 + j * 104729) % present.length]!)
    )
  const absent = (n: number) => (i: number) =>
    lookups(
      SIZED,
      Array.from({ length: n }, (_, j) => `absent:${i}:${j}`)
    )
  await measure(
    "keys: found and absent, every block cached",
    [
      { label: "SELECT 1", sql: () => "SELECT 1 FORMAT TabSeparatedRaw" },
      { label: "1 absent key", sql: absent(1), table: SIZED },
      { label: "1 key found", sql: found(1), table: SIZED },
      { label: "10 absent keys", sql: absent(10), table: SIZED },
      { label: "10 keys found", sql: found(10), table: SIZED },
      { label: "130 absent keys", sql: absent(130), table: SIZED },
      { label: "130 keys found", sql: found(130), table: SIZED },
      { label: "1000 absent keys", sql: absent(1000), table: SIZED },
      { label: "1000 keys found", sql: found(1000), table: SIZED },
      { label: "one page's keys, the same each time", sql: () => lookups(SIZED, pages[0]!), table: SIZED },
      { label: "random pages' keys", sql: (i) => lookups(SIZED, pages[i % count]!), table: SIZED }
    ],
    Math.min(count, 200)
  )
}

if (parts.includes("forms")) {
  tsv(`SELECT count() FROM ${SIZED} WHERE NOT ignore(value)`)
  const sorted = (text: string): string => text.split("\n").sort().join("\n")
  const forms: Array<Variant> = [
    { label: "split literal (the store's)", sql: (i) => lookups(SIZED, pages[i]!) },
    {
      label: "array literal",
      sql: (i) => `SELECT key, value FROM ${SIZED} WHERE key IN ${strArray(pages[i]!)}
                   SETTINGS enable_analyzer = 0 FORMAT TabSeparatedRaw`
    },
    {
      label: "tuple of literals",
      sql: (i) => `SELECT key, value FROM ${SIZED} WHERE key IN (${pages[i]!.map(str).join(",")})
                   SETTINGS enable_analyzer = 0 FORMAT TabSeparatedRaw`
    },
    {
      label: "split literal, the default analyzer",
      sql: (i) => `SELECT key, value FROM ${SIZED} WHERE key IN ${strKeys(pages[i]!)} FORMAT TabSeparatedRaw`
    },
    {
      label: "direct join from the key list",
      sql: (i) => `SELECT key, value FROM (SELECT arrayJoin(${strKeys(pages[i]!)}) AS key) AS l
                   INNER JOIN ${SIZED} AS r USING key
                   SETTINGS join_algorithm = 'direct', enable_analyzer = 0 FORMAT TabSeparatedRaw`
    }
  ]
  for (const f of forms.slice(1)) {
    for (let i = 0; i < 5; i++) {
      if (sorted(tsv(f.sql(i))) !== sorted(tsv(forms[0]!.sql(i)))) throw new Error(`${f.label}: another answer`)
    }
  }
  forms.push({
    label: "split literal, RowBinary output",
    format: "RowBinary",
    sql: (i) => lookups(SIZED, pages[i]!).replace("FORMAT TabSeparatedRaw", "FORMAT RowBinary")
  })
  // the store's reading of each answer into key -> value (src/store/Store.ts v3LookupsKvRows), from either format
  const fromTsv = (b: Buffer): Map<string, string> => {
    const values = new Map<string, string>()
    for (const line of b.toString("utf8").split("\n")) {
      if (line === "") continue
      const tab = line.indexOf("\t")
      values.set(line.slice(0, tab), line.slice(tab + 1))
    }
    return values
  }
  const fromNative = (b: Buffer): Map<string, string> => {
    const [keys, values] = nativeStringColumns(b, 2)
    return new Map(keys!.map((k, i) => [k, values![i]!]))
  }
  const nativeSql = (i: number) => lookups(SIZED, pages[i]!).replace("FORMAT TabSeparatedRaw", "FORMAT Native")
  const bytesOf = async (sql: string, format: string): Promise<Buffer> => {
    const b = (await s.queryAsync(sql, { format })).bytes()
    return Buffer.from(b.buffer, b.byteOffset, b.byteLength)
  }
  for (let i = 0; i < count; i++) {
    const a = fromTsv(await bytesOf(lookups(SIZED, pages[i]!), "TabSeparatedRaw"))
    const b = fromNative(await bytesOf(nativeSql(i), "Native"))
    if (JSON.stringify([...a].sort()) !== JSON.stringify([...b].sort()))
      throw new Error(`Native: another answer, page ${i}`)
  }
  forms.push(
    { label: "split literal, read into a map (the store's)", sql: (i) => lookups(SIZED, pages[i]!), decode: fromTsv },
    { label: "split literal, Native output, read into a map", sql: nativeSql, format: "Native", decode: fromNative }
  )
  await measure("forms: a page's keys, every block cached", forms, count)
}
if (parts.includes("found")) {
  const present = tsv(`SELECT key FROM ${SIZED} WHERE key != '' AND cityHash64(key) % 16 = 0`).trim().split("\n")
  tsv(`SELECT count() FROM ${SIZED} WHERE NOT ignore(value)`)
  // the copy's blocks read once too, so both tables answer from their caches
  tsv(`SELECT count() FROM ${HASHED} WHERE NOT ignore(value)`)
  const N = 130
  const foundKeys = (i: number) =>
    Array.from({ length: N }, (_, j) => present[(i * 7919 + j * 104729) % present.length]!)
  const absentKeys = (i: number) => Array.from({ length: N }, (_, j) => `absent:${i}:${j}`)
  // absent keys each beside a found one: the found key with its second last character changed, so of the same length
  // (the engine's keys start with their length) and in the same place of the key order, spread over as many blocks
  const presentSet = new Set(present)
  const beside = (k: string): string => {
    for (const c of "ABCDEFGHIJ") {
      const b = `${k.slice(0, -2)}${c}${k.slice(-1)}`
      if (b !== k && !presentSet.has(b)) return b
    }
    throw new Error(`no absent key beside ${k}`)
  }
  const besideKeys = (i: number) => foundKeys(i).map(beside)
  const read =
    (columns: string, keys: (i: number) => ReadonlyArray<string>, format = "TabSeparatedRaw", table = SIZED) =>
    (i: number) =>
      `SELECT ${columns} FROM ${table} WHERE key IN ${strKeys(keys(i))} SETTINGS enable_analyzer = 0 FORMAT ${format}`
  const meanValue = Number(tsv(`SELECT avg(length(value)) FROM ${SIZED} WHERE key IN ${strKeys(foundKeys(0))}`))
  console.log(`found: ${N} keys, values of ${meanValue.toFixed(0)} bytes on average`)
  await measure(
    `found: ${N} keys found or absent, every block cached`,
    [
      { label: "found, key and value (the store's)", sql: read("key, value", foundKeys) },
      { label: "absent, key and value", sql: read("key, value", absentKeys) },
      { label: "absent beside found ones, key and value", sql: read("key, value", besideKeys) },
      { label: `found, key and value, ${HASHED}`, sql: read("key, value", foundKeys, "TabSeparatedRaw", HASHED) },
      { label: `absent beside found, ${HASHED}`, sql: read("key, value", besideKeys, "TabSeparatedRaw", HASHED) },
      { label: "found, count() only", sql: read("count()", foundKeys) },
      { label: "absent, count() only", sql: read("count()", absentKeys) },
      { label: "found, key only", sql: read("key", foundKeys) },
      { label: "found, length(value) only", sql: read("length(value)", foundKeys) },
      { label: "found, every column", sql: read("key, mc_seqno, value", foundKeys) },
      {
        label: "found, key and value, RowBinary",
        sql: read("key, value", foundKeys, "RowBinary"),
        format: "RowBinary"
      },
      { label: "found, key and value, Native", sql: read("key, value", foundKeys, "Native"), format: "Native" },
      {
        label: "found, value joined in one row",
        sql: read("arrayStringConcat(groupArray(concat(key, '\\t', value)), '\\n')", foundKeys)
      }
    ],
    Math.min(count, 200)
  )
}
console.log(
  `load after ${loadavg()
    .map((l) => l.toFixed(2))
    .join(" ")}`
)
s.close()
