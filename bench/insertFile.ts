// The embedded engine's insert CPU per table by route: the ingest chain's rows built and encoded once (as a single
// node's sink makes them, in --batches batches), then inserted into fresh databases by chdb's raw insert (the bytes
// handed over in memory) and by the consumer's own insert (`insertEncoded`: bodies of FILE_INSERT_BYTES or more read
// from a spool file, INSERT ... FROM INFILE), the routes alternating round by round so the machine's load falls on
// both alike. Figures are the process's CPU while each statement ran (the spool file's write included), per
// transaction. Usage: npx tsx bench/insertFile.ts [--mc 60] [--tx 30] [--seed 42] [--rounds 4] [--batches 3].
// Numbers are printed, never asserted.
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { makeClickHouseClient } from "../src/clickhouse/ClickHouse.js"
import { FILE_INSERT_BYTES } from "../src/clickhouse/fileInsert.js"
import { applyMigrations } from "../src/clickhouse/migrations.js"
import { INSERT_ORDER } from "../src/flatten/bundle.js"
import { parseCli } from "../src/infra/cli.js"
import { processCpuSeconds } from "../src/ops/cpu.js"
import { benchBundles, encodedBatches } from "./lib/chain.js"

const USAGE = `Usage: npx tsx bench/insertFile.ts [--mc 60] [--tx 30] [--seed 42] [--rounds 4] [--batches 3]
  The engine's insert CPU per table, raw insert against the consumer's spool-file route; numbers are printed, never asserted.`
const args = parseCli({
  mc: { type: "string", default: "60" },
  tx: { type: "string", default: "30" },
  seed: { type: "string", default: "42" },
  rounds: { type: "string", default: "4" },
  batches: { type: "string", default: "3" }
}, USAGE)

const bundles = benchBundles(Number(args.seed), Number(args.mc), Number(args.tx))
const txs = bundles.reduce((n, b) => n + b.transactions.length, 0)
const batches = encodedBatches(bundles, Number(args.batches))

const rounds = Number(args.rounds)
const ROUTES = ["raw insert", "spool file >= 1 MiB"] as const
const dataDir = mkdtempSync(join(tmpdir(), "bench-insert-file-"))
/** route -> table -> CPU seconds per round */
const cpu = new Map<string, Map<string, Array<number>>>(ROUTES.map((r) => [r, new Map()]))
let db = 0
for (let round = 0; round < rounds; round++) {
  for (const route of round % 2 === 0 ? ROUTES : [...ROUTES].reverse()) {
    const database = `f${db++}`
    const ch = await makeClickHouseClient({ url: undefined, user: "default", password: "", database, dataDir })
    await applyMigrations(ch.client)
    const byTable = cpu.get(route)!
    for (const batch of batches) {
      for (const b of batch) {
        const t0 = processCpuSeconds()
        if (route === "raw insert") await ch.embedded!.insert({ ...b, table: `${database}.${b.table}` })
        else await ch.insertEncoded(b)
        const spent = processCpuSeconds() - t0
        for (const key of [b.table, "all tables"]) {
          const list = byTable.get(key) ?? new Array<number>(rounds).fill(0)
          list[round]! += spent
          byTable.set(key, list)
        }
      }
    }
    await ch.client.command({ query: `DROP DATABASE ${database} SYNC` })
    await ch.client.close()
  }
}
rmSync(dataDir, { recursive: true, force: true })

const med = (a: ReadonlyArray<number>) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)]!
const us = (sec: number) => ((sec / txs) * 1e6).toFixed(1)
const bytes = new Map<string, number>()
for (const batch of batches) for (const b of batch) bytes.set(b.table, (bytes.get(b.table) ?? 0) + b.body.length)
console.log(
  `${txs} transactions in ${bundles.length} bundles, ${batches.length} batches; spool file from ${FILE_INSERT_BYTES} bytes; ` +
    `medians of ${rounds} rounds, CPU us/tx (rounds)`
)
for (const table of [...INSERT_ORDER.filter((t) => cpu.get(ROUTES[0])!.has(t)), "all tables"]) {
  const cells = ROUTES.map((r) => {
    const list = cpu.get(r)!.get(table)!
    return `${r} ${us(med(list)).padStart(6)} (${list.map(us).join(" ")})`
  })
  const size = bytes.get(table)
  console.log(`  ${table.padEnd(18)} ${size === undefined ? "".padStart(9) : `${(size / txs).toFixed(0).padStart(5)} B/tx`}  ${cells.join("  ")}`)
}
process.exit(0)
