// The embedded engine's insert CPU by mechanism: the ingest chain's rows are built and encoded once (as a single
// node's sink makes them, batch by batch), then inserted again and again into fresh databases that differ in one
// mechanism each (a materialized view dropped, the skipping indexes dropped, a codec, an insert setting), the variants
// alternating round by round so the machine's load falls on all alike. Per table it prints the process's CPU while the
// engine inserted (merges held back, so no merge CPU falls in it), then the CPU of merging each table's parts into
// one (`OPTIMIZE TABLE ... FINAL`, the work background merges do once per level) and the bytes stored. A dropped view
// is not a candidate change (its table's answers would go): it says what the view costs.
// Usage: npx tsx bench/insertMechanisms.ts [--mc 60] [--tx 30] [--seed 42] [--rounds 4] [--batches 5]
// [--only name,name]. Numbers are printed, never asserted.
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { makeClickHouseClient } from "../src/clickhouse/ClickHouse.js"
import { applyMigrations } from "../src/clickhouse/migrations.js"
import { parseCli } from "../src/infra/cli.js"
import { processCpuSeconds } from "../src/ops/cpu.js"
import { benchBundles, encodedBatches } from "./lib/chain.js"

const USAGE = `Usage: npx tsx bench/insertMechanisms.ts [--mc 60] [--tx 30] [--seed 42] [--rounds 4] [--batches 5]
  [--only name,name]
  The engine's insert and merge CPU per table with one mechanism changed per variant; numbers are printed, never asserted.`
const args = parseCli({
  mc: { type: "string", default: "60" },
  tx: { type: "string", default: "30" },
  seed: { type: "string", default: "42" },
  rounds: { type: "string", default: "4" },
  batches: { type: "string", default: "5" },
  only: { type: "string", default: "" }
}, USAGE)

interface Variant {
  readonly name: string
  /** Statements run after the migrations. */
  readonly sql?: ReadonlyArray<string>
  /** Settings of every insert. */
  readonly settings?: Record<string, string | number>
}
const codec = (table: string, cols: ReadonlyArray<[string, string]>, codec: string) =>
  cols.map(([c, type]) => `ALTER TABLE ${table} MODIFY COLUMN ${c} ${type} CODEC(${codec})`)
const ALL: ReadonlyArray<Variant> = [
  { name: "as is" },
  { name: "no transactions views", sql: ["DROP VIEW analytics_tx_mc_mv", "DROP VIEW analytics_account_day_mv"] },
  { name: "no analytics_account_day_mv", sql: ["DROP VIEW analytics_account_day_mv"] },
  { name: "no messages views", sql: ["DROP VIEW analytics_msg_mc_mv", "DROP VIEW opcode_names_mv"] },
  { name: "no opcode_names_mv", sql: ["DROP VIEW opcode_names_mv"] },
  {
    name: "no skipping indexes",
    sql: [
      "ALTER TABLE transactions DROP INDEX idx_hash", "ALTER TABLE transactions DROP INDEX idx_now",
      "ALTER TABLE messages DROP INDEX idx_hash", "ALTER TABLE messages DROP INDEX idx_tx_now",
      "ALTER TABLE blocks DROP INDEX idx_gen_utime", "ALTER TABLE blocks DROP INDEX idx_mc_block_seqno"
    ]
  },
  {
    name: "BOC and JSON columns ZSTD(1)",
    sql: [
      ...codec("transactions", [["boc", "String"]], "ZSTD(1)"),
      ...codec("message_contents", [["boc", "String"], ["decoded", "Nullable(String)"]], "ZSTD(1)")
    ]
  },
  {
    name: "BOC and JSON columns LZ4",
    sql: [
      ...codec("transactions", [["boc", "String"]], "LZ4"),
      ...codec("message_contents", [["boc", "String"], ["decoded", "Nullable(String)"]], "LZ4")
    ]
  },
  { name: "optimize_on_insert = 0", settings: { optimize_on_insert: 0 } },
  {
    name: "no sparse columns",
    sql: ["transactions", "messages", "message_contents", "blocks", "mc_shard_blocks"].map(
      (t) => `ALTER TABLE ${t} MODIFY SETTING ratio_of_defaults_for_sparse_serialization = 1`
    )
  }
]
const only = args.only.split(",").filter((s) => s !== "")
const variants = only.length === 0 ? ALL : ALL.filter((v) => v.name === "as is" || only.some((o) => v.name.includes(o)))

