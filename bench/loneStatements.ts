// A lone statement's wall time and CPU on the API's native sessions, over a store kept by `bench:ingest --store`
// (BENCH_STORE_DIR; a copy: the engine writes to it): floors (`SELECT 1`, a key lookup that finds nothing), the
// statements of a lone page (a v2 row, a v3 page's lines, its lookups, a marker check) for BENCH_BLOCKS (200) random
// masterchain blocks, the same row asked again (the engine's caches warm), the v2 row as the default analyzer plans
// it, and the lookups' keys all in one key-value read (`account_lookups_kv`, sql/0142, where the store has it; else
// `account_states_kv`: what a single-table lookup costs). BENCH_VARIANTS lists ways to run them,
// separated by "|": `async` (queryAsync, as the API) or `sync` (query, on this thread), optionally followed by ":" and
// settings the variant's own session gets beyond the API's ("async|sync|async:SET enable_analyzer = 0"). Variants
// alternate statement by statement, so they share the machine's load; BENCH_STATEMENTS picks statements by name
// (comma-separated). Prints per statement and variant the median wall and this process's CPU (engine threads
// included) per statement; numbers are printed, never asserted.
import { Session } from "chdb"
import { loadavg } from "node:os"
import { sessionSetup } from "../src/store/readers.js"
import { strArray } from "../src/store/sql.js"
import { pageKeys as keysOfLines } from "./lib/pageKeys.js"
import { benchStore } from "./lib/store.js"

const { dir, database, stamp } = benchStore()
const count = Number(process.env.BENCH_BLOCKS ?? 200)
const median = (xs: ReadonlyArray<number>): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!

const open = (extra: ReadonlyArray<string>): Session => {
  const s = new Session(dir)
  for (const statement of [...sessionSetup(database), ...extra]) s.query(statement)
  return s
}
const variants = (process.env.BENCH_VARIANTS ?? "async|sync").split("|").map((v) => {
  const [way, settings = ""] = v.split(/:(.*)/s)
  if (way !== "async" && way !== "sync") throw new Error(`BENCH_VARIANTS: ${v}`)
  const extra = settings
    .split(";")
    .map((x) => x.trim())
    .filter((x) => x !== "")
  return { label: v, way, session: open(extra) }
})
const run = async (v: (typeof variants)[number], sql: string): Promise<number> =>
  v.way === "sync"
    ? v.session.query(sql, "TabSeparatedRaw").length
    : (await v.session.queryAsync(sql, { format: "TabSeparatedRaw" })).bytes().length

let x = 12345
const blocks = Array.from({ length: count }, () => {
  x = (x * 1103515245 + 12345) % 2 ** 31
  return stamp.first + (x % (stamp.last - stamp.first + 1))
})
const s = variants[0]!.session
const v2Keys = s
  .query(
    `SELECT block FROM v2_pages WHERE mc_block_seqno IN (${blocks.join(",")}) LIMIT 1 BY mc_block_seqno`,
    "TabSeparatedRaw"
  )
  .trim()
  .split("\n")
// the store's statements as of this tree (src/store/Store.ts), for a page of 40, newest first, with the address book
const v2Row = (key: string, settings = "SETTINGS enable_analyzer = 0"): string =>
  `SELECT block, mc_block_seqno, root_hash, file_hash, keys, countSubstrings(v2, '\\n'), v2 FROM v2_pages
   WHERE block IN ['${key}'] ${settings} FORMAT TabSeparatedRaw`
const v3Page = (n: number): string =>
  `SELECT mc_block_seqno, length(arraySlice(lines, 1, 40) AS page), arrayStringConcat(page, '\\n') FROM v3_pages
   WHERE mc_block_seqno IN [${n}] SETTINGS enable_analyzer = 0 FORMAT TabSeparatedRaw`
