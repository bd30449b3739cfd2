// The page tables' writes at volume on a kept store: RocksDB's compaction of `v3_pages` and `v2_pages` as they grow.
// The consumer's page rows are a few hundred KB (v3, one a masterchain block) and tens of KB (v2, one a block); on a
// store of a million transactions a flush of their memtable is compacted into a last level that holds the table's
// whole key range (keys are the engine's little-endian binary, so new rows fall all over it), so each compaction
// rewrites most of the table. This bench writes --rows-v3 / --rows-v2 copies of the store's own rows under new keys
// (shifted seqnos; block ids with a suffix), read by key lists (a range over the key would scan the whole table),
// through the regular insert path in batches the size of the consumer's (--batch-v3 / --batch-v2 rows a statement;
// the source rows' reads count in the figures alike for every configuration), then waits for RocksDB to go quiet: the process's CPU while inserting
// and over the tail, RocksDB's counters per table (compaction CPU and bytes, flushes, blob files), and the table's
// files. The engine starts with the configuration of --config (a file holding XML inside `<clickhouse>`, e.g. a
// `<rocksdb>` section), as the product's would. --optimize first compacts both tables whole (`OPTIMIZE TABLE`: how an
// existing store is rewritten under new options) and prints what it cost. Run it on a copy of a store (it writes).
// Usage: npx tsx bench/kvPagesWrite.ts --dir STORE_COPY [--config FILE] [--optimize] [--rows-v3 1300]
// [--rows-v2 16000] [--batch-v3 11] [--batch-v2 140] [--tail 300]. Numbers are printed, never asserted.
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs"
import { createRequire } from "node:module"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { makeClickHouseClient } from "../src/clickhouse/ClickHouse.js"
import { parseCli } from "../src/infra/cli.js"
import { processCpuSeconds } from "../src/ops/cpu.js"

const USAGE = `Usage: npx tsx bench/kvPagesWrite.ts --dir STORE_COPY [--config FILE] [--optimize] [--rows-v3 1300]
  [--rows-v2 16000] [--batch-v3 11] [--batch-v2 140] [--tail 300]
  The page tables' RocksDB writes and compactions at volume on a copy of a store; numbers are printed, never asserted.`
const args = parseCli(
  {
    dir: { type: "string", default: "" },
    config: { type: "string", default: "" },
    optimize: { type: "boolean", default: false },
    "rows-v3": { type: "string", default: "1300" },
    "rows-v2": { type: "string", default: "16000" },
    "batch-v3": { type: "string", default: "11" },
    "batch-v2": { type: "string", default: "140" },
    tail: { type: "string", default: "300" }
  },
  USAGE
)
if (args.dir === "") throw new Error(USAGE)
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

const cfgDir = mkdtempSync(join(tmpdir(), "kv-pages-write-"))
const cfg = join(cfgDir, "config.xml")
writeFileSync(cfg, `<clickhouse>\n${args.config === "" ? "" : readFileSync(args.config, "utf8")}\n</clickhouse>\n`)
const { Session } = createRequire(import.meta.url)("chdb") as typeof import("chdb")
const starter = new Session(args.dir, { connectionArgs: [`--config-file=${cfg}`] })
const ch = await makeClickHouseClient({ url: undefined, user: "default", password: "", database: "ton", dataDir: args.dir })
const rows = async <A>(query: string): Promise<Array<A>> =>
  (await (await ch.client.query({ query, format: "JSONEachRow" })).json()) as Array<A>
const tables = ["v3_pages", "v2_pages"] as const
const rocks = async () => {
  const out: Record<string, Record<string, number>> = {}
  for (const r of await rows<{ table: string; name: string; value: string }>(
    "SELECT table, name, value FROM system.rocksdb WHERE database = 'ton' AND table IN ('v3_pages', 'v2_pages')"
  ))
    (out[r.table] ??= {})[r.name] = Number(r.value)
  return out
}
const files = async () => {
  const out: Record<string, string> = {}
  for (const t of tables) {
    const [{ path }] = await rows<{ path: string }>(
      `SELECT data_paths[1] AS path FROM system.tables WHERE database = 'ton' AND name = '${t}'`
    ) as [{ path: string }]
    const all = readdirSync(path)
    const size = (ext: string) =>
      all.filter((f) => f.endsWith(ext)).reduce((n, f) => n + statSync(join(path, f)).size, 0) / 2 ** 20
    out[t] = `${all.filter((f) => f.endsWith(".sst")).length} sst ${size(".sst").toFixed(0)} MiB, ${all.filter((f) => f.endsWith(".blob")).length} blob ${size(".blob").toFixed(0)} MiB, log ${size(".log").toFixed(0)} MiB`
  }
  return out
}
/** Waits until the process spends under 30 ms of CPU a second for three seconds in a row (at most `limitMs`). */
const quiet = async (limitMs: number) => {
  const start = Date.now()
  let calm = 0
  while (calm < 3 && Date.now() - start < limitMs) {
    const c = processCpuSeconds()
    await sleep(1000)
    calm = processCpuSeconds() - c < 0.03 ? calm + 1 : 0
  }
  return (Date.now() - start) / 1000
}
const delta = (a: Record<string, Record<string, number>>, b: Record<string, Record<string, number>>) => {
  const keys = /compaction.total.time.cpu_micros|compact.read.bytes|compact.write.bytes|flush.write.bytes|blobdb.blob.file.bytes.written|blobdb.blob.file.bytes.read|bytes.written|wal.bytes|number.keys.written/
  const out: Array<string> = []
  for (const t of tables) {
    const d = Object.entries(b[t] ?? {})
      .filter(([k]) => keys.test(k))
      .map(([k, v]) => [k, v - (a[t]?.[k] ?? 0)] as const)
      .filter(([, v]) => v !== 0)
      .map(([k, v]) => `${k.replace(/^rocksdb\./, "")} ${k.includes("micros") ? `${(v / 1e6).toFixed(2)} s` : `${(v / 2 ** 20).toFixed(1)} MiB`}`)
    out.push(`  ${t}: ${d.join(", ")}`)
  }
  return out.join("\n")
}

