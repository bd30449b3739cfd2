// The consumer's row path alone, per table: the bundles of the ingest benchmark's chain (decoded once by the
// producer's decoder, trace ids assigned as the sink assigns them), flattened, encoded and inserted into a fresh
// embedded ClickHouse batch by batch as the sink does, each table's build, encode and insert CPU measured apart
// (build and encode on this thread; insert as the process's CPU while the engine inserts), the rows as a single node's
// sink makes them (`pageKv`: `tx_pages` only for blocks the key-value page rows cannot serve). Rounds alternate between
// variant A (the schema and settings as they are) and variant B (the insert settings of --settings-b, and the
// statements of --sql-b run after the migrations: a dropped view or index, a codec, a table setting), each round into
// a new database. After the last batch the engine's background merges of the round's parts are measured apart: the
// process's CPU over --tail seconds with nothing else running (`merges`); --stop-merges holds merges back while
// inserting (so the insert figures hold no merge CPU) and lets them run only in the tail.
// Usage: npx tsx bench/consumerTables.ts [--mc 60] [--tx 30] [--seed 42] [--rounds 4] [--batches 4]
// [--settings-b name=value,...] [--sql-b "statement; statement"] [--tail 8] [--stop-merges]. Numbers are printed,
// never asserted.
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { makeClickHouseClient } from "../src/clickhouse/ClickHouse.js"
import { applyMigrations } from "../src/clickhouse/migrations.js"
import { INSERT_ORDER, type TableName, visitBundleRows } from "../src/flatten/bundle.js"
import { parseCli } from "../src/infra/cli.js"
import { encoderFor, type RowEncoder } from "../src/sink/encode.js"
import { benchBundles } from "./lib/chain.js"

const USAGE = `Usage: npx tsx bench/consumerTables.ts [--mc 60] [--tx 30] [--seed 42] [--rounds 4] [--batches 4]
  [--settings-b name=value,...] [--sql-b "statement; statement"] [--tail 8] [--stop-merges]
  The consumer's build, encode and insert CPU per table over the ingest chain; numbers are printed, never asserted.`
const args = parseCli({
  mc: { type: "string", default: "60" },
  tx: { type: "string", default: "30" },
  seed: { type: "string", default: "42" },
  rounds: { type: "string", default: "4" },
  batches: { type: "string", default: "4" },
  "settings-b": { type: "string", default: "" },
  "sql-b": { type: "string", default: "" },
  tail: { type: "string", default: "8" },
  "stop-merges": { type: "boolean", default: false }
}, USAGE)

const bundles = benchBundles(Number(args.seed), Number(args.mc), Number(args.tx))
const txs = bundles.reduce((n, b) => n + b.transactions.length, 0)
const perBatch = Math.ceil(bundles.length / Number(args.batches))
const settingsB: Record<string, string> = Object.fromEntries(
  args["settings-b"].split(",").filter((s) => s !== "").map((s) => s.split("=") as [string, string])
)
const sqlB = args["sql-b"].split(";").map((q) => q.trim()).filter((q) => q !== "")
const variants: Array<[string, Record<string, string>, ReadonlyArray<string>]> = [["A (as is)", {}, []]]
if (Object.keys(settingsB).length > 0 || sqlB.length > 0) {
  variants.push([`B (${[args["settings-b"], ...sqlB].filter((x) => x !== "").join("; ")})`, settingsB, sqlB])
}
const tailSec = Number(args.tail)

