// A v3 page's reads on a filled store (`account_lookups_kv`, sql/0142): the store's two statements (the page's lines
// from its `v3_pages` row, then one multi-get of the keys cut from them here, as src/store/Store.ts cuts them) against
// ONE statement: the keys cut from the lines in SQL, array-joined beside the lines and left-joined onto the table by
// the engine's direct (key-value) join, planned by the former analyzer and by the new one (measured, not built:
// BENCHMARKS.md, 2026-11-27). Over a store kept by `bench:ingest --store` (BENCH_STORE_DIR; a copy: the engine writes
// to it), for BENCH_BLOCKS (200) random masterchain blocks, pages of 40 newest first with the address book,
// BENCH_GROUPS ("1,16") pages per statement set (what the store's shared statements make of concurrent pages; 1 is a
// lone page). BENCH_VARIANTS picks variants by name (comma-separated). Variants alternate set by set, so they share
// the machine's load, and must return the same lines and lookup rows. Prints per variant the median wall per set and
// this process's CPU (engine threads included) per set and per page; numbers are printed, never asserted.
import { Session } from "chdb"
import { loadavg } from "node:os"
import { sessionSetup } from "../src/store/readers.js"
import { strArray } from "../src/store/sql.js"
import { pageKeys } from "./lib/pageKeys.js"
import { benchStore } from "./lib/store.js"

const { dir, database, stamp } = benchStore()
const count = Number(process.env.BENCH_BLOCKS ?? 200)
const groups = (process.env.BENCH_GROUPS ?? "1,16").split(",").map(Number)
const median = (xs: ReadonlyArray<number>): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!
const load = (): string =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(" ")

const session = new Session(dir)
for (const statement of sessionSetup(database)) session.query(statement)
const text = async (sql: string): Promise<string> =>
  (await session.queryAsync(sql, { format: "TabSeparatedRaw" })).text()

let x = 12345
const blocks = Array.from({ length: count * Math.max(...groups) }, () => {
  x = (x * 1103515245 + 12345) % 2 ** 31
  return stamp.first + (x % (stamp.last - stamp.first + 1))
})
const page = "arraySlice(lines, 1, 40)"

/** Per block its page's lines, and every key found with its value. */
interface Answer {
  readonly lines: Map<number, Array<string>>
  readonly values: Map<string, string>
}
const sorted = (a: Answer): string => JSON.stringify([[...a.lines].sort(), [...a.values].sort()])

const two = async (seqnos: ReadonlyArray<number>): Promise<Answer> => {
  const rows = await text(
    `SELECT mc_block_seqno, length(${page} AS page), arrayStringConcat(page, '\\n') FROM v3_pages
     WHERE mc_block_seqno IN [${seqnos.join(",")}] SETTINGS enable_analyzer = 0 FORMAT TabSeparatedRaw`
  )
  const lines = new Map<number, Array<string>>()
  const keys = new Set<string>()
  let at = 0
  while (at < rows.length) {
    const t1 = rows.indexOf("\t", at)
    const t2 = rows.indexOf("\t", t1 + 1)
    const seqno = Number(rows.slice(at, t1))
    const n = Number(rows.slice(t1 + 1, t2))
    const own: Array<string> = []
    at = t2 + 1
    if (n === 0) at++
    for (let i = 0; i < n; i++) {
      const nl = rows.indexOf("\n", at)
      own.push(rows.slice(at, nl))
      at = nl + 1
    }
    lines.set(seqno, own)
    const k = pageKeys(own.join("\n"))
    for (const h of k.hashes) keys.add(h)
    for (const b of k.book) keys.add(b)
  }
  const values = new Map<string, string>()
  const got = await text(
    `SELECT key, value FROM account_lookups_kv WHERE key IN ${strArray([...keys])}
     SETTINGS enable_analyzer = 0 FORMAT TabSeparatedRaw`
  )
  for (const line of got.split("\n")) {
    if (line === "") continue
    const tab = line.indexOf("\t")
    values.set(line.slice(0, tab), line.slice(tab + 1))
  }
  return { lines, values }
}

