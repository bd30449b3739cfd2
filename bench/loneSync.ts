// A lone v3 page's two statements (its lines from `v3_pages`, then the `account_lookups_kv` multi-get by the keys cut
// from them) through the chdb binding's asynchronous call (a libuv pool thread runs the engine; the lookups in Native
// output, as the store sends them) against its synchronous one (the calling thread runs it; the lookups as
// tab-separated text, since that call reads the output up to its first NUL byte), the two alternating page by page
// over BENCH_BLOCKS (200) random blocks of a copy of a store kept by `bench:ingest --store` (BENCH_STORE_DIR), one
// session with the API's settings, BENCH_GAP (5) ms asleep before each page (a lone request's statements come after a
// gap). Prints per variant the page's wall p50 (and each statement's) and this process's CPU per page; numbers are
// printed, never asserted.
//   BENCH_STORE_DIR=<copy> [BENCH_BLOCKS=200] [BENCH_GAP=5] nice -n 5 npx tsx bench/loneSync.ts
import { Session } from "chdb"
import { loadavg } from "node:os"
import { sessionSetup } from "../src/store/readers.js"
import { strKeys } from "../src/store/sql.js"
import { benchStore } from "./lib/store.js"

const { dir, database, stamp } = benchStore()
const count = Number(process.env.BENCH_BLOCKS ?? 200)
const gap = Number(process.env.BENCH_GAP ?? 5)
const session = new Session(dir)
for (const statement of sessionSetup(database)) session.query(statement)
const linesSql = (n: number): string =>
  `SELECT mc_block_seqno, length(arraySlice(lines, 1, 40) AS page), arrayStringConcat(page, '\\n') FROM v3_pages
   WHERE mc_block_seqno IN [${n}] SETTINGS enable_analyzer = 0 FORMAT TabSeparatedRaw`
const lookupsSql = (keys: Array<string>, format: string): string =>
  `SELECT key, value FROM account_lookups_kv WHERE key IN ${strKeys(keys)} SETTINGS enable_analyzer = 0 FORMAT ${format}`
const keysOf = (text: string): Array<string> => {
  const keys = new Set<string>()
  const lines = text.split("\n")
  lines[0] = lines[0]!.split("\t").slice(2).join("\t")
  for (const l of lines) {
    const f = l.split("\t")
    if (f.length < 4) continue
    keys.add(f[0]!)
    keys.add(f[1]!)
    for (const a of f[2]!.split(" ")) if (a) keys.add(a)
  }
  return [...keys]
}
let x = 12345
const block = (): number => {
  x = (x * 1103515245 + 12345) % 2 ** 31
  return stamp.first + (x % (stamp.last - stamp.first + 1))
}
const q = (a: number[]) => [...a].sort((p, r) => p - r)
const res: Record<string, { wall: number[]; l: number[]; k: number[]; cpu: number }> = {}
const variants = ["async", "sync"]
for (const v of variants) res[v] = { wall: [], l: [], k: [], cpu: 0 }
for (let i = 0; i < count; i++) {
  const b = block()
  for (const v of i % 2 === 0 ? variants : [...variants].reverse()) {
    await new Promise((r) => setTimeout(r, gap))
    const c0 = process.cpuUsage()
    const t0 = performance.now()
    let text: string
    let t1: number
    if (v === "async") {
      text = (await session.queryAsync(linesSql(b), { format: "TabSeparatedRaw" })).text()
      t1 = performance.now()
      const keys = keysOf(text)
      ;(await session.queryAsync(lookupsSql(keys, "Native"), { format: "Native" })).bytes()
    } else {
      text = session.query(linesSql(b), "TabSeparatedRaw")
      t1 = performance.now()
      const keys = keysOf(text)
      session.query(lookupsSql(keys, "TabSeparatedRaw"), "TabSeparatedRaw")
    }
    const t2 = performance.now()
    const c = process.cpuUsage(c0)
    res[v]!.wall.push(t2 - t0)
    res[v]!.l.push(t1 - t0)
    res[v]!.k.push(t2 - t1)
    res[v]!.cpu += (c.user + c.system) / 1000
  }
}
const med = (a: number[]) => q(a)[Math.floor(a.length / 2)]!.toFixed(2)
console.log(`load ${loadavg()[0]!.toFixed(2)}`)
for (const v of variants) {
  const r = res[v]!
  console.log(`${v}: page wall p50 ${med(r.wall)} (lines ${med(r.l)}, lookups ${med(r.k)}) ms, cpu ${(r.cpu / count).toFixed(2)} ms/page`)
}
session.close()
