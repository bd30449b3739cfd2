// Where one uncached page's time goes, statement by statement: over a store kept by `bench:ingest --store`
// (BENCH_STORE_DIR), in this process, each statement the read path may issue for one v3 and one v2 page is run
// BENCH_RUNS times (default 30) on a native chdb session and timed as the engine reports it (elapsed) and as the caller
// sees it (wall, including formatting and the copy into Node), with the CPU of this whole process per statement (engine
// threads included: the figure that matters on a shared machine); the session runs with the API sessions' settings.
// Then the store's own calls and the Node-side assembly of the answer. Prints medians; numbers are printed, never
// asserted. BENCH_MC picks the masterchain block (default:
// the block with the most transactions among the first 200).
import { Session } from "chdb"
import { readFileSync } from "node:fs"
import { loadavg } from "node:os"
import { makeClickHouseClient } from "../src/clickhouse/ClickHouse.js"
import { readClients, sessionReadSettings } from "../src/store/readers.js"
import { ClickHouseTxStore } from "../src/store/Store.js"
import { v3Tail } from "../src/store/pages.js"
import { renderAddressBookOf, renderAddressBookText } from "../src/ton/v3.js"
import { goJson, sortedRecord } from "../src/api/json.js"

const dir = process.env.BENCH_STORE_DIR
if (dir === undefined) throw new Error("BENCH_STORE_DIR: a store kept by `npm run bench:ingest -- --store DIR`")
const database = process.env.CLICKHOUSE_DATABASE ?? "ton"
const runs = Number(process.env.BENCH_RUNS ?? 30)
const median = (xs: Array<number>): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!

const stamp = JSON.parse(readFileSync(`${dir}/bench-store.json`, "utf8")) as { txs: number }
const session = new Session(dir)
session.query(`USE ${database}`)
// as the API's read sessions run (src/store/readers.ts)
for (const [k, v] of Object.entries(sessionReadSettings)) session.query(`SET ${k} = ${v}`)

const timeStatement = async (name: string, sql: string, format = "JSONEachRow"): Promise<string> => {
  let text = ""
  const wall: Array<number> = []
  const engine: Array<number> = []
  let cpu = 0
  for (let i = 0; i <= runs; i++) {
    const c0 = process.cpuUsage()
    const t0 = performance.now()
    const r = await session.queryAsync(sql, { format })
    text = r.text()
    if (i === 0) continue // the first run warms the marks and the caches
    wall.push(performance.now() - t0)
    engine.push(r.elapsed * 1000)
    const c = process.cpuUsage(c0)
    cpu += (c.user + c.system) / 1000
  }
  // CPU: the whole process (engine threads included) per statement, mean over the runs
  console.log(
    `${name.padEnd(58)} wall ${median(wall).toFixed(2).padStart(7)} ms  engine ${median(engine).toFixed(2).padStart(7)} ms  ` +
      `cpu ${(cpu / runs).toFixed(2).padStart(6)} ms  out ${(text.length / 1024).toFixed(1).padStart(6)} KiB`
  )
  return text
}

const timeCall = async <A>(name: string, f: () => Promise<A>): Promise<A> => {
  let out = await f()
  const ts: Array<number> = []
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now()
    out = await f()
    ts.push(performance.now() - t0)
  }
  console.log(`${name.padEnd(58)} wall ${median(ts).toFixed(2).padStart(7)} ms`)
  return out
}

const first = JSON.parse(
  session.query(
    process.env.BENCH_MC
      ? `SELECT ${Number(process.env.BENCH_MC)} AS s`
      : "SELECT mc_seqno AS s FROM mc_blocks_done ORDER BY tx_count DESC, mc_seqno LIMIT 1",
    "JSONEachRow"
  )
) as { s: number }
const s = Number(first.s)
console.log(`bench:pages store=${dir} transactions=${stamp.txs} mc=${s} runs=${runs} load=${loadavg()[0]!.toFixed(1)}`)

const page = (columns: string) =>
  `SELECT ${columns} FROM tx_pages WHERE mc_block_seqno = ${s} ORDER BY lt DESC, account ASC LIMIT 40`
