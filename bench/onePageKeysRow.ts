// A lone uncached v3 page (40 newest first, with the address book) as today's two statements against candidates that
// read it in ONE statement or two at the same moment, interleaved page by page (the order of the variants turned each
// page), on a copy of a store kept by `bench:ingest --store` (BENCH_STORE_DIR: the engine writes to it), the engine
// started as the API starts it and a session with the API's read settings. Today ("two"): the page's lines from its
// block's `v3_pages` row, the lookup keys cut from them here, then the multi-get of `account_lookups_kv` by those keys
// as literals. Candidates whose lookups take their keys inside the engine from the same row's page lines (each line's
// first three tab-separated fields: the two state fields, the ones not embedded, and the book's addresses): "in" a
// UNION ALL of the lines and `key IN (subquery)`, "inNew" the same under the engine's new analyzer, "direct" the lines
// and a direct join of those keys, "par" the lines and the `IN (subquery)` lookups as two statements at once. And
// candidates whose keys come from a small key-value row per block kept apart (`bench_v3_page_keys`, made here once
// from `v3_pages` when missing: per line its state hashes not embedded and its book's addresses): "keysIn" one
// statement, the lines UNION ALL the lookups `key IN (subquery of the keys row)`, "keysJoin" the same by a direct join,
// "parKeys" two statements at once. BENCH_BLOCKS (300) random masterchain blocks (BENCH_SEED), BENCH_PASSES (2)
// passes; BENCH_VARIANTS (two,keysIn) the ones compared. Printed per pass and variant: wall p50 / p90 and this
// process's CPU per page (engine threads included), and whether each candidate's answers equal today's (the same
// lines, the same found keys and values). Never asserts a number.
//
//   BENCH_STORE_DIR=<copy> [BENCH_BLOCKS=300 BENCH_PASSES=2 BENCH_VARIANTS=two,in,keysIn] \
//     nice -n 5 npx tsx bench/onePageKeysRow.ts
import { Session } from "chdb"
import { load, quantile } from "./lib/stats.js"
import { withEngineConfig } from "../src/clickhouse/engineConfig.js"
import { DEFAULT_KV_BLOOM_BITS, DEFAULT_LOOKUPS_CACHE_BYTES } from "../src/config.js"
import { nativeStringColumns } from "../src/store/native.js"
import { sessionSetup } from "../src/store/readers.js"
import { strKeys } from "../src/store/sql.js"
import { pageKeys } from "./lib/pageKeys.js"
import { benchStore } from "./lib/store.js"

const { dir, database, stamp } = benchStore()
const count = Number(process.env.BENCH_BLOCKS ?? 300)
const passes = Number(process.env.BENCH_PASSES ?? 2)
const variants = (process.env.BENCH_VARIANTS ?? "two,keysIn").split(",")

const session = withEngineConfig(
  {
    lookupsCacheBytes: Number(process.env.CLICKHOUSE_LOOKUPS_CACHE_BYTES ?? DEFAULT_LOOKUPS_CACHE_BYTES),
    kvBloomBits: Number(process.env.CLICKHOUSE_KV_BLOOM_BITS ?? DEFAULT_KV_BLOOM_BITS)
  },
  (args) => new Session(dir, args.length === 0 ? undefined : { connectionArgs: [...args] })
)
for (const statement of sessionSetup(database)) session.query(statement)
const bytes = async (sql: string): Promise<Buffer> => {
  const r = (await session.queryAsync(sql, { format: "TabSeparatedRaw" })).bytes()
  return Buffer.from(r.buffer, r.byteOffset, r.byteLength)
}

const PAGE = "arraySlice(lines, 1, 40)"
// the page's lookup keys inside the engine: per line its first three fields (the rest, the v3 piece, is not split off)
const KEYS =
  `arrayFilter(k -> k != '' AND NOT startsWith(k, '{'), arrayDistinct(arrayFlatten(arrayMap(` +
  `l -> arrayConcat(arraySlice(splitByChar('\\t', l, 3) AS f, 1, 2), splitByChar(' ', f[3])), ${PAGE}))))`

/** A page as every variant answers it: its lines and its found keys' values. */
interface Page {
  lines: string
  found: Map<string, string>
}

