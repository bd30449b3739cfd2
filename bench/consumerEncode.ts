// The consumer's row encoders alone, one checkout's src/sink/encode.ts against another's: the rows of the ingest
// benchmark's chain flattened once (bundles decoded by the producer's decoder, trace ids as the sink assigns them, the
// single node's `pageKv` rows) in batches of --batch bundles as the sink cuts them, then encoded batch by batch and
// table by table by each checkout's `encoderFor`, rounds alternating A, B; B, A; ... Prints per table the medians of
// the encode CPU (the process's, so V8's collections on other threads count) per transaction of the chain, and
// whether both checkouts wrote the same bytes. A before/after pair for the encoders without the flattening's or a pipeline's noise.
// Usage: npx tsx bench/consumerEncode.ts <checkout A> <checkout B> [--rounds 9] [--batch 15] [--mc 60]
// [--tx 30] [--seed 42]. Numbers are printed, never asserted.
import { resolve } from "node:path"
import { parseArgs } from "node:util"
import { flattenBundles, INSERT_ORDER, type TableName, type TableRows } from "../src/flatten/bundle.js"
import { benchBundles } from "./lib/chain.js"

const { values: opts, positionals } = parseArgs({
  options: {
    rounds: { type: "string", default: "9" },
    batch: { type: "string", default: "15" },
    mc: { type: "string", default: "60" },
    tx: { type: "string", default: "30" },
    seed: { type: "string", default: "42" }
  },
  allowPositionals: true
})
if (positionals.length !== 2) {
  console.error(
    "Usage: npx tsx bench/consumerEncode.ts <checkout A> <checkout B> [--rounds 9] [--batch 15] [--mc 60] [--tx 30] [--seed 42]"
  )
  process.exit(2)
}
type Encode = typeof import("../src/sink/encode.js")
const variants: Array<[string, Encode]> = [
  ["A", await import(`${resolve(positionals[0]!)}/src/sink/encode.ts`)],
  ["B", await import(`${resolve(positionals[1]!)}/src/sink/encode.ts`)]
]
const rounds = Number(opts.rounds)

const bundles = benchBundles(Number(opts.seed), Number(opts.mc), Number(opts.tx))
const txs = bundles.reduce((n, b) => n + b.transactions.length, 0)
const perBatch = Number(opts.batch)
const batches: Array<TableRows> = []
for (let i = 0; i < bundles.length; i += perBatch) batches.push(flattenBundles(bundles.slice(i, i + perBatch), { pageKv: true }))
const tables = INSERT_ORDER.filter((t) => batches.some((b) => b[t].length > 0))
const cpuUs = () => {
  const u = process.cpuUsage()
  return u.user + u.system
}
/** Encodes every batch's tables; the CPU of each table in us, and its bytes (all batches'). */
const run = (m: Encode): Map<TableName, [number, Buffer]> => {
  const out = new Map<TableName, [number, Buffer]>()
  for (const rows of batches) {
    for (const t of tables) {
      const e = m.encoderFor(t)
      const t0 = cpuUs()
      for (const r of rows[t]) e.add(r)
      const { chunks } = e.finishChunks()
      const us = cpuUs() - t0
      const body = Buffer.concat([out.get(t)?.[1] ?? Buffer.alloc(0), ...chunks])
      out.set(t, [(out.get(t)?.[0] ?? 0) + us, body])
    }
  }
  return out
}

const times = new Map<string, Map<TableName, Array<number>>>(variants.map(([k]) => [k, new Map()]))
let same = true
for (let r = 0; r <= rounds; r++) {
  const order = r % 2 === 0 ? variants : [...variants].reverse()
  const bodies = new Map<string, Map<TableName, [number, Buffer]>>()
  for (const [k, m] of order) {
    const res = run(m)
    bodies.set(k, res)
    if (r === 0) continue // the warm-up round
    for (const [t, [us]] of res) {
      const list = times.get(k)!.get(t) ?? []
      list.push(us / txs)
      times.get(k)!.set(t, list)
    }
  }
  for (const t of tables) if (!bodies.get("A")!.get(t)![1].equals(bodies.get("B")!.get(t)![1])) same = false
}
const med = (a: ReadonlyArray<number>) => [...a].sort((x, y) => x - y)[a.length >> 1]!
console.log(
  `${txs} transactions in ${batches.length} batches, ${rounds} rounds after a warm-up, alternating; medians, encode CPU us/tx`
)
console.log(`${"table".padEnd(22)} ${"rows".padStart(7)} ${"A".padStart(7)} ${"B".padStart(7)}`)
let sumA = 0
let sumB = 0
for (const t of tables) {
  const a = med(times.get("A")!.get(t)!)
  const b = med(times.get("B")!.get(t)!)
  sumA += a
  sumB += b
  const n = batches.reduce((k, b) => k + b[t].length, 0)
  console.log(`${t.padEnd(22)} ${String(n).padStart(7)} ${a.toFixed(2).padStart(7)} ${b.toFixed(2).padStart(7)}`)
}
const totals = (k: string) => {
  const byRound = tables.map((t) => times.get(k)!.get(t)!)
  return byRound[0]!.map((_, i) => byRound.reduce((n, l) => n + l[i]!, 0))
}
console.log(`${"all (sum of medians)".padEnd(30)} ${sumA.toFixed(2).padStart(7)} ${sumB.toFixed(2).padStart(7)}`)
console.log(`all by round: A ${totals("A").map((x) => x.toFixed(1)).join(" ")}; B ${totals("B").map((x) => x.toFixed(1)).join(" ")}`)
console.log(`bytes: ${same ? "identical in every table and round" : "DIFFERENT"}`)