const threadCpu = () => {
  const u = process.cpuUsage()
  return (u.user + u.system) / 1e6
}
const dataDir = mkdtempSync(join(tmpdir(), "bench-ctables-"))
type Steps = Record<"build" | "encode" | "insert", number>
interface Round {
  readonly steps: Map<string, Steps>
  /** Process CPU seconds over the tail after the last batch (background merges), and active parts then. */
  readonly merges: number
  readonly parts: ReadonlyArray<{ table: string; parts: number; rows: number; bytes: number }>
}
const results = new Map<string, Array<Round>>()
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
let db = 0
for (let round = 0; round < Number(args.rounds); round++) {
  for (const [name, settings, statements] of round % 2 === 0 ? variants : [...variants].reverse()) {
    const database = `r${db++}`
    const ch = await makeClickHouseClient({ url: undefined, user: "default", password: "", database, dataDir })
    await applyMigrations(ch.client)
    for (const query of statements) await ch.client.command({ query })
    if (args["stop-merges"]) await ch.client.command({ query: "SYSTEM STOP MERGES" })
    const steps = new Map<string, Steps>()
    const add = (table: string, step: keyof Steps, sec: number) => {
      const s = steps.get(table) ?? { build: 0, encode: 0, insert: 0 }
      s[step] += sec
      steps.set(table, s)
    }
    for (let i = 0; i < bundles.length; i += perBatch) {
      const encoders = new Map<TableName, RowEncoder>(INSERT_ORDER.map((t) => [t, encoderFor(t)]))
      let encoding: TableName | undefined
      let mark = threadCpu()
      const lap = (table: string, step: keyof Steps) => {
        const now = threadCpu()
        add(table, step, now - mark)
        mark = now
      }
      visitBundleRows(
        bundles.slice(i, i + perBatch),
        (table, row) => {
          if (table !== encoding) {
            if (encoding !== undefined) lap(encoding, "encode")
            else mark = threadCpu()
            encoding = table
          }
          encoders.get(table)!.add(row)
        },
        {
          before: () => {
            if (encoding !== undefined) lap(encoding, "encode")
            encoding = undefined
            mark = threadCpu()
          },
          lap: (part) => lap(part, "build"),
          after: () => undefined
        },
        // as a single node's sink writes them: tx_pages only for blocks the key-value page rows cannot serve
        { pageKv: true }
      )
      if (encoding !== undefined) lap(encoding, "encode")
      for (const table of INSERT_ORDER) {
        const e = encoders.get(table)!
        if (e.rows === 0) continue
        const t0 = threadCpu()
        const { columns, body } = e.finish()
        const t1 = threadCpu()
        await ch.insertEncoded({ table, columns, format: e.format, body, settings })
        const t2 = threadCpu()
        add(table, "encode", t1 - t0)
        add(table, "insert", t2 - t1)
      }
    }
    if (args["stop-merges"]) await ch.client.command({ query: "SYSTEM START MERGES" })
    const tail0 = threadCpu()
    await sleep(tailSec * 1000)
    const merges = threadCpu() - tail0
    const parts = (await (await ch.client.query({
      query: `SELECT table, count() AS parts, sum(rows) AS rows, sum(bytes_on_disk) AS bytes FROM system.parts
              WHERE database = {db:String} AND active GROUP BY table ORDER BY table`,
      query_params: { db: database },
      format: "JSONEachRow"
    })).json()) as Array<{ table: string; parts: string; rows: string; bytes: string }>
    await ch.client.command({ query: `DROP DATABASE ${database} SYNC` })
    await ch.client.close()
    const list = results.get(name) ?? []
    list.push({ steps, merges, parts: parts.map((p) => ({ table: p.table, parts: Number(p.parts), rows: Number(p.rows), bytes: Number(p.bytes) })) })
    results.set(name, list)
  }
}
rmSync(dataDir, { recursive: true, force: true })

const med = (a: Array<number>) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)]!
const us = (sec: number) => ((sec / txs) * 1e6).toFixed(1).padStart(7)
console.log(`${txs} transactions in ${bundles.length} bundles, ${Number(args.batches)} batches; medians of ${args.rounds} rounds, CPU us/tx`)
for (const [name, all] of results) {
  console.log(`${name}:`)
  const rounds = all.map((r) => r.steps)
  const tables = [...new Set(rounds.flatMap((r) => [...r.keys()]))]
  const total: Steps = { build: 0, encode: 0, insert: 0 }
  for (const t of tables) {
    const m = (step: keyof Steps) => med(rounds.map((r) => r.get(t)?.[step] ?? 0))
    total.build += m("build")
    total.encode += m("encode")
    total.insert += m("insert")
    console.log(`  ${t.padEnd(20)} build ${us(m("build"))}  encode ${us(m("encode"))}  insert ${us(m("insert"))}`)
  }
  console.log(`  ${"all (sum of medians)".padEnd(20)} build ${us(total.build)}  encode ${us(total.encode)}  insert ${us(total.insert)}`)
  const sums = rounds.map((r) => [...r.values()].reduce((n, s) => n + s.build + s.encode + s.insert, 0))
  console.log(`  per round, all steps: ${sums.map((s) => us(s).trim()).join(" ")}`)
  console.log(`  merges (process CPU over the ${tailSec} s tail): median ${us(med(all.map((r) => r.merges))).trim()}; per round ${all.map((r) => us(r.merges).trim()).join(" ")}`)
  const last = all[all.length - 1]!.parts
  console.log(`  active parts after the tail (last round): ${last.map((p) => `${p.table} ${p.parts} (${(p.bytes / txs).toFixed(0)} B/tx)`).join(", ")}`)
}
process.exit(0)