const lookupsOnly = async (sql: string): Promise<Map<string, string>> => {
  const [k, v] = nativeStringColumns(await bytes(sql), 2)
  const found = new Map<string, string>()
  for (let i = 0; i < k!.length; i++) found.set(k![i]!, v![i]!)
  return found
}
const linesOnly = async (n: number): Promise<string> => {
  const t = (
    await bytes(
      `SELECT mc_block_seqno, length(${PAGE} AS page), arrayStringConcat(page, '\\n') FROM v3_pages
       WHERE mc_block_seqno IN [${n}] SETTINGS enable_analyzer = 0 FORMAT TabSeparatedRaw`
    )
  ).toString("utf8")
  return t.slice(t.indexOf("\t", t.indexOf("\t") + 1) + 1)
}
const two = async (n: number): Promise<Page> => {
  const lines = await linesOnly(n)
  const { hashes, book } = pageKeys(lines)
  const keys = [...hashes, ...book].filter((k) => k.length > 0)
  const found =
    keys.length > 0
      ? await lookupsOnly(
          `SELECT key, value FROM account_lookups_kv WHERE key IN ${strKeys(keys)}
         SETTINGS enable_analyzer = 0 FORMAT Native`
        )
      : new Map<string, string>()
  return { lines, found }
}

// one statement; its first column '#' for the lines' row, else the found key
const one = async (sql: string): Promise<Page> => {
  const [k, v] = nativeStringColumns(await bytes(sql), 2)
  let lines = ""
  const found = new Map<string, string>()
  for (let i = 0; i < k!.length; i++) {
    if (k![i] === "#") lines = v![i]! + "\n"
    else found.set(k![i]!, v![i]!)
  }
  return { lines, found }
}
const linesPart = (n: number): string =>
  `SELECT '#' AS key, arrayStringConcat(${PAGE}, '\\n') AS value FROM v3_pages WHERE mc_block_seqno = ${n}`
// The lookups' keys of each line apart, in a small key-value row per block (made here from `v3_pages` when missing):
// per line its state hashes not embedded and its book's addresses, in the row's line order.
const KEYS_TABLE = "bench_v3_page_keys"
if (variants.some((v) => v.startsWith("keys") || v === "parKeys")) {
  session.query(
    `CREATE TABLE IF NOT EXISTS ${KEYS_TABLE} (mc_block_seqno UInt32, keys Array(Array(String)))
     ENGINE = EmbeddedRocksDB PRIMARY KEY mc_block_seqno`
  )
  if (session.query(`SELECT count() FROM ${KEYS_TABLE}`, "TSV").trim() === "0") {
    const t = performance.now()
    session.query(
      `INSERT INTO ${KEYS_TABLE} SELECT mc_block_seqno, arrayMap(l -> arrayFilter(k -> k != '' AND NOT startsWith(k, '{'),
         arrayConcat(arraySlice(splitByChar('\\t', l, 3) AS f, 1, 2), splitByChar(' ', f[3]))), lines) FROM v3_pages`
    )
    console.log(`keys rows made in ${(performance.now() - t).toFixed(0)} ms`)
  }
}
const KEYS_ROW = `arrayDistinct(arrayFlatten(arraySlice(keys, 1, 40)))`
const lookupsIn = (n: number, from: string): string =>
  `SELECT key, value FROM account_lookups_kv WHERE key IN (${from} WHERE mc_block_seqno = ${n})
   SETTINGS enable_analyzer = 0 FORMAT Native`
