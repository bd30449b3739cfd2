// Building and encoding the consumer's rows, one checkout's sources against another's: both module graphs loaded in
// one process, rounds alternating over the ingest benchmark's chain (bundles decoded by the producer's decoder, trace
// ids assigned as the sink assigns them, fresh objects per round as Kafka records give them), batches of 15 bundles
// as the sink flattens and encodes them. Prints the medians of the build (flattening) and encode CPU per transaction
// of each after a warm-up round (the body scheme's parse, the body memo). A before/after pair for changes of the row
// path without the noise of a whole pipeline run.
// Usage: npx tsx bench/consumerRowsPair.ts <before checkout> <after checkout> [rounds, default 8]. Numbers are printed,
// never asserted.
import { resolve } from "node:path"
import { assembleBundle, pipelineDecode } from "../src/producer/assemble.js"
import type { MasterchainBundle } from "../src/ton/record.js"
import { installFastCellHash } from "../src/ton/fastHash.js"
import { assignTraceIds } from "../src/trace/traceIds.js"
import { rawBundle } from "../test/support/pipeline/chainUpstream.js"
import { benchChain } from "./lib/chain.js"

if (process.argv.length < 4) {
  console.error("Usage: npx tsx bench/consumerRowsPair.ts <before checkout> <after checkout> [rounds, default 8]")
  process.exit(2)
}
const [beforeDir, afterDir] = [resolve(process.argv[2]!), resolve(process.argv[3]!)]
const rounds = Number(process.argv[4] ?? 8)
interface RowPath {
  readonly bundle: typeof import("../src/flatten/bundle.js")
  readonly encode: typeof import("../src/sink/encode.js")
  readonly fast: typeof import("../src/ton/fastHash.js")
}
const load = async (dir: string): Promise<RowPath> => ({
  bundle: await import(`${dir}/src/flatten/bundle.ts`),
  encode: await import(`${dir}/src/sink/encode.ts`),
  fast: await import(`${dir}/src/ton/fastHash.ts`)
})
const before = await load(beforeDir)
const after = await load(afterDir)
installFastCellHash()
before.fast.installFastCellHash()
after.fast.installFastCellHash()

const chain = benchChain(42, 60, 30)
const raw: Array<MasterchainBundle> = []
for (let s = chain.first; s <= chain.last; s++) {
  const r = rawBundle(chain, s)
  if (r !== undefined) raw.push(assembleBundle(r, "mainnet", pipelineDecode).bundle)
}
const traced = assignTraceIds(raw.map((b) => b.transactions), { get: () => undefined }, "own-hash")
// Fresh objects every round (parsed from JSON), as the consumer gets them from Kafka records.
const json = JSON.stringify(raw.map((b, k) => ({ ...b, transactions: traced[k]! })))
const txs = traced.reduce((n, t) => n + t.length, 0)
const cpuMs = () => {
  const u = process.cpuUsage()
  return (u.user + u.system) / 1e3
}

/** Build and encode CPU of every bundle, us per transaction. */
const run = (m: RowPath): [number, number] => {
  const bundles = JSON.parse(json) as Array<MasterchainBundle>
  const t0 = cpuMs()
  let flatten = 0
  let mark = 0
  for (let i = 0; i < bundles.length; i += 15) {
    const encoders = new Map(m.bundle.INSERT_ORDER.map((t) => [t, m.encode.encoderFor(t)]))
    m.bundle.visitBundleRows(bundles.slice(i, i + 15), (table, row) => encoders.get(table)!.add(row), {
      before: () => void (mark = cpuMs()),
      after: () => void (flatten += cpuMs() - mark)
    })
    for (const e of encoders.values()) e.finish()
  }
  const all = cpuMs() - t0
  return [(flatten / txs) * 1000, ((all - flatten) / txs) * 1000]
}

const res: Record<"before" | "after", Array<[number, number]>> = { before: [], after: [] }
for (let r = 0; r <= rounds; r++) {
  const order: Array<["before" | "after", RowPath]> = r % 2 === 0 ? [["before", before], ["after", after]] : [["after", after], ["before", before]]
  for (const [k, m] of order) {
    const x = run(m)
    if (r > 0) res[k].push(x) // round 0 warms up: the body scheme's parse, the body memo
  }
}
const med = (a: Array<number>) => [...a].sort((x, y) => x - y)[a.length >> 1]!
console.log(`${txs} transactions, ${rounds} rounds after a warm-up; medians, CPU us/tx`)
for (const k of ["before", "after"] as const) {
  console.log(
    `${k.padEnd(7)} build ${med(res[k].map((x) => x[0])).toFixed(1)}  encode ${med(res[k].map((x) => x[1])).toFixed(1)}` +
      `  rounds (build + encode): ${res[k].map((x) => (x[0] + x[1]).toFixed(0)).join(" ")}`
  )
}
