// The v3 page's lookups statement (account states and code rows by the keys cut from the page's lines) with its key
// sets spelled as array literals (one literal per key for the engine's parser) against one split string literal each
// (src/store/sql.ts `strKeys`), for a lone page and for 16 pages sharing one statement, beside `SELECT 1` (the
// engine's floor per statement) and the parse of the array literal alone. Over a store kept by `bench:ingest --store`
// (BENCH_STORE_DIR), in this process, a session with the API's settings; BENCH_ROUNDS statements per way (default
// 200 lone, a fifth of that shared), the ways alternating. Prints the median wall time and this whole process's CPU
// per statement (engine threads included); numbers are printed, never asserted.
import { Session } from "chdb"
import { readFileSync } from "node:fs"
import { loadavg } from "node:os"
import { sessionSetup } from "../src/store/readers.js"
import { strArray, strKeys } from "../src/store/sql.js"
import { pageKeys } from "./lib/pageKeys.js"

const dir = process.env.BENCH_STORE_DIR
if (dir === undefined) throw new Error("BENCH_STORE_DIR: a store kept by `npm run bench:ingest -- --store DIR`")
const database = process.env.CLICKHOUSE_DATABASE ?? "ton"
const rounds = Number(process.env.BENCH_ROUNDS ?? 200)
const stamp = JSON.parse(readFileSync(`${dir}/bench-store.json`, "utf8")) as { first: number; last: number }
const median = (xs: Array<number>): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!

const session = new Session(dir)
for (const statement of sessionSetup(database)) session.query(statement)
// the statements measured here read `account_states_kv`, which sql/0143 dropped: they need a store from before it
if (
  session
    .query("SELECT count() FROM system.tables WHERE database = currentDatabase() AND name = 'account_states_kv'", "CSV")
    .trim() !== "1"
)
  throw new Error(
    "BENCH_STORE_DIR: this bench reads account_states_kv, dropped by sql/0143; use a copy of a store from before it"
  )
const run = async (sql: string): Promise<Uint8Array> =>
  (await session.queryAsync(sql, { format: "TabSeparatedRaw" })).bytes()

let x = 777
const randomBlock = (): number => {
  x = (x * 1103515245 + 12345) % 2 ** 31
  return stamp.first + (x % (stamp.last - stamp.first + 1))
}

interface Keys {
  readonly hashes: Array<string>
  readonly book: Array<string>
}
/** The keys the store cuts from the first 40 lines of these blocks' rows (state hashes, book addresses). */
const keysOf = async (blocks: Array<number>): Promise<Keys> => {
  const text = Buffer.from(
    await run(
      `SELECT arrayStringConcat(arraySlice(lines, 1, 40), '\\n') FROM v3_pages WHERE mc_block_seqno IN [${blocks.join(",")}]
       SETTINGS enable_analyzer = 0 FORMAT TabSeparatedRaw`
    )
  ).toString("utf8")
  const { hashes, book } = pageKeys(text)
  return { hashes: [...hashes], book: [...book] }
}

const lookups = (set: (xs: Array<string>) => string) => (k: Keys) =>
  `SELECT 0 AS kind, hash AS key, toUInt32(0) AS mc, state FROM account_states_kv WHERE hash IN ${set(k.hashes)}
   UNION ALL
   SELECT 1, account, mc_seqno, ifNull(toString(code_hash), '') FROM latest_account_code WHERE account IN ${set(k.book)}
   SETTINGS enable_analyzer = 0 FORMAT TabSeparatedRaw`
const ways: Record<string, (k: Keys) => string> = {
  "SELECT 1": () => "SELECT 1 FORMAT TabSeparatedRaw",
  "parse of the array literal": (k) => `SELECT length(${strArray(k.hashes)}) FORMAT TabSeparatedRaw`,
  "lookups, array literals": lookups(strArray),
  "lookups, split literals": lookups(strKeys)
}

for (const group of [1, 16]) {
  const n = group === 1 ? rounds : Math.max(10, Math.floor(rounds / 5))
  const wall: Record<string, Array<number>> = {}
  const cpu: Record<string, number> = {}
  let keys = 0
  for (let r = 0; r < n; r++) {
    const k = await keysOf(Array.from({ length: group }, randomBlock))
    keys += k.hashes.length + k.book.length
    const names = Object.keys(ways)
    if (r % 2 === 1) names.reverse()
    const answers = new Set<string>()
    for (const name of names) {
      const sql = ways[name]!(k)
      const c0 = process.cpuUsage()
      const t0 = performance.now()
      const out = await run(sql)
      ;(wall[name] ??= []).push(performance.now() - t0)
      const c = process.cpuUsage(c0)
      cpu[name] = (cpu[name] ?? 0) + (c.user + c.system) / 1000
      if (name.startsWith("lookups")) answers.add(Buffer.from(out).toString("latin1"))
    }
    if (answers.size !== 1) throw new Error("the two spellings answered different rows")
  }
  console.log(
    `${group === 1 ? "lone page" : `${group} pages a statement`}: ${n} statements, ${(keys / n).toFixed(0)} keys each, load ${loadavg()[0]!.toFixed(1)}`
  )
  for (const name of Object.keys(ways)) {
    console.log(
      `  ${name.padEnd(28)} wall p50 ${median(wall[name]!).toFixed(2)} ms  cpu ${(cpu[name]! / n).toFixed(2)} ms per statement`
    )
  }
}
session.close()
