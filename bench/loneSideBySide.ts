// A lone uncached v3 page on a filled store (`account_lookups_kv`, sql/0142): its two statements one after the other,
// as the store runs them (the page's lines from `v3_pages`, then one multi-get of the keys cut from them in Node),
// against the two side by side on two sessions, the lookups taking their keys without waiting for the lines: cut in
// SQL from the same `v3_pages` row (by `IN (subquery)`, or by the engine's direct key-value join), or read from a
// scratch table of each block's line keys (`bench_v3_page_keys`, made here from `v3_pages` if missing: what a key
// table kept at ingest would hold). Over a copy of a store kept by `bench:ingest --store` (BENCH_STORE_DIR: the engine
// writes to it), sessions with the API's settings, BENCH_BLOCKS (300) random masterchain blocks, pages of 40 newest
// first with the address book; BENCH_VARIANTS picks variants by name ("|"-separated). Variants alternate page by
// page (so they share the machine's load) and must find the same lines and lookup rows. Prints per variant the
// median and p90 wall per page and this process's CPU per page (engine threads included); never asserts a number.
import { Session } from "chdb"
import { load, quantile } from "./lib/stats.js"
import { nativeStringColumns } from "../src/store/native.js"
import { sessionSetup } from "../src/store/readers.js"
import { strKeys } from "../src/store/sql.js"
import { pageKeys } from "./lib/pageKeys.js"
import { benchStore } from "./lib/store.js"

const { dir, database, stamp } = benchStore()
const count = Number(process.env.BENCH_BLOCKS ?? 300)

const open = (): Session => {
  const s = new Session(dir)
  for (const statement of sessionSetup(database)) s.query(statement)
  return s
}
const [a, b] = [open(), open()]
const bytes = async (s: Session, sql: string): Promise<Buffer> => {
  const r = (await s.queryAsync(sql, { format: "TabSeparatedRaw" })).bytes()
  return Buffer.from(r.buffer, r.byteOffset, r.byteLength)
}

if (a.query("SELECT count() FROM account_lookups_kv WHERE key = ''", "CSV").trim() !== "1")
  throw new Error("BENCH_STORE_DIR: account_lookups_kv is not filled (run `npm run migrate` on the copy first)")
if (a.query("EXISTS TABLE bench_v3_page_keys", "CSV").trim() !== "1") {
  const t0 = performance.now()
  a.query(`CREATE TABLE bench_v3_page_keys (mc_block_seqno UInt32, keys Array(String))
           ENGINE = EmbeddedRocksDB PRIMARY KEY mc_block_seqno`)
  a.query(`INSERT INTO bench_v3_page_keys SELECT mc_block_seqno,
             arrayMap(l -> arrayStringConcat(arrayFilter(k -> k != '', splitByChar('\\t', l, 3)), ' '), lines)
           FROM v3_pages SETTINGS splitby_max_substrings_includes_remaining_string = 0`)
  console.log(`made bench_v3_page_keys in ${(performance.now() - t0).toFixed(0)} ms`)
}

const page = "arraySlice(lines, 1, 40)"
const linesSql = (n: number): string =>
  `SELECT mc_block_seqno, length(${page} AS page), arrayStringConcat(page, '\\n') FROM v3_pages
   WHERE mc_block_seqno IN [${n}] SETTINGS enable_analyzer = 0 FORMAT TabSeparatedRaw`
const native = (sql: string): string => `${sql} FORMAT Native`

/** A page's lines, and every key found with its value. */
interface Answer {
  readonly lines: string
  readonly values: Map<string, string>
}
const lineText = (t: Buffer): string => {
  const s = t.toString("utf8")
  return s.slice(s.indexOf("\t", s.indexOf("\t") + 1) + 1)
}
const kv = (t: Buffer): Map<string, string> => {
  const [k, v] = nativeStringColumns(t, 2)
  return new Map(k!.map((key, i) => [key, v![i]!]))
}
const canonical = (x: Answer): string => JSON.stringify([x.lines, [...x.values].sort()])

// how long the binding's call of the lines statement held this thread in the "in a row" variant, per page
const held: Array<number> = []
// today: the lines, then their keys cut here (as the store cuts them) in one split literal
const inARow = async (n: number): Promise<Answer> => {
  const t0 = performance.now()
  const first = bytes(a, linesSql(n))
  held.push(performance.now() - t0)
  const lines = lineText(await first)
  const { hashes, book } = pageKeys(lines)
  const values = kv(
    await bytes(
      b,
      native(`SELECT key, value FROM account_lookups_kv WHERE key IN ${strKeys([...hashes, ...book])}
              SETTINGS enable_analyzer = 0`)
    )
  )
  return { lines, values }
}

// the page's keys (state hashes, book addresses: a line's first three fields) cut in SQL from a `lines` slice
const keysIn = (slice: string): string =>
  `arrayDistinct(arrayFilter(k -> k != '', splitByChar(' ', arrayStringConcat(
     arrayMap(x -> arrayStringConcat(splitByChar('\\t', x, 3), ' '), ${slice}), ' '))))`
const SPLIT = "splitby_max_substrings_includes_remaining_string = 0"

// how long the binding's call of the first statement of a side-by-side pair held this thread, per pair
const submitted: Array<number> = []
const sideBySide =
  (lookups: (n: number) => string) =>
  async (n: number): Promise<Answer> => {
    // the lookups first (the longer statement); the binding's call returns once the engine took the statement, so
    // the lines go out only after that
    const t0 = performance.now()
    const v = bytes(b, native(lookups(n)))
    submitted.push(performance.now() - t0)
    const [l, vs] = await Promise.all([bytes(a, linesSql(n)), v])
    return { lines: lineText(l), values: kv(vs) }
  }