const run: Record<string, (n: number) => Promise<Page>> = {
  two,
  // the lines and the lookups (keys from the lines inside the engine) as two statements at the same moment
  par: async (n) => {
    const [lines, found] = await Promise.all([
      linesOnly(n),
      lookupsOnly(lookupsIn(n, `SELECT arrayJoin(${KEYS}) FROM v3_pages`))
    ])
    return { lines, found }
  },
  // the same with the keys from the small keys row
  parKeys: async (n) => {
    const [lines, found] = await Promise.all([
      linesOnly(n),
      lookupsOnly(lookupsIn(n, `SELECT arrayJoin(${KEYS_ROW}) FROM ${KEYS_TABLE}`))
    ])
    return { lines, found }
  },
  // one statement: the lines and the lookups with their keys from the small keys row
  keysIn: (n) =>
    one(
      `${linesPart(n)} UNION ALL SELECT key, value FROM account_lookups_kv
       WHERE key IN (SELECT arrayJoin(${KEYS_ROW}) FROM ${KEYS_TABLE} WHERE mc_block_seqno = ${n})
       SETTINGS enable_analyzer = 0 FORMAT Native`
    ),
  // one statement: the lines and a direct join of the keys row's keys onto the lookups table
  keysJoin: (n) =>
    one(
      `${linesPart(n)} UNION ALL SELECT b.key, b.value
       FROM (SELECT arrayJoin(${KEYS_ROW}) AS k FROM ${KEYS_TABLE} WHERE mc_block_seqno = ${n}) AS a
       INNER JOIN account_lookups_kv AS b ON a.k = b.key
       SETTINGS join_algorithm = 'direct', enable_analyzer = 1 FORMAT Native`
    ),
  in: (n) =>
    one(
      `${linesPart(n)} UNION ALL SELECT key, value FROM account_lookups_kv
       WHERE key IN (SELECT arrayJoin(${KEYS}) FROM v3_pages WHERE mc_block_seqno = ${n})
       SETTINGS enable_analyzer = 0 FORMAT Native`
    ),
  inNew: (n) =>
    one(
      `${linesPart(n)} UNION ALL SELECT key, value FROM account_lookups_kv
       WHERE key IN (SELECT arrayJoin(${KEYS}) FROM v3_pages WHERE mc_block_seqno = ${n})
       SETTINGS enable_analyzer = 1 FORMAT Native`
    ),
  direct: (n) =>
    one(
      `${linesPart(n)} UNION ALL SELECT b.key, b.value
       FROM (SELECT arrayJoin(${KEYS}) AS k FROM v3_pages WHERE mc_block_seqno = ${n}) AS a
       INNER JOIN account_lookups_kv AS b ON a.k = b.key
       SETTINGS join_algorithm = 'direct', enable_analyzer = 1 FORMAT Native`
    )
}

let x = Number(process.env.BENCH_SEED ?? 12345)
const blocks = Array.from({ length: count }, () => {
  x = (x * 1103515245 + 12345) % 2 ** 31
  return stamp.first + (x % (stamp.last - stamp.first + 1))
})
console.log(`store ${dir} (blocks ${stamp.first}..${stamp.last}), variants ${variants.join(", ")}`)
const same = (a: Page, b: Page): boolean =>
  a.lines === b.lines && a.found.size === b.found.size && [...a.found].every(([k, v]) => b.found.get(k) === v)
const differ = new Map(variants.map((v) => [v, 0]))
for (let pass = 1; pass <= passes; pass++) {
  const wall = new Map(variants.map((v) => [v, [] as Array<number>]))
  const cpu = new Map(variants.map((v) => [v, 0]))
  const load0 = load()
  for (const [i, n] of blocks.entries()) {
    const order = i % 2 === 0 ? variants : [...variants].reverse()
    const answers = new Map<string, Page>()
    for (const v of order) {
      let c = process.cpuUsage()
      const t = performance.now()
      answers.set(v, await run[v]!(n))
      wall.get(v)!.push(performance.now() - t)
      c = process.cpuUsage(c)
      cpu.set(v, cpu.get(v)! + (c.user + c.system) / 1000)
    }
    for (const v of variants) if (!same(answers.get(v)!, answers.get(variants[0]!)!)) differ.set(v, differ.get(v)! + 1)
  }
  console.log(`  pass ${pass} (load ${load0} -> ${load()}):`)
  for (const v of variants) {
    const w = wall.get(v)!
    console.log(
      `    ${v.padEnd(7)} wall p50 ${quantile(w, 0.5).toFixed(3)} ms  p90 ${quantile(w, 0.9).toFixed(3)} ms` +
        `  CPU ${(cpu.get(v)! / blocks.length).toFixed(3)} ms per page`
    )
  }
}
console.log(`  pages differing from ${variants[0]}: ${[...differ].map(([v, d]) => `${v} ${d}`).join(", ")}`)
session.close()