console.log(`load ${readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ")}; config ${args.config || "(none)"}`)
const settle = await quiet(180_000)
console.log(`opened, quiet after ${settle.toFixed(0)} s; files: ${JSON.stringify(await files())}`)
if (args.optimize) {
  const r0 = await rocks()
  const c0 = processCpuSeconds()
  const w0 = Date.now()
  for (const t of tables) await ch.client.command({ query: `OPTIMIZE TABLE ton.${t}` })
  const tail = await quiet(600_000)
  console.log(
    `optimize: ${(processCpuSeconds() - c0).toFixed(1)} s CPU, ${((Date.now() - w0) / 1000).toFixed(0)} s wall (tail ${tail.toFixed(0)} s)\n${delta(r0, await rocks())}`
  )
  console.log(`files after optimize: ${JSON.stringify(await files())}`)
}
const [{ lo, hi }] = (await rows<{ lo: string; hi: string }>("SELECT min(mc_block_seqno) AS lo, max(mc_block_seqno) AS hi FROM ton.v3_pages")) as [{ lo: string; hi: string }]
const first = Number(lo)
const span = Number(hi) - first + 1
const blocks = (await rows<{ block: string }>("SELECT block FROM ton.v2_pages ORDER BY mc_block_seqno, block")).map((r) => r.block)
await quiet(60_000)
const r0 = await rocks()
const c0 = processCpuSeconds()
const w0 = Date.now()
let written3 = 0
const shift = 100_000_000
// key lookups only (a range over the key is a full scan of the table): seqnos listed, block ids listed
for (let i = 0; i < Number(args["rows-v3"]); i += Number(args["batch-v3"])) {
  const n = Math.min(Number(args["batch-v3"]), Number(args["rows-v3"]) - i)
  const keys = Array.from({ length: n }, (_, k) => first + ((i + k) % span))
  await ch.client.command({
    query: `INSERT INTO ton.v3_pages SELECT mc_block_seqno + ${shift + Math.floor(i / span) * span}, asc_rank, lines FROM ton.v3_pages WHERE mc_block_seqno IN (${keys.join(",")})`
  })
  written3 += n
}
let written2 = 0
for (let i = 0; i < Number(args["rows-v2"]); i += Number(args["batch-v2"])) {
  const n = Math.min(Number(args["batch-v2"]), Number(args["rows-v2"]) - i)
  const keys = Array.from({ length: n }, (_, k) => blocks[(i + k) % blocks.length]!)
  await ch.client.command({
    query: `INSERT INTO ton.v2_pages SELECT concat(block, '/${Math.floor(i / blocks.length)}'), mc_block_seqno, root_hash, file_hash, keys, v2 FROM ton.v2_pages WHERE block IN (${keys.map((b) => `'${b}'`).join(",")})`
  })
  written2 += n
}
const inserting = processCpuSeconds() - c0
const insertWall = (Date.now() - w0) / 1000
const tail0 = processCpuSeconds()
const tailWall = await quiet(Number(args.tail) * 1000)
const tail = processCpuSeconds() - tail0
console.log(
  `wrote ${written3} v3 rows (~${(written3 * 103).toLocaleString("en-US")} tx of a 1M chain's) and ${written2} v2 rows: inserting ${inserting.toFixed(1)} s CPU (${insertWall.toFixed(0)} s wall), tail ${tail.toFixed(1)} s CPU (${tailWall.toFixed(0)} s wall)\n${delta(r0, await rocks())}`
)
console.log(`files after: ${JSON.stringify(await files())}`)
await ch.client.close()
starter.close()
rmSync(cfgDir, { recursive: true, force: true })
process.exit(0)