// The one statement, for pages of one shape with the address book. The keys (state hashes, book addresses: each line
// `state_before \t state_after \t book \t v3`) are cut in SQL, the empty key (the table's filled marker) first so
// a row with an empty page still answers; keys and lines are array-joined side by side (the shorter padded with '')
// and each key left-joined onto the table by the direct join: a multi-get of the left rows' keys, no right-hand
// pipeline or hash table. Per output row: block, found, key, value, line ('' past the page's end).
const keysOf = `arrayDistinct(arrayFilter(k -> k != '', splitByChar(' ', arrayStringConcat(
  arrayMap(x -> arrayStringConcat(splitByChar('\\t', x, 3), ' '), ${page}), ' '))))`
const one =
  (analyzer: number) =>
  async (seqnos: ReadonlyArray<number>): Promise<Answer> => {
    const rows = await text(
      `SELECT mc_block_seqno, notEmpty(l.key), k, l.value, line FROM v3_pages
       ARRAY JOIN arrayPushFront(${keysOf}, '') AS k, ${page} AS line
       LEFT JOIN account_lookups_kv AS l ON k = l.key
       WHERE mc_block_seqno IN [${seqnos.join(",")}]
       SETTINGS enable_analyzer = ${analyzer}, enable_unaligned_array_join = 1, join_algorithm = 'direct',
                splitby_max_substrings_includes_remaining_string = 0
       FORMAT TabSeparatedRaw`
    )
    const lines = new Map<number, Array<string>>()
    const values = new Map<string, string>()
    let at = 0
    while (at < rows.length) {
      const t1 = rows.indexOf("\t", at)
      const t2 = rows.indexOf("\t", t1 + 1)
      const t3 = rows.indexOf("\t", t2 + 1)
      const t4 = rows.indexOf("\t", t3 + 1)
      let nl = rows.indexOf("\n", t4 + 1)
      if (nl < 0) nl = rows.length
      const seqno = Number(rows.slice(at, t1))
      let own = lines.get(seqno)
      if (own === undefined) lines.set(seqno, (own = []))
      if (rows[t1 + 1] === "1" && t3 > t2 + 1) values.set(rows.slice(t2 + 1, t3), rows.slice(t3 + 1, t4))
      if (nl > t4 + 1) own.push(rows.slice(t4 + 1, nl))
      at = nl + 1
    }
    return { lines, values }
  }

const variants: Record<string, (seqnos: ReadonlyArray<number>) => Promise<Answer>> = {
  "two statements": two,
  "one (former analyzer)": one(0),
  "one (analyzer)": one(1)
}
const only = process.env.BENCH_VARIANTS?.split(",").map((n) => n.trim())
const chosen = Object.entries(variants).filter(([name]) => only === undefined || only.includes(name))
for (const [, f] of chosen) for (let i = 0; i < 5; i++) await f([blocks[i]!])
for (const size of groups) {
  const runs = Math.max(20, Math.floor(count / size) * (size === 1 ? 1 : 4))
  console.log(`${size} page(s) per statement set, ${runs} sets, load before ${load()}`)
  const wall = chosen.map(() => [] as Array<number>)
  const cpu = chosen.map(() => 0)
  for (let i = 0; i < runs; i++) {
    const from = (i * size) % blocks.length
    const seqnos = blocks.slice(from, from + size)
    const answers: Array<string> = []
    for (let k = 0; k < chosen.length; k++) {
      const j = (i + k) % chosen.length
      const c0 = process.cpuUsage()
      const t0 = performance.now()
      const answer = await chosen[j]![1](seqnos)
      wall[j]!.push(performance.now() - t0)
      const c = process.cpuUsage(c0)
      cpu[j]! += (c.user + c.system) / 1000
      answers[j] = sorted(answer)
    }
    if (answers.some((a) => a !== answers[0])) throw new Error(`variants differ on blocks ${seqnos.join(",")}`)
  }
  chosen.forEach(([name], j) =>
    console.log(
      `  ${name.padEnd(22)} wall p50 ${median(wall[j]!).toFixed(3)} ms  CPU ${(cpu[j]! / runs).toFixed(3)} ms per set, ` +
        `${(cpu[j]! / runs / size).toFixed(3)} ms per page`
    )
  )
}
console.log(`load after ${load()}`)
session.close()
