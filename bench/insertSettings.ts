// The embedded engine's insert CPU per table under two sets of insert settings, read two ways: the process's CPU
// while each statement ran, and the engine's own account of the statement's threads (the delta of `system.events`
// UserTimeMicroseconds + SystemTimeMicroseconds around it, which sums every thread the statement ran on, pool threads
// included, and nothing of other processes). The ingest chain's rows are built and encoded once (as a single node's
// sink makes them, in --batches batches), then inserted through the consumer's own insert (`insertEncoded`) into a
// fresh database per variant and round with merges held back (no merge CPU in the figures), variants alternating
// round by round so the machine's load falls on both alike. Variant A takes --settings-a, B --settings-b (each
// `name=value,...`, over the client's own insert settings). Also prints the engine's other counters that differ most
// between the variants (per transaction). Usage: npx tsx bench/insertSettings.ts [--mc 60] [--tx 30] [--seed 42]
// [--rounds 6] [--batches 4] [--settings-a input_format_parallel_parsing=1] [--settings-b input_format_parallel_parsing=0].
// Numbers are printed, never asserted.
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { makeClickHouseClient } from "../src/clickhouse/ClickHouse.js"
import { applyMigrations } from "../src/clickhouse/migrations.js"
import { INSERT_ORDER } from "../src/flatten/bundle.js"
import { parseCli } from "../src/infra/cli.js"
import { benchBundles, encodedBatches } from "./lib/chain.js"
import { measuredInsert } from "./lib/engineCpu.js"

const USAGE = `Usage: npx tsx bench/insertSettings.ts [--mc 60] [--tx 30] [--seed 42] [--rounds 6] [--batches 4]
  [--settings-a name=value,...] [--settings-b name=value,...]
  The engine's insert CPU per table under two sets of insert settings; numbers are printed, never asserted.`
const args = parseCli(
  {
    mc: { type: "string", default: "60" },
    tx: { type: "string", default: "30" },
    seed: { type: "string", default: "42" },
    rounds: { type: "string", default: "6" },
    batches: { type: "string", default: "4" },
    "settings-a": { type: "string", default: "input_format_parallel_parsing=1" },
    "settings-b": { type: "string", default: "input_format_parallel_parsing=0" }
  },
  USAGE
)
const parseSettings = (s: string): Record<string, string> =>
  Object.fromEntries(
    s
      .split(",")
      .filter((x) => x !== "")
      .map((x) => x.split("=") as [string, string])
  )

const bundles = benchBundles(Number(args.seed), Number(args.mc), Number(args.tx))
const txs = bundles.reduce((n, b) => n + b.transactions.length, 0)
const batches = encodedBatches(bundles, Number(args.batches))
const rounds = Number(args.rounds)
const variants: ReadonlyArray<[string, Record<string, string>]> = [
  [`A (${args["settings-a"]})`, parseSettings(args["settings-a"])],
  [`B (${args["settings-b"]})`, parseSettings(args["settings-b"])]
]

const dataDir = mkdtempSync(join(tmpdir(), "bench-insert-settings-"))
/** variant -> table -> [process CPU, statement threads' CPU] seconds per round */
const cpu = new Map<string, Map<string, Array<[number, number]>>>(variants.map(([n]) => [n, new Map()]))
/** variant -> event -> sum over rounds */
const counters = new Map<string, Map<string, number>>(variants.map(([n]) => [n, new Map()]))
let db = 0
for (let round = 0; round < rounds; round++) {
  for (const [name, settings] of round % 2 === 0 ? variants : [...variants].reverse()) {
    const database = `s${db++}`
    const ch = await makeClickHouseClient({ url: undefined, user: "default", password: "", database, dataDir })
    await applyMigrations(ch.client)
    await ch.client.command({ query: "SYSTEM STOP MERGES" })
    const byTable = cpu.get(name)!
    const sums = counters.get(name)!
    for (const batch of batches) {
      for (const b of batch) {
        const { process: spent, engine, events } = await measuredInsert(ch, { ...b, settings })
        for (const [k, v] of events) sums.set(k, (sums.get(k) ?? 0) + v)
        for (const key of [b.table, "all tables"]) {
          const list = byTable.get(key) ?? Array.from({ length: rounds }, () => [0, 0] as [number, number])
          list[round]![0] += spent
          list[round]![1] += engine
          byTable.set(key, list)
        }
      }
    }
    await ch.client.command({ query: "SYSTEM START MERGES" })
    await ch.client.command({ query: `DROP DATABASE ${database} SYNC` })
    await ch.client.close()
  }
}
rmSync(dataDir, { recursive: true, force: true })

const med = (a: ReadonlyArray<number>) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)]!
const us = (sec: number) => ((sec / txs) * 1e6).toFixed(1)
console.log(
  `${txs} transactions in ${bundles.length} bundles, ${batches.length} batches, merges held back; medians of ${rounds} ` +
    `rounds, CPU us/tx: process while the statement ran / the statement's threads by the engine's count (rounds)`
)
for (const table of [...INSERT_ORDER.filter((t) => cpu.get(variants[0]![0])!.has(t)), "all tables"]) {
  const cells = variants.map(([n]) => {
    const list = cpu.get(n)!.get(table)!
    return `${n} ${us(med(list.map((x) => x[0])))} / ${us(med(list.map((x) => x[1])))} (${list.map((x) => us(x[1])).join(" ")})`
  })
  console.log(`  ${table.padEnd(18)} ${cells.join("   ")}`)
}
const [a, b] = variants.map(([n]) => counters.get(n)!)
const diffs = [...new Set([...a!.keys(), ...b!.keys()])]
  .map((k) => [k, a!.get(k) ?? 0, b!.get(k) ?? 0] as const)
  .filter(([, x, y]) => Math.max(x, y) > 0 && Math.abs(x - y) / Math.max(x, y) > 0.2)
  .sort((p, q) => Math.abs(q[2] - q[1]) / Math.max(q[1], q[2]) - Math.abs(p[2] - p[1]) / Math.max(p[1], p[2]))
console.log(`engine counters differing by more than 20% (per transaction, summed over rounds / rounds): A -> B`)
for (const [k, x, y] of diffs.slice(0, 25)) {
  const f = (v: number) => (v / rounds / txs).toPrecision(3)
  console.log(`  ${k.padEnd(44)} ${f(x)} -> ${f(y)}`)
}
process.exit(0)
