// A lone uncached v3 page (limit 40, newest first, with the address book): its two statements one after the other, as
// the store runs them (the page's lines from `v3_pages`, then the states and code rows by the keys cut from them in
// Node), against the two at once on two sessions, the lookups taking their keys from the same `v3_pages` row in the
// engine (`IN (subquery)`), so neither waits for the other. Over a store kept by `bench:ingest --store`
// (BENCH_STORE_DIR), in this process, sessions with the API's settings; BENCH_BLOCKS random masterchain blocks (default
// 100), the two ways alternating block by block. Prints the median wall time per page and this whole process's CPU
// per page (engine threads included); numbers are printed, never asserted.
import { Session } from "chdb"
import { readFileSync } from "node:fs"
import { loadavg } from "node:os"
import { sessionSetup } from "../src/store/readers.js"
import { strArray } from "../src/store/sql.js"
import { pageKeys } from "./lib/pageKeys.js"

const dir = process.env.BENCH_STORE_DIR
if (dir === undefined) throw new Error("BENCH_STORE_DIR: a store kept by `npm run bench:ingest -- --store DIR`")
const database = process.env.CLICKHOUSE_DATABASE ?? "ton"
const count = Number(process.env.BENCH_BLOCKS ?? 100)
const stamp = JSON.parse(readFileSync(`${dir}/bench-store.json`, "utf8")) as { first: number; last: number }
const median = (xs: Array<number>): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!

const open = (): Session => {
  const s = new Session(dir)
  for (const statement of sessionSetup(database)) s.query(statement)
  return s
}
const [one, two] = [open(), open()]
// the statements measured here read `account_states_kv`, which sql/0143 dropped: they need a store from before it
if (
  one
    .query("SELECT count() FROM system.tables WHERE database = currentDatabase() AND name = 'account_states_kv'", "CSV")
    .trim() !== "1"
)
  throw new Error(
    "BENCH_STORE_DIR: this bench reads account_states_kv, dropped by sql/0143; use a copy of a store from before it"
  )
const run = async (s: Session, sql: string): Promise<Uint8Array> =>
  (await s.queryAsync(sql, { format: "TabSeparatedRaw" })).bytes()

const pageSql = (n: number): string =>
  `SELECT mc_block_seqno, length(arraySlice(lines, 1, 40) AS page), arrayStringConcat(page, '\\n') FROM v3_pages
   WHERE mc_block_seqno IN [${n}] SETTINGS enable_analyzer = 0 FORMAT TabSeparatedRaw`

const lookupsSql = (hashes: Array<string>, book: Array<string>): string =>
  `SELECT 0 AS kind, hash AS key, toUInt32(0) AS mc, state FROM account_states_kv WHERE hash IN ${strArray(hashes)}
   UNION ALL
   SELECT 1, account, mc_seqno, ifNull(toString(code_hash), '') FROM latest_account_code WHERE account IN ${strArray(book)}
   SETTINGS enable_analyzer = 0 FORMAT TabSeparatedRaw`

// the same rows, their keys cut in the engine from the page's lines (before, after, book: a line's first 3 fields)
const lookupsFromRowSql = (n: number): string =>
  `SELECT 0 AS kind, hash AS key, toUInt32(0) AS mc, state FROM account_states_kv WHERE hash IN (
     SELECT arrayJoin(arrayFlatten(arrayMap(l -> arraySlice(splitByChar('\\t', l, 3), 1, 2), arraySlice(lines, 1, 40))))
     FROM v3_pages WHERE mc_block_seqno = ${n})
   UNION ALL
   SELECT 1, account, mc_seqno, ifNull(toString(code_hash), '') FROM latest_account_code WHERE account IN (
     SELECT arrayJoin(splitByChar(' ', arrayStringConcat(arrayMap(l -> splitByChar('\\t', l, 3)[3], arraySlice(lines, 1, 40)), ' ')))
     FROM v3_pages WHERE mc_block_seqno = ${n})
   SETTINGS enable_analyzer = 0 FORMAT TabSeparatedRaw`

const sequential = async (n: number): Promise<number> => {
  const text = Buffer.from(await run(one, pageSql(n))).toString("utf8")
  const { hashes, book } = pageKeys(text.slice(text.indexOf("\t", text.indexOf("\t") + 1) + 1))
  return (await run(two, lookupsSql([...hashes], [...book]))).length
}

const concurrent = async (n: number): Promise<number> => {
  const [, rows] = await Promise.all([run(one, pageSql(n)), run(two, lookupsFromRowSql(n))])
  return rows.length
}

let x = 12345
const blocks = Array.from({ length: count }, () => {
  x = (x * 1103515245 + 12345) % 2 ** 31
  return stamp.first + (x % (stamp.last - stamp.first + 1))
})
// both ways must find the same rows
for (const n of blocks.slice(0, 5)) {
  const [a, b] = [await sequential(n), await concurrent(n)]
  if (a !== b) throw new Error(`block ${n}: ${a} bytes of lookups one way, ${b} the other`)
}
const ways = { sequential, concurrent }
const wall: Record<string, Array<number>> = { sequential: [], concurrent: [] }
const cpu: Record<string, number> = { sequential: 0, concurrent: 0 }
for (const n of blocks) {
  for (const name of n % 2 === 0 ? (["sequential", "concurrent"] as const) : (["concurrent", "sequential"] as const)) {
    const c0 = process.cpuUsage()
    const t0 = performance.now()
    await ways[name](n)
    wall[name]!.push(performance.now() - t0)
    const c = process.cpuUsage(c0)
    cpu[name]! += (c.user + c.system) / 1000
  }
}
console.log(`lone v3 page, ${count} blocks, load ${loadavg()[0]!.toFixed(1)}`)
for (const name of ["sequential", "concurrent"]) {
  console.log(
    `${name.padEnd(11)} wall p50 ${median(wall[name]!).toFixed(2)} ms  cpu ${(cpu[name]! / count).toFixed(2)} ms per page`
  )
}
one.close()
two.close()