await timeStatement("SELECT 1", "SELECT 1")
await timeStatement("USE db; SELECT 1 (the client's database prefix)", `USE ${database}; SELECT 1`)
await timeStatement("marker: count() FROM mc_blocks_done WHERE mc_seqno = s", `SELECT count() FROM mc_blocks_done WHERE mc_seqno = ${s}`)
await timeStatement("v3 page keys only (lt, account)", page("lt, account"))
await timeStatement("v3 page hashes + book", page("lt, account, state_before, state_after, book"))
const rowsText = await timeStatement("v3 page all columns (v3, states, book)", page("lt, account, v3, state_before, state_after, book"))
await timeStatement("v3 page all columns, TSV", page("lt, account, v3, state_before, state_after, book"), "TabSeparated")
await timeStatement(
  "v3 page all columns, max_threads=1",
  `${page("lt, account, v3, state_before, state_after, book")} SETTINGS max_threads = 1`
)
const rows = rowsText
  .split("\n")
  .filter((l) => l.length > 0)
  .map((l) => JSON.parse(l) as { v3: string; state_before: string; state_after: string; book: Array<string> })
const hashes = [...new Set(rows.flatMap((r) => [r.state_before, r.state_after]))]
const book = [...new Set(rows.flatMap((r) => r.book))]
const lit = (xs: Array<string>) => `[${xs.map((x) => `'${x}'`).join(",")}]`
await timeStatement(
  `states: account_states WHERE hash IN literal (${hashes.length})`,
  `SELECT * FROM account_states WHERE hash IN ${lit(hashes)}`
)
await timeStatement(
  "v3 page as the store reads it (raw tab-separated)",
  page("lt, account, state_before, state_after, arrayStringConcat(book, ' '), v3"),
  "TabSeparatedRaw"
)
// The page's pieces as the store reads them since sql/0131: the block's key-value row (v3_pages), cut by the statement
// to the page's lines; beside it the tx_pages statement the store falls back to (4 columns, raw tab-separated).
const hasKv = JSON.parse(session.query("SELECT count() AS n FROM v3_pages WHERE mc_block_seqno = " + s, "JSONEachRow")) as {
  n: string
}
if (Number(hasKv.n) === 0) console.log("(no v3_pages row for this block: run `npm run migrate` over the store first)")
for (const [sort, dir] of [["desc", "DESC"], ["asc", "ASC"]] as const) {
  await timeStatement(
    `v3 page ${sort} from tx_pages (the fallback statement)`,
    `SELECT state_before, state_after, arrayStringConcat(book, ' '), v3 FROM tx_pages WHERE mc_block_seqno = ${s}
     ORDER BY lt ${dir}, account ASC LIMIT 40 OFFSET 0`,
    "TabSeparatedRaw"
  )
}
const kvPage = (sort: "asc" | "desc", offset: number, settings = "") =>
  `SELECT length(lines), arrayStringConcat(${
    sort === "asc"
      ? `arraySort((x, r) -> r, arrayFilter((x, r) -> r > ${offset} AND r <= ${offset} + 40, lines, asc_rank),
                   arrayFilter(r -> r > ${offset} AND r <= ${offset} + 40, asc_rank))`
      : `arraySlice(lines, ${offset} + 1, 40)`
  }, '\n') FROM v3_pages WHERE mc_block_seqno = ${s}${settings}`
const an0 = " SETTINGS enable_analyzer = 0"
await timeStatement("v3 page desc from v3_pages, default analyzer", kvPage("desc", 0), "TabSeparatedRaw")
await timeStatement("v3 page desc from v3_pages (the store's statement)", kvPage("desc", 0, an0), "TabSeparatedRaw")
await timeStatement("v3 page asc from v3_pages, default analyzer", kvPage("asc", 0), "TabSeparatedRaw")
await timeStatement("v3 page asc from v3_pages (the store's statement)", kvPage("asc", 0, an0), "TabSeparatedRaw")
await timeStatement("v3 page desc offset 40 from v3_pages (the store's)", kvPage("desc", 40, an0), "TabSeparatedRaw")
await timeStatement("v3_pages row size only (lookup + row read)", `SELECT length(lines) FROM v3_pages WHERE mc_block_seqno = ${s}`)

