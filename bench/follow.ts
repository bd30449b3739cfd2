// Follow-mode latency: how long after a masterchain block appears upstream the API serves it. A fake toncenter reveals
// one generated masterchain block at a time; the main job (pipelines/all.ts: producer in follow mode, Kafka, consumer,
// embedded ClickHouse, API) runs as a child process; each latency is from the reveal to the first 200 answer of
// /api/v3/masterchainBlockShardState for that seqno (polled every 10 ms). Prints median, p90 and max.
// Usage: npx tsx bench/follow.ts [--blocks 20] [--interval-ms 400] [--batch-ms 1000]. Numbers are printed, never asserted.
import { spawn } from "node:child_process"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { parseArgs } from "node:util"
import { generateChain } from "../tools/fake/generate.js"
import { startFakeToncenter } from "../tools/fake/server.js"
import { repoRoot, startLocalKafka } from "../src/infra/kafkaBroker.js"
import { freePortPair } from "../tools/ports.js"

const { values: args } = parseArgs({
  options: {
    blocks: { type: "string", default: "20" },
    "interval-ms": { type: "string", default: "400" },
    "batch-ms": { type: "string", default: "1000" }
  }
})
const blocks = Number(args.blocks)
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

const served = async (port: number, seqno: number): Promise<boolean> => {
  try {
    const r = await fetch(`http://127.0.0.1:${port}/api/v3/masterchainBlockShardState?seqno=${seqno}&limit=1`)
    await r.arrayBuffer()
    return r.status === 200
  } catch {
    return false
  }
}

const waitServed = async (port: number, seqno: number, timeoutMs: number): Promise<number> => {
  const t0 = performance.now()
  while (!(await served(port, seqno))) {
    if (performance.now() - t0 > timeoutMs) throw new Error(`mc ${seqno} not served within ${timeoutMs} ms`)
    await sleep(10)
  }
  return performance.now() - t0
}

const main = async () => {
  const scratch = mkdtempSync(join(tmpdir(), "bench-follow-"))
  const chain = generateChain({
    seed: 5,
    mcBlocks: blocks + 2,
    txPerBlock: 20,
    initialShards: 2,
    maxShards: 4,
    maxBlocksPerShard: 2,
    fixtures: false,
    network: "mainnet",
    cacheAboveTxs: 0
  })
  const kafka = await startLocalKafka({ port: await freePortPair(), dataDir: join(scratch, "kafka") })
  const fake = await startFakeToncenter({ chain, reveal: { initial: 1 } })
  const [apiPort, metricsPort] = [await freePortPair(), await freePortPair()]
  const job = spawn(process.execPath, ["--import", "tsx", "pipelines/all.ts"], {
    cwd: repoRoot,
    env: {
      ...process.env,
      KAFKA_BROKERS: kafka.brokers.join(","),
      KAFKA_TOPIC_PREFIX: "follow",
      TONCENTER_URL: fake.url,
      TONCENTER_RPS: "1000",
      PRODUCER_MODE: "follow",
      CLICKHOUSE_DATA_DIR: join(scratch, "chdb"),
      CONSUMER_BATCH_MS: args["batch-ms"]!,
      API_PORT: String(apiPort),
      METRICS_PORT: String(metricsPort),
      LOG_LEVEL: "warn"
    },
    stdio: ["ignore", "ignore", "inherit"]
  })
  try {
    // The job starts at the head: wait until it serves the first visible block, then reveal one block at a time.
    await waitServed(apiPort, fake.head(), 180_000)
    const latencies: Array<number> = []
    for (let i = 0; i < blocks; i++) {
      const seqno = fake.advance(1)
      latencies.push(await waitServed(apiPort, seqno, 60_000))
      process.stdout.write(`mc ${seqno}: served ${latencies.at(-1)!.toFixed(0)} ms after it appeared\n`)
      await sleep(Number(args["interval-ms"]))
    }
    const sorted = [...latencies].sort((a, b) => a - b)
    const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!
    process.stdout.write(
      `follow latency over ${blocks} masterchain blocks (CONSUMER_BATCH_MS=${args["batch-ms"]}): ` +
        `median ${at(0.5).toFixed(0)} ms, p90 ${at(0.9).toFixed(0)} ms, max ${sorted.at(-1)!.toFixed(0)} ms\n`
    )
  } finally {
    job.kill("SIGTERM")
    await new Promise((r) => job.once("exit", r))
    await fake.stop()
    await kafka.stop()
    rmSync(scratch, { recursive: true, force: true })
  }
}

main().catch((e) => {
  process.stderr.write(`bench:follow failed: ${e instanceof Error ? e.message : String(e)}\n`)
  process.exit(1)
})
