// Pace of the liteserver source alone (no Kafka, no ClickHouse): a local liteserver serves a generated chain with
// --shards basechain shards; in follow mode it reveals one masterchain block every --interval-ms and the source polls
// the head and fetches each new bundle; in backfill mode every block is visible and bundles are fetched in order.
// Prints sustained masterchain blocks per second and lite API requests per masterchain block (head polls apart).
// Bundles are fetched up to --prefetch at a time (8 as the producer does by default; 1: one by one).
// --latency-ms delays every answer (a liteserver across the network rather than on loopback).
// Usage: npx tsx bench/liteserver.ts [--blocks 60] [--interval-ms 400] [--shards 8] [--tx 16] [--rps 0] [--prefetch 8]
//   [--latency-ms 0]
// Numbers are printed, never asserted.
import { parseCli } from "../src/infra/cli.js"
import { Effect, Exit, Scope } from "effect"
import { parseDirect } from "../src/source/liteserver/addresses.js"
import { makeLiteserverUpstream } from "../src/source/liteserver/Liteserver.js"
import { installFastCellHash } from "../src/ton/fastHash.js"
import { generateChain } from "../tools/fake/generate.js"
import { withBlockFiles } from "../tools/fake/liteserver/blocks.js"
import { startFakeLiteserver } from "../tools/fake/liteserver/server.js"

const USAGE = `Usage: npm run bench:liteserver -- [--blocks 60] [--interval-ms 400] [--shards 8] [--tx 16] [--rps 0] [--prefetch 8] [--latency-ms 0]
  Pace of the liteserver source alone over a local liteserver; numbers are printed, never asserted.`
const args = parseCli({
  blocks: { type: "string", default: "60" },
  "interval-ms": { type: "string", default: "400" },
  shards: { type: "string", default: "8" },
  tx: { type: "string", default: "16" },
  rps: { type: "string", default: "0" },
  prefetch: { type: "string", default: "8" },
  "latency-ms": { type: "string", default: "0" }
}, USAGE)
const blocks = Number(args.blocks)
const interval = Number(args["interval-ms"])
const shards = Number(args.shards) as 1 | 2 | 4 | 8 | 16
const prefetch = Number(args.prefetch)
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

const main = async () => {
  installFastCellHash()
  const t0 = performance.now()
  const chain = generateChain({
    seed: 9,
    mcBlocks: blocks + 1,
    txPerBlock: Math.max(1, Math.round(Number(args.tx) / shards)),
    initialShards: shards,
    maxShards: shards,
    splitChance: 0,
    mergeChance: 0,
    maxBlocksPerShard: 1,
    fixtures: false,
    network: "mainnet",
    cacheAboveTxs: 0
  })
  const lite = withBlockFiles(chain)
  process.stdout.write(
    `chain: ${blocks + 1} masterchain blocks, ${shards} shards, built in ${((performance.now() - t0) / 1000).toFixed(1)} s\n`
  )

  for (const mode of ["backfill", "follow"] as const) {
    const ls = await startFakeLiteserver({
      chain: lite,
      reveal: mode === "follow" ? { initial: 1 } : undefined,
      latencyMs: Number(args["latency-ms"])
    })
    const scope = await Effect.runPromise(Scope.make())
    const up = await Effect.runPromise(
      Scope.extend(makeLiteserverUpstream({ servers: parseDirect(ls.config)!, rps: Number(args.rps) }), scope)
    )
    const first = lite.chain.first + 1
    const last = lite.chain.last
    let timer: NodeJS.Timeout | undefined
    if (mode === "follow") {
      await Effect.runPromise(up.head)
      await Effect.runPromise(up.bundle(lite.chain.first))
      timer = setInterval(() => ls.advance(1), interval)
    } else {
      await Effect.runPromise(up.head)
      await Effect.runPromise(up.bundle(lite.chain.first))
    }
    ls.clearRequests()
    const started = performance.now()
    let next = first
    let txs = 0
    while (next <= last) {
      const head = await Effect.runPromise(up.head)
      if (head < next) {
        await sleep(20)
        continue
      }
      // as the producer does: up to --prefetch bundles in flight, taken in masterchain order
      const range = Array.from({ length: head - next + 1 }, (_, i) => next + i)
      const got = await Effect.runPromise(Effect.forEach(range, up.bundle, { concurrency: prefetch }))
      txs += got.reduce((n, b) => n + b.transactions.length, 0)
      next = head + 1
    }
    const seconds = (performance.now() - started) / 1000
    if (timer) clearInterval(timer)
    const n = last - first + 1
    const polls = ls.requests.filter((r) => r.method === "getMasterchainInfo").length
    const other = ls.requests.length - polls
    const byMethod = (m: string) => ls.requests.filter((r) => r.method === m).length
    process.stdout.write(
      `${mode}: ${n} masterchain blocks in ${seconds.toFixed(2)} s = ${(n / seconds).toFixed(2)} mc blocks/s ` +
        `(${(txs / seconds).toFixed(0)} tx/s); ${(other / n).toFixed(2)} requests per mc block ` +
        `(getBlock ${(byMethod("getBlock") / n).toFixed(2)}, lookupBlock ${(byMethod("lookupBlock") / n).toFixed(2)}), ` +
        `head polls ${polls}, prefetch ${prefetch}, latency ${args["latency-ms"]} ms` +
        (mode === "follow"
          ? `; the chain revealed one block per ${interval} ms = ${(1000 / interval).toFixed(2)}/s`
          : "") +
        "\n"
    )
    await Effect.runPromise(Scope.close(scope, Exit.void))
    await ls.stop()
  }
}

main().catch((e) => {
  process.stderr.write(`bench:liteserver failed: ${e instanceof Error ? e.message : String(e)}\n`)
  process.exit(1)
})