const stateCols = "hash, known, account, balance, extra_currencies, account_status, frozen_hash, data_hash, code_hash"
await timeStatement(
  "lookups as scalar + IN subqueries (the former 2nd statement)",
  `SELECT (SELECT groupArray((${stateCols})) FROM account_states WHERE hash IN ${lit(hashes)}) AS states,
     (SELECT groupArray((account, code_hash)) FROM (
       SELECT account, argMax(tuple(code_hash), mc_seqno).1 AS code_hash FROM latest_account_code
       WHERE account IN ${lit(book)} AND mc_seqno IN (SELECT mc_seqno FROM mc_blocks_done WHERE mc_seqno IN
         (SELECT mc_seqno FROM latest_account_code WHERE account IN ${lit(book)}))
       GROUP BY account)) AS codes`
)
await timeStatement(
  "lookups as one plain UNION ALL (the store's 2nd statement)",
  `SELECT 0 AS kind, toString(hash) AS key, known, account, balance, extra_currencies, account_status, frozen_hash,
          data_hash, code_hash, toUInt32(0) AS mc FROM account_states WHERE hash IN ${lit(hashes)}
   UNION ALL
   SELECT 1, account, 0, '', NULL, CAST(map(), 'Map(UInt32, UInt256)'), NULL, NULL, NULL, code_hash, mc_seqno
   FROM latest_account_code WHERE account IN ${lit(book)}`
)
// Forms of the store's 2nd statement (same answers): the engine's older analyzer, fewer columns (the code rows' half
// without the state columns' placeholders, as two statements), a compact format, and the native session's
// synchronous call (no hop to the engine's thread) instead of the asynchronous one the read sessions make.
const unionAll = `SELECT 0 AS kind, toString(hash) AS key, known, account, balance, extra_currencies, account_status, frozen_hash,
          data_hash, code_hash, toUInt32(0) AS mc FROM account_states WHERE hash IN ${lit(hashes)}
   UNION ALL
   SELECT 1, account, 0, '', NULL, CAST(map(), 'Map(UInt32, UInt256)'), NULL, NULL, NULL, code_hash, mc_seqno
   FROM latest_account_code WHERE account IN ${lit(book)}`
await timeStatement("lookups UNION ALL, enable_analyzer=0 (the store's since 0131)", `${unionAll}${an0}`)
await timeStatement("lookups UNION ALL, JSONCompactEachRow", unionAll, "JSONCompactEachRow")
await timeStatement(
  "lookups: states alone (half of two statements)",
  `SELECT toString(hash) AS key, known, account, balance, extra_currencies, account_status, frozen_hash, data_hash,
          code_hash FROM account_states WHERE hash IN ${lit(hashes)}`
)
await timeStatement(
  "lookups: codes alone (other half)",
  `SELECT account AS key, code_hash, mc_seqno AS mc FROM latest_account_code WHERE account IN ${lit(book)}`
)
{
  let cpu = 0
  const wall: Array<number> = []
  session.query(unionAll, "JSONEachRow")
  for (let i = 0; i < runs; i++) {
    const c0 = process.cpuUsage()
    const t0 = performance.now()
    session.query(unionAll, "JSONEachRow")
    wall.push(performance.now() - t0)
    const c = process.cpuUsage(c0)
    cpu += (c.user + c.system) / 1000
  }
  console.log(
    `${"lookups UNION ALL, synchronous session.query".padEnd(58)} wall ${median(wall).toFixed(2).padStart(7)} ms  ` +
      `engine       - ms  cpu ${(cpu / runs).toFixed(2).padStart(6)} ms`
  )
}
await timeStatement(
  `codes: latest_account_code WHERE account IN literal (${book.length})`,
  `SELECT account, argMax(tuple(code_hash), mc_seqno).1 AS code_hash FROM latest_account_code WHERE account IN ${lit(book)} GROUP BY account`
)
const first2 = JSON.parse(
  session.query(
    `SELECT block_workchain AS w, toString(block_shard) AS sh, block_seqno AS b, mc_block_seqno AS m FROM tx_pages
     WHERE block_workchain = 0 GROUP BY w, sh, b, m ORDER BY count() DESC LIMIT 1`,
    "JSONEachRow"
  )
) as { w: number; sh: string; b: number; m: number }
await timeStatement(
  "v2 block: blocks FINAL by key (blockById)",
  `SELECT * FROM blocks FINAL WHERE workchain = 0 AND shard = ${first2.sh} AND seqno = ${first2.b} LIMIT 1`
)
await timeStatement(
  "v2 page: v2 FROM tx_pages (key range)",
  `SELECT v2 FROM tx_pages WHERE mc_block_seqno = ${first2.m} AND block_workchain = 0 AND block_shard = ${first2.sh}
   AND block_seqno = ${first2.b} ORDER BY account, lt LIMIT 40`
)
// The block's v2_pages row (sql/0132) by its key: id hashes and the whole page, cut in Node (src/store/v2Pages.ts).
const v2Key = `'0:${first2.sh}:${first2.b}'`
const v2Exists = session.query(`EXISTS TABLE v2_pages`, "TSV").trim() === "1"
if (v2Exists) {
  await timeStatement(
    "v2 page + block: v2_pages row by key (the store's one statement)",
    `SELECT mc_block_seqno, root_hash, file_hash, keys, v2 FROM v2_pages WHERE block = ${v2Key}`,
    "TabSeparatedRaw"
  )
  await timeStatement(
    "v2 page + block: v2_pages row, slice cut by the engine",
    `SELECT mc_block_seqno, root_hash, file_hash, length(keys) / 84 AS total,
            arrayStringConcat(arraySlice(splitByChar('\\n', v2), 1, 40), ',') FROM v2_pages WHERE block = ${v2Key}`,
    "TabSeparatedRaw"
  )
} else console.log("v2_pages: no such table (store not migrated to sql/0132): its statements skipped")
session.close()