const bundles = benchBundles(Number(args.seed), Number(args.mc), Number(args.tx))
const txs = bundles.reduce((n, b) => n + b.transactions.length, 0)
// Every batch's tables encoded once, in insert order.
const batches = encodedBatches(bundles, Number(args.batches))

const dataDir = mkdtempSync(join(tmpdir(), "bench-mech-"))
interface Round { insert: Map<string, number>; merge: Map<string, number>; bytes: Map<string, number> }
const results = new Map<string, Array<Round>>()
let db = 0
for (let round = 0; round < Number(args.rounds); round++) {
  for (const v of round % 2 === 0 ? variants : [...variants].reverse()) {
    const database = `m${db++}`
    const ch = await makeClickHouseClient({ url: undefined, user: "default", password: "", database, dataDir })
    await applyMigrations(ch.client)
    for (const query of v.sql ?? []) await ch.client.command({ query })
    await ch.client.command({ query: "SYSTEM STOP MERGES" })
    const r: Round = { insert: new Map(), merge: new Map(), bytes: new Map() }
    for (const batch of batches) {
      for (const b of batch) {
        const t0 = processCpuSeconds()
        await ch.insertEncoded({ ...b, ...(v.settings ? { settings: v.settings } : {}) })
        r.insert.set(b.table, (r.insert.get(b.table) ?? 0) + processCpuSeconds() - t0)
      }
    }
    await ch.client.command({ query: "SYSTEM START MERGES" })
    const tables = (await (await ch.client.query({
      query: `SELECT name FROM system.tables WHERE database = {db:String} AND engine LIKE '%MergeTree' ORDER BY name`,
      query_params: { db: database },
      format: "JSONEachRow"
    })).json()) as Array<{ name: string }>
    for (const { name } of tables) {
      const t0 = processCpuSeconds()
      await ch.client.command({ query: `OPTIMIZE TABLE ${name} FINAL` })
      r.merge.set(name, processCpuSeconds() - t0)
    }
    const sizes = (await (await ch.client.query({
      query: `SELECT table, sum(bytes_on_disk) AS b FROM system.parts WHERE database = {db:String} AND active GROUP BY table`,
      query_params: { db: database },
      format: "JSONEachRow"
    })).json()) as Array<{ table: string; b: string }>
    for (const s of sizes) r.bytes.set(s.table, Number(s.b))
    await ch.client.command({ query: `DROP DATABASE ${database} SYNC` })
    await ch.client.close()
    results.set(v.name, [...(results.get(v.name) ?? []), r])
  }
}
rmSync(dataDir, { recursive: true, force: true })

const med = (a: ReadonlyArray<number>) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)]!
const us = (sec: number) => ((sec / txs) * 1e6).toFixed(1)
console.log(`${txs} transactions in ${bundles.length} bundles, ${batches.length} batches; medians of ${args.rounds} rounds, CPU us/tx`)
for (const [name, rounds] of results) {
  const tables = [...new Set(rounds.flatMap((r) => [...r.insert.keys(), ...r.merge.keys()]))].sort()
  const sum = (key: "insert" | "merge") => rounds.map((r) => [...r[key].values()].reduce((a, b) => a + b, 0))
  console.log(`${name}: insert ${us(med(sum("insert")))} (rounds ${sum("insert").map(us).join(" ")}), merge ${us(med(sum("merge")))} (rounds ${sum("merge").map(us).join(" ")})`)
  for (const t of tables) {
    const ins = med(rounds.map((r) => r.insert.get(t) ?? 0))
    const mer = med(rounds.map((r) => r.merge.get(t) ?? 0))
    const bytes = med(rounds.map((r) => r.bytes.get(t) ?? 0))
    if (ins + mer + bytes === 0) continue
    console.log(`  ${t.padEnd(22)} insert ${us(ins).padStart(6)}  merge ${us(mer).padStart(6)}  stored ${(bytes / txs).toFixed(1).padStart(6)} B/tx`)
  }
}
process.exit(0)