const pageKeys = blocks.map((n) => {
  const text = s.query(v3Page(n), "TabSeparatedRaw")
  return keysOfLines(text.slice(text.indexOf("\t", text.indexOf("\t") + 1) + 1))
})
// the lookups as main read them before sql/0142 (the union of the two key-value tables), and as one read of
// `account_lookups_kv` (sql/0142) on a store that has it; else the same keys in one read of `account_states_kv` (what a
// single-table lookup costs, not an answer)
const lookups = pageKeys.map(
  ({ hashes, book }) =>
    `SELECT 0 AS kind, hash AS key, toUInt32(0) AS mc, state FROM account_states_kv WHERE hash IN ${strArray([...hashes])}
   UNION ALL
   SELECT 2, account, mc_seqno, ifNull(toString(code_hash), '') FROM account_code_kv
   WHERE account IN ${strArray([...book])}
   SETTINGS enable_analyzer = 0 FORMAT TabSeparatedRaw`
)
const hasTable = (name: string): boolean =>
  s.query(`SELECT count() FROM system.tables WHERE database = currentDatabase() AND name = '${name}'`, "CSV").trim() ===
  "1"
const hasLookupsKv = hasTable("account_lookups_kv")
// sql/0143 dropped the two tables the union reads: a store migrated past it has only the one-table read
const hasUnion = hasTable("account_states_kv") && hasTable("account_code_kv")
if (!hasUnion)
  console.log("v3 lookups (the union of account_states_kv and account_code_kv): not on this store (sql/0143)")
const lookupsOneTable = pageKeys.map(({ hashes, book }) =>
  hasLookupsKv
    ? `SELECT key, value FROM account_lookups_kv WHERE key IN ${strArray([...hashes, ...book])}
       SETTINGS enable_analyzer = 0 FORMAT TabSeparatedRaw`
    : `SELECT 0 AS kind, hash AS key, toUInt32(0) AS mc, state FROM account_states_kv
       WHERE hash IN ${strArray([...hashes, ...book])}
       SETTINGS enable_analyzer = 0 FORMAT TabSeparatedRaw`
)
const statements: Record<string, (i: number) => string> = {
  "select 1": () => "SELECT 1 FORMAT TabSeparatedRaw",
  "kv lookup of no row": (i) => `SELECT block, v2 FROM v2_pages WHERE block IN ['none:${i}'] FORMAT TabSeparatedRaw`,
  "v2 row": (i) => v2Row(v2Keys[i % v2Keys.length]!),
  "v2 row again": () => v2Row(v2Keys[0]!),
  // before 2026-11-26: planned by the engine's default analyzer
  "v2 row new analyzer": (i) => v2Row(v2Keys[i % v2Keys.length]!, ""),
  "v3 page": (i) => v3Page(blocks[i]!),
  "v3 page again": () => v3Page(blocks[0]!),
  ...(hasUnion ? { "v3 lookups": (i: number) => lookups[i]! } : {}),
  "v3 lookups one table": (i) => lookupsOneTable[i]!,
  "marker check": (i) =>
    `SELECT mc_seqno AS s FROM mc_blocks_done WHERE mc_seqno IN [${blocks[i]}] FORMAT TabSeparatedRaw`
}
const only = process.env.BENCH_STATEMENTS?.split(",").map((n) => n.trim())
for (const v of variants) for (const f of Object.values(statements)) for (let i = 0; i < 5; i++) await run(v, f(i))
console.log(
  `lone statements, ${count} blocks, load before ${loadavg()
    .map((l) => l.toFixed(2))
    .join(" ")}`
)
for (const [name, f] of Object.entries(statements)) {
  if (only !== undefined && !only.includes(name)) continue
  const wall = variants.map(() => [] as Array<number>)
  const cpu = variants.map(() => 0)
  const bytes = variants.map(() => 0)
  for (let i = 0; i < count; i++) {
    for (let k = 0; k < variants.length; k++) {
      const j = (i + k) % variants.length
      const c0 = process.cpuUsage()
      const t0 = performance.now()
      bytes[j]! += await run(variants[j]!, f(i))
      wall[j]!.push(performance.now() - t0)
      const c = process.cpuUsage(c0)
      cpu[j]! += (c.user + c.system) / 1000
    }
  }
  variants.forEach((v, j) =>
    console.log(
      `${name.padEnd(20)} wall p50 ${median(wall[j]!).toFixed(3)} ms  CPU ${(cpu[j]! / count).toFixed(3)} ms  ` +
        `mean output ${(bytes[j]! / count / 1024).toFixed(1)} KiB  [${v.label}]`
    )
  )
}
console.log(
  `load after ${loadavg()
    .map((l) => l.toFixed(2))
    .join(" ")}`
)
for (const v of variants) v.session.close()