// The store's own calls, through the client (@clickhouse/client over chdb: a `USE` and `SET`s before each statement)
// and through the API's read connections (native sessions prepared once), and the Node-side assembly.
const handle = await makeClickHouseClient({ url: undefined, user: "default", password: "", database, dataDir: dir })
const readers = readClients(handle, 1)
const block = await new ClickHouseTxStore(handle.client).blockById({ workchain: 0, shard: first2.sh, seqno: first2.b })
let v3: Awaited<ReturnType<ClickHouseTxStore["v3PageText"]>> = null
for (const [via, store] of [
  ["client", new ClickHouseTxStore(handle.client)],
  ["sessions", new ClickHouseTxStore(readers.clients)]
] as const) {
  v3 = await timeCall(`store.v3PageText limit=40 with address book (${via})`, () =>
    store.v3PageText(s, { limit: 40, offset: 0, sort: "desc" }, true)
  )
  await timeCall(`store.v2PageText count=40 (${via})`, () => store.v2PageText(block!, null, 40))
  if (v2Exists) {
    const id = { workchain: 0, shard: first2.sh, seqno: first2.b }
    await timeCall(`store.v2BlockPage count=40 (${via})`, () => store.v2BlockPage(id, null, 40))
  }
}
await readers.close()
// The Node-side assembly: the address book as an object serialized (the form before 2026-11-26) and as text written
// straight away (the handler's now); the two answers are compared.
const p = v3!
const assembled = (book: () => string) => () => {
  const txs = p.txs.map((t) => t.v3 + v3Tail(t.before, t.after, p.states))
  return Promise.resolve(`{"transactions":[${txs.join(",")}],"address_book":${book()}}`)
}
const viaObject = await timeCall(
  `node: v3 answer, address book as an object (${p.book.length} addresses)`,
  assembled(() => goJson(sortedRecord(Object.entries(renderAddressBookOf(p.book, p.codeHashes, { testnet: false })))))
)
const viaText = await timeCall(
  "node: v3 answer, address book as text (the handler's)",
  assembled(() => renderAddressBookText(p.book, p.codeHashes, { testnet: false }))
)
if (viaObject !== viaText) throw new Error("the two assemblies differ")
await timeCall("node: address book as an object only", () =>
  Promise.resolve(goJson(sortedRecord(Object.entries(renderAddressBookOf(p.book, p.codeHashes, { testnet: false })))))
)
await timeCall("node: address book as text only", () =>
  Promise.resolve(renderAddressBookText(p.book, p.codeHashes, { testnet: false }))
)
await handle.client.close()