// the lookups statements that take their own keys, by name
const ownKeys: Record<string, (n: number) => string> = {
  "IN (subquery) of the row": (n) => `SELECT key, value FROM account_lookups_kv WHERE key IN (
      SELECT arrayJoin(${keysIn(page)}) FROM v3_pages WHERE mc_block_seqno = ${n})
    SETTINGS enable_analyzer = 0, ${SPLIT}`,
  "direct join of the row": (n) => `SELECT k, l.value FROM v3_pages ARRAY JOIN ${keysIn(page)} AS k
    INNER JOIN account_lookups_kv AS l ON k = l.key
    WHERE mc_block_seqno = ${n}
    SETTINGS enable_analyzer = 0, join_algorithm = 'direct', ${SPLIT}`,
  "IN (subquery) of stored keys": (n) => `SELECT key, value FROM account_lookups_kv WHERE key IN (
      SELECT arrayJoin(splitByChar(' ', arrayStringConcat(arraySlice(keys, 1, 40), ' ')))
      FROM bench_v3_page_keys WHERE mc_block_seqno = ${n})
    SETTINGS enable_analyzer = 0`,
  "direct join of stored keys": (n) => `SELECT k, l.value FROM bench_v3_page_keys
    ARRAY JOIN arrayDistinct(splitByChar(' ', arrayStringConcat(arraySlice(keys, 1, 40), ' '))) AS k
    INNER JOIN account_lookups_kv AS l ON k = l.key
    WHERE mc_block_seqno = ${n}
    SETTINGS enable_analyzer = 0, join_algorithm = 'direct'`
}

const variants: Record<string, (n: number) => Promise<Answer>> = { "in a row": inARow }
for (const [name, sql] of Object.entries(ownKeys)) variants[`side by side, ${name}`] = sideBySide(sql)
variants["lines alone"] = async (n) => ({ lines: lineText(await bytes(a, linesSql(n))), values: new Map() })
// the statements one at a time: the keys cut here beforehand (not timed), or taken by the statement itself
const literalKeys = new Map<number, string>()
const literal = async (n: number): Promise<string> => {
  let keys = literalKeys.get(n)
  if (keys === undefined) {
    const { hashes, book } = pageKeys(lineText(await bytes(a, linesSql(n))))
    literalKeys.set(n, (keys = strKeys([...hashes, ...book])))
  }
  return keys
}
variants["lookups alone, literal keys"] = async (n) => {
  const keys = await literal(n)
  const c = process.cpuUsage()
  const t = performance.now()
  const v = kv(
    await bytes(
      b,
      native(`SELECT key, value FROM account_lookups_kv WHERE key IN ${keys} SETTINGS enable_analyzer = 0`)
    )
  )
  untimed = [performance.now() - t, process.cpuUsage(c)]
  return { lines: "", values: v }
}
for (const [name, sql] of Object.entries(ownKeys))
  variants[`lookups alone, ${name}`] = async (n) => ({ lines: "", values: kv(await bytes(b, native(sql(n)))) })
// what a variant reports of its own timing instead of the call's (the literal keys' cut is not the statement's)
let untimed: [number, NodeJS.CpuUsage] | undefined
const partial = new Set(Object.keys(variants).filter((name) => name.includes("alone")))
const only = process.env.BENCH_VARIANTS?.split("|").map((n) => n.trim())
const chosen = Object.entries(variants).filter(([name]) => only === undefined || only.includes(name))

let x = 12345
const blocks = Array.from({ length: count }, () => {
  x = (x * 1103515245 + 12345) % 2 ** 31
  return stamp.first + (x % (stamp.last - stamp.first + 1))
})
for (const [, f] of chosen) for (const n of blocks.slice(0, 5)) await f(n)
console.log(`lone v3 page (limit 40, desc, with the book), ${count} blocks, load before ${load()}`)
const wall = chosen.map(() => [] as Array<number>)
const cpu = chosen.map(() => 0)
for (let i = 0; i < blocks.length; i++) {
  const n = blocks[i]!
  let first: string | undefined
  for (let k = 0; k < chosen.length; k++) {
    const j = (i + k) % chosen.length
    const c0 = process.cpuUsage()
    const t0 = performance.now()
    untimed = undefined
    const answer = await chosen[j]![1](n)
    wall[j]!.push(untimed?.[0] ?? performance.now() - t0)
    const c = untimed?.[1] ?? process.cpuUsage(c0)
    cpu[j]! += (c.user + c.system) / 1000
    if (partial.has(chosen[j]![0])) continue
    const got = canonical(answer)
    if (first === undefined) first = got
    else if (got !== first) throw new Error(`${chosen[j]![0]}: another answer for block ${n}`)
  }
}
chosen.forEach(([name], j) =>
  console.log(
    `  ${name.padEnd(46)} wall p50 ${quantile(wall[j]!, 0.5).toFixed(3)} ms  p90 ${quantile(wall[j]!, 0.9).toFixed(3)} ms` +
      `  CPU ${(cpu[j]! / count).toFixed(3)} ms per page`
  )
)
if (held.length > 0)
  console.log(
    `  in a row: the lines statement's call held this thread p50 ${quantile(held, 0.5).toFixed(3)} ms, ` +
      `p90 ${quantile(held, 0.9).toFixed(3)} ms (${held.length} pages)`
  )
if (submitted.length > 0)
  console.log(
    `  side by side: the first statement's call held this thread p50 ${quantile(submitted, 0.5).toFixed(3)} ms, ` +
      `p90 ${quantile(submitted, 0.9).toFixed(3)} ms (${submitted.length} pairs)`
  )
console.log(`load after ${load()}`)
a.close()
b.close()
