// The producer's decode pool alone, variants side by side in one process: every bundle of a generated chain (as the
// upstream hands it over) through a one-worker DecodePool per variant of the worker's young generation, in
// alternating rounds, so that the machine's load falls on every variant alike. Prints the process's CPU per
// transaction (main thread, the worker and V8's GC threads together) per round and the median per variant.
// Usage: npx tsx bench/decodePool.ts [--young 8,48] [--rounds 4] [--mc 60] [--tx 30] [--seed 42]. Numbers are
// printed, never asserted.
import { Effect } from "effect"
import { parseCli } from "../src/infra/cli.js"
import { makeDecodePool, workerLimits, type DecodePool } from "../src/producer/DecodePool.js"
import type { RawMasterchainBundle } from "../src/source/Upstream.js"
import { rawBundle } from "../test/support/pipeline/chainUpstream.js"
import { benchChain } from "./lib/chain.js"

const USAGE = `Usage: npx tsx bench/decodePool.ts [--young 8,48] [--rounds 4] [--mc 60] [--tx 30] [--seed 42]
  Decode pool CPU per transaction for each young-generation size of its worker (MB), in alternating rounds.`
const args = parseCli(
  {
    young: { type: "string", default: `8,${workerLimits.maxYoungGenerationSizeMb}` },
    rounds: { type: "string", default: "4" },
    mc: { type: "string", default: "60" },
    tx: { type: "string", default: "30" },
    seed: { type: "string", default: "42" }
  },
  USAGE
)

const chain = benchChain(Number(args.seed), Number(args.mc), Number(args.tx))
const raws: Array<RawMasterchainBundle> = []
for (let s = chain.first; s <= chain.last; s++) {
  const r = rawBundle(chain, s)
  if (r !== undefined) raws.push(r)
}
const txs = raws.reduce((n, r) => n + r.transactions.length, 0)
const variants = args.young!.split(",").map(Number)
const rounds = Number(args.rounds)
const cpu = () => {
  const u = process.cpuUsage()
  return (u.user + u.system) / 1e6
}
const median = (xs: ReadonlyArray<number>) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!

const run = Effect.scoped(
  Effect.gen(function* () {
    const pools: Array<DecodePool> = []
    for (const young of variants) {
      pools.push(
        yield* makeDecodePool({
          workers: 1,
          network: "mainnet",
          resourceLimits: { ...workerLimits, maxYoungGenerationSizeMb: young }
        })
      )
    }
    // The producer fetches up to 8 bundles ahead; the pool gets them as it would.
    const all = (i: number) => Effect.forEach(raws, pools[i]!.prepare, { concurrency: 8, discard: true })
    for (let i = 0; i < pools.length; i++) yield* all(i) // warm-up: the workers' code compiled, their heaps grown
    const perTx = variants.map(() => [] as Array<number>)
    for (let r = 0; r < rounds; r++) {
      for (let k = 0; k < pools.length; k++) {
        const i = r % 2 === 0 ? k : pools.length - 1 - k
        const c0 = cpu()
        yield* all(i)
        perTx[i]!.push(((cpu() - c0) / txs) * 1e6)
      }
    }
    process.stdout.write(`${raws.length} bundles, ${txs} transactions, ${rounds} rounds; process CPU per transaction:\n`)
    variants.forEach((young, i) =>
      process.stdout.write(
        `  young generation ${String(young).padStart(3)} MB: ${perTx[i]!.map((x) => x.toFixed(0)).join(" ")} us/tx, ` +
          `median ${median(perTx[i]!).toFixed(0)}\n`
      )
    )
  })
)

Effect.runPromise(run).then(
  () => process.exit(0),
  (e: unknown) => {
    process.stderr.write(`bench failed: ${e instanceof Error ? e.stack : String(e)}\n`)
    process.exit(1)
  }
)
