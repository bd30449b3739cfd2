// The embedded engine's insert CPU per table for the consumer's bodies as text (JSONCompactEachRow or TabSeparated,
// `textEncoderFor` of src/sink/encode.ts, as every table went before RowBinary) against the sink's own encoders
// (RowBinary for the largest tables). The ingest chain's rows are built and encoded once each way (as a single node's
// sink makes them, in --batches batches). Both are inserted through the consumer's own insert (`insertEncoded`; a
// RowBinary body always through a spool file, which chdb's raw insert cannot take) into a fresh database per variant
// and round with merges held back, variants alternating round by round. CPU: the process's while each statement ran,
// and the statement's threads by the engine's own count (the delta of `system.events` UserTimeMicroseconds +
// SystemTimeMicroseconds around it). Usage: npx tsx bench/insertFormats.ts [--mc 60] [--tx 30] [--seed 42]
// [--rounds 6] [--batches 4]. Numbers are printed, never asserted.
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { makeClickHouseClient, type ClickHouseHandle } from "../src/clickhouse/ClickHouse.js"
import { applyMigrations } from "../src/clickhouse/migrations.js"
import { INSERT_ORDER } from "../src/flatten/bundle.js"
import { parseCli } from "../src/infra/cli.js"
import { textEncoderFor } from "../src/sink/encode.js"
import { benchBundles, encodedBatches } from "./lib/chain.js"
import { measuredInsert } from "./lib/engineCpu.js"

const USAGE = `Usage: npx tsx bench/insertFormats.ts [--mc 60] [--tx 30] [--seed 42] [--rounds 6] [--batches 4]
  The engine's insert CPU per table, the tables' text bodies against the sink's encoders (RowBinary); numbers are printed, never asserted.`
const args = parseCli(
  {
    mc: { type: "string", default: "60" },
    tx: { type: "string", default: "30" },
    seed: { type: "string", default: "42" },
    rounds: { type: "string", default: "6" },
    batches: { type: "string", default: "4" }
  },
  USAGE
)

const bundles = benchBundles(Number(args.seed), Number(args.mc), Number(args.tx))
const txs = bundles.reduce((n, b) => n + b.transactions.length, 0)
const text = encodedBatches(bundles, Number(args.batches), textEncoderFor)
const binary = encodedBatches(bundles, Number(args.batches))
const bytesOf = new Map<string, [number, number]>()
for (const [k, batches] of [text, binary].entries()) {
  for (const b of batches.flat()) {
    const sizes = bytesOf.get(b.table) ?? [0, 0]
    sizes[k]! += b.body.length
    bytesOf.set(b.table, sizes)
  }
}
const rounds = Number(args.rounds)

const dataDir = mkdtempSync(join(tmpdir(), "bench-insert-formats-"))
let db = 0
const open = async (): Promise<ClickHouseHandle> => {
  const ch = await makeClickHouseClient({ url: undefined, user: "default", password: "", database: `f${db++}`, dataDir })
  await applyMigrations(ch.client)
  await ch.client.command({ query: "SYSTEM STOP MERGES" })
  return ch
}

const variants = [
  ["text", text],
  ["sink", binary]
] as const
/** variant -> table -> [process CPU, statement threads' CPU] seconds per round */
const cpu = new Map<string, Map<string, Array<[number, number]>>>(variants.map(([n]) => [n, new Map()]))
for (let round = 0; round < rounds; round++) {
  for (const [name, batches] of round % 2 === 0 ? variants : [...variants].reverse()) {
    const ch = await open()
    const byTable = cpu.get(name)!
    for (const batch of batches) {
      for (const b of batch) {
        const { process: spent, engine } = await measuredInsert(ch, b)
        for (const key of [b.table, "all tables"]) {
          const list = byTable.get(key) ?? Array.from({ length: rounds }, () => [0, 0] as [number, number])
          list[round]![0] += spent
          list[round]![1] += engine
          byTable.set(key, list)
        }
      }
    }
    await ch.client.command({ query: "SYSTEM START MERGES" })
    await ch.client.command({ query: `DROP DATABASE ${ch.database} SYNC` })
    await ch.client.close()
  }
}
rmSync(dataDir, { recursive: true, force: true })

const med = (a: ReadonlyArray<number>) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)]!
const us = (sec: number) => ((sec / txs) * 1e6).toFixed(1)
console.log(
  `${txs} transactions in ${bundles.length} bundles, ${text.length} batches, merges held back; medians of ${rounds} ` +
    `rounds, CPU us/tx: process while the statement ran / the statement's threads by the engine's count (rounds); body bytes/tx`
)
for (const table of [...INSERT_ORDER.filter((t) => cpu.get("text")!.has(t)), "all tables"]) {
  const cells = variants.map(([n]) => {
    const list = cpu.get(n)!.get(table)!
    return `${n} ${us(med(list.map((x) => x[0])))} / ${us(med(list.map((x) => x[1])))} (${list.map((x) => us(x[1])).join(" ")})`
  })
  const sizes = bytesOf.get(table)
  const size = sizes === undefined ? "" : `  bytes ${(sizes[0] / txs).toFixed(0)} -> ${(sizes[1] / txs).toFixed(0)}`
  console.log(`  ${table.padEnd(18)} ${cells.join("   ")}${size}`)
}
process.exit(0)
