// The liteserver source's reader alone, as the producer drives it: every masterchain bundle of a generated chain read
// as block files (`bundleFiles`, the producer's call), --prefetch at a time in masterchain order, from a local fake
// liteserver running in a child process, so that this thread's CPU is the reader's own: the lookup of each
// masterchain id, the getBlock of every block, the header checks and the shard walk, and whatever runtime machinery
// wraps them. A fresh reader each round (its block cache would answer a second round). Prints this thread's CPU per
// bundle and per transaction, and the medians. Numbers are printed, never asserted.
// Usage: npx tsx bench/liteReader.ts --gen-dir DIR [--rounds 5] [--prefetch 8]
import { Effect } from "effect"
import { spawn } from "node:child_process"
import { loadavg } from "node:os"
import { createInterface } from "node:readline"
import { fileURLToPath } from "node:url"
import { parseCli } from "../src/infra/cli.js"
import { threadCpuSeconds } from "../src/ops/cpu.js"
import { parseDirect } from "../src/source/liteserver/addresses.js"
import { makeLiteserverReader } from "../src/source/liteserver/Liteserver.js"
import { makeLitePool } from "../src/source/liteserver/Pool.js"
import { withBlockFiles } from "../tools/fake/liteserver/blocks.js"
import { startFakeLiteserver } from "../tools/fake/liteserver/server.js"
import { loadGeneratedChain } from "../tools/gen/chain.js"
import { freePortPair } from "../tools/ports.js"

const USAGE = "Usage: npx tsx bench/liteReader.ts --gen-dir DIR [--rounds 5] [--prefetch 8]"
const args = parseCli(
  {
    "gen-dir": { type: "string" },
    rounds: { type: "string", default: "5" },
    prefetch: { type: "string", default: "8" },
    serve: { type: "boolean", default: false }
  },
  USAGE
)
if (args["gen-dir"] === undefined) {
  process.stderr.write(`${USAGE}\n`)
  process.exit(2)
}
const chain = await loadGeneratedChain(args["gen-dir"])

if (args.serve) {
  // The child: serves the chain and prints its address; ends with its parent's stdin.
  const lite = await startFakeLiteserver({ chain: withBlockFiles(chain), port: await freePortPair() })
  process.stdout.write(`${lite.config}\n`)
  process.stdin.resume()
  process.stdin.on("end", () => void lite.stop().then(() => process.exit(0)))
} else {
  const server = spawn(
    process.execPath,
    [...process.execArgv, fileURLToPath(import.meta.url), "--serve", "--gen-dir", args["gen-dir"]],
    { stdio: ["pipe", "pipe", "inherit"] }
  )
  const config = await new Promise<string>((resolve, reject) => {
    createInterface({ input: server.stdout! }).once("line", resolve)
    server.once("exit", (code) => reject(new Error(`the fake liteserver exited with ${code}`)))
  })
  const servers = parseDirect(config)!
  const rounds = Number(args.rounds)
  const prefetch = Number(args.prefetch)
  const seqnos = Array.from({ length: chain.last - chain.first + 1 }, (_, i) => chain.first + i)
  let txs = 0
  for (const s of seqnos) {
    const mc = chain.masterchain.get(s)!
    txs += mc.block.txs.length + mc.shardBlocks.reduce((n, b) => n + b.txs.length, 0)
  }

  const round = async () => {
    const pool = makeLitePool({ servers, rps: 0 })
    const reader = makeLiteserverReader(pool, { accountStates: "block", blockFiles: true })
    try {
      const t = threadCpuSeconds()
      const w = performance.now()
      await Effect.runPromise(Effect.forEach(seqnos, (s) => reader.bundleFiles!(s), { concurrency: prefetch, discard: true }))
      return { cpu: threadCpuSeconds() - t, wall: (performance.now() - w) / 1000, requests: pool.requests() }
    } finally {
      pool.close()
    }
  }

  await round() // warm-up: connections, JIT
  const cpu: Array<number> = []
  for (let r = 0; r < rounds; r++) {
    const got = await round()
    cpu.push(got.cpu)
    process.stdout.write(
      `round ${r + 1}: ${((got.cpu * 1e3) / seqnos.length).toFixed(3)} ms CPU per bundle, ` +
        `${((got.cpu * 1e6) / txs).toFixed(1)} us/tx, ${((got.cpu * 1e6) / got.requests).toFixed(1)} us per request ` +
        `(${got.requests} requests, ${got.wall.toFixed(2)} s wall)\n`
    )
  }
  const median = [...cpu].sort((a, b) => a - b)[Math.floor(cpu.length / 2)]!
  process.stdout.write(
    `${seqnos.length} bundles, ${txs} transactions, prefetch ${prefetch}, load ${loadavg()
      .map((x) => x.toFixed(1))
      .join(" ")}: median ${((median * 1e3) / seqnos.length).toFixed(3)} ms CPU per bundle, ` +
      `${((median * 1e6) / txs).toFixed(1)} us/tx on this thread\n`
  )
  server.stdin!.end()
}
