// Pace benchmark of the follow mode, through the whole pipeline, for either source: a fake upstream reveals a
// generated chain (a fixed number of basechain shards, each committing about one block per masterchain block, as
// mainnet does) on a fixed clock: the fake toncenter, enforcing toncenter's per-key rate limit, or a local liteserver
// serving the chain as block files over ADNL (the source's own LITESERVER_RPS limits it). The main job
// (pipelines/all.ts: producer in follow mode, Kafka, consumer, embedded ClickHouse, API) runs as a child process with
// that rate. Prints the sustained masterchain blocks per second, upstream requests per masterchain block by method
// (and how many toncenter refused with 429), and the latency from a block appearing upstream to the first 200 answer
// of /api/v3/masterchainBlockShardState for it (median, p99); and the source alone: when the fake received the last
// request for each block (its pace and latency), which tells a rate-bound source from a pipeline that cannot keep up
// on a loaded machine.
// Usage: npx tsx bench/follow.ts [--source toncenter|liteserver] [--blocks 60] [--interval-ms 400] [--shards 4]
//   [--rps 10] [--tx-per-block 4] [--batch-ms 1000] [--grace-s 240] [--v3-blocks]
//   [--repo <checkout whose exporter runs; default this one>]
// --rps is TONCENTER_RPS for toncenter and LITESERVER_RPS for the liteserver (0: unlimited).
// --v3-blocks reads block headers from the fake's v3 /blocks (TONCENTER_V3_BLOCKS_URL) instead of getBlockHeader.
// Numbers are printed, never asserted.
import { spawn } from "node:child_process"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { parseCli } from "../src/infra/cli.js"
import { generateChain } from "../tools/fake/generate.js"
import { startFakeToncenter } from "../tools/fake/server.js"
import { withBlockFiles } from "../tools/fake/liteserver/blocks.js"
import { startFakeLiteserver } from "../tools/fake/liteserver/server.js"
import type { ChainData } from "../tools/fake/ChainData.js"
import { repoRoot, startLocalKafka } from "../src/infra/kafkaBroker.js"
import { freePortPair } from "../tools/ports.js"

const USAGE = `Usage: npm run bench:follow -- [--source toncenter|liteserver] [--blocks 60] [--interval-ms 400] [--shards 4]
  [--rps 10] [--tx-per-block 4] [--batch-ms 1000] [--grace-s 240] [--v3-blocks] [--repo DIR]
  Follow-mode pace and latency through the whole pipeline; numbers are printed, never asserted.`
const args = parseCli({
  source: { type: "string", default: "toncenter" },
  blocks: { type: "string", default: "60" },
  "interval-ms": { type: "string", default: "400" },
  shards: { type: "string", default: "4" },
  rps: { type: "string", default: "10" },
  "tx-per-block": { type: "string", default: "4" },
  "batch-ms": { type: "string", default: "1000" },
  "grace-s": { type: "string", default: "240" },
  "v3-blocks": { type: "boolean", default: false },
  repo: { type: "string", default: repoRoot }
}, USAGE)
const blocks = Number(args.blocks)
const intervalMs = Number(args["interval-ms"])
const shards = Number(args.shards)
const rps = Number(args.rps)
const repo = resolve(args.repo!)
if (![1, 2, 4, 8, 16].includes(shards)) throw new Error("--shards must be 1, 2, 4, 8 or 16")
const source = args.source!
if (source !== "toncenter" && source !== "liteserver") throw new Error("--source must be toncenter or liteserver")
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
const now = () => performance.timeOrigin + performance.now()

const served = async (port: number, seqno: number): Promise<boolean> => {
  try {
    const r = await fetch(`http://127.0.0.1:${port}/api/v3/masterchainBlockShardState?seqno=${seqno}&limit=1`)
    await r.arrayBuffer()
    return r.status === 200
  } catch {
    return false
  }
}

const quantile = (xs: ReadonlyArray<number>, q: number): number => {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil(q * s.length) - 1))]!
}

/** One request the fake received, counted for the masterchain block it serves (undefined: not attributable). */
interface Received {
  readonly at: number
  readonly method: string
  readonly mc: number | undefined
  /** A head poll (counted for the first measured block). */
  readonly poll: boolean
  readonly ok: boolean
  readonly refused: boolean
}

/** The fake upstream the job reads, whichever source it is. */
interface Fake {
  /** The job's settings that point it at this fake. */
  readonly env: Record<string, string>
  readonly label: string
  readonly head: () => number
  readonly advance: () => void
  readonly revealedAt: (mcSeqno: number) => number | undefined
  /** Requests since the last clear; head polls are counted for `pollsAt`. */
  readonly received: (pollsAt: number) => ReadonlyArray<Received>
  readonly clearRequests: () => void
  readonly stop: () => Promise<void>
}

const toncenterFake = async (chain: ChainData, warm: number): Promise<Fake> => {
  const fake = await startFakeToncenter({ chain, reveal: { initial: warm }, rateLimit: { rps }, prerender: true })
  const mcOf = (r: (typeof fake.requests)[number], pollsAt: number): number | undefined => {
    const q = r.query
    if (r.endpoint === "getMasterchainInfo") return pollsAt
    if (r.endpoint === "shards") return Number(q["seqno"])
    if (r.endpoint === "v3/blocks") return Number(q["mc_seqno"])
    if (q["workchain"] === undefined || q["seqno"] === undefined) return undefined
    const shard = BigInt.asIntN(64, BigInt(q["shard"] ?? "0")).toString()
    return chain.blocks.get(`${q["workchain"]}:${shard}:${q["seqno"]}`)?.record.mc_block_seqno
  }
  return {
    env: {
      TONCENTER_URL: fake.url,
      TONCENTER_API_KEY: "bench-key",
      TONCENTER_RPS: String(rps),
      ...(args["v3-blocks"] ? { TONCENTER_V3_BLOCKS_URL: fake.url } : {})
    },
    label: `toncenter, TONCENTER_RPS=${rps}${args["v3-blocks"] ? ", headers from v3 /blocks" : ""}`,
    head: fake.head,
    advance: () => void fake.advance(1),
    revealedAt: fake.revealedAt,
    received: (pollsAt) =>
      fake.requests.map((r) => ({
        at: r.at,
        method: r.endpoint,
        mc: mcOf(r, pollsAt),
        poll: r.endpoint === "getMasterchainInfo",
        ok: r.status === 200,
        refused: r.status === 429
      })),
    clearRequests: fake.clearRequests,
    stop: fake.stop
  }
}

const liteserverFake = async (chain: ChainData, warm: number): Promise<Fake> => {
  const files = withBlockFiles(chain)
  const fake = await startFakeLiteserver({ chain: files, reveal: { initial: warm } })
  const revealed = new Map<number, number>()
  return {
    env: { LITESERVER_CONFIG: fake.config, LITESERVER_RPS: String(rps) },
    label: `liteserver, LITESERVER_RPS=${rps === 0 ? "0 (unlimited)" : rps}`,
    head: fake.head,
    advance: () => {
      const before = fake.head()
      if (fake.advance(1) > before) revealed.set(fake.head(), now())
    },
    revealedAt: (s) => revealed.get(s),
    received: (pollsAt) =>
      fake.requests.map((r) => ({
        at: performance.timeOrigin + r.at,
        method: r.method,
        mc:
          r.method === "getMasterchainInfo" || r.method === "getMasterchainInfoExt"
            ? pollsAt
            : r.block === undefined
              ? undefined
              : files.chain.blocks.get(r.block)?.record.mc_block_seqno,
        poll: r.method === "getMasterchainInfo" || r.method === "getMasterchainInfoExt",
        ok: r.result === "ok",
        refused: false
      })),
    clearRequests: fake.clearRequests,
    stop: fake.stop
  }
}

const main = async () => {
  const scratch = mkdtempSync(join(tmpdir(), "bench-follow-"))
  const warm = 2
  const chain = generateChain({
    seed: 5,
    mcBlocks: warm + blocks + 1,
    txPerBlock: Number(args["tx-per-block"]),
    initialShards: shards as 1 | 2 | 4 | 8 | 16,
    maxShards: shards,
    splitChance: 0,
    mergeChance: 0,
    maxBlocksPerShard: 1,
    fixtures: false,
    network: "mainnet",
    cacheAboveTxs: 0
  })
  const kafka = await startLocalKafka({ port: await freePortPair(), dataDir: join(scratch, "kafka") })
  const fake = source === "liteserver" ? await liteserverFake(chain, warm) : await toncenterFake(chain, warm)
  const [apiPort, metricsPort] = [await freePortPair(), await freePortPair()]
  const job = spawn(process.execPath, ["--import", "tsx", "pipelines/all.ts"], {
    cwd: repo,
    env: {
      ...process.env,
      KAFKA_BROKERS: kafka.brokers.join(","),
      KAFKA_TOPIC_PREFIX: "follow",
      ...fake.env,
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
    // The job starts at the head: once it serves it, the clock starts revealing one block per interval.
    const t0 = now()
    while (!(await served(apiPort, fake.head()))) {
      if (now() - t0 > 600_000) throw new Error("the job did not serve the first block within 600 s")
      if (job.exitCode !== null) throw new Error(`the job exited (code ${job.exitCode}) before serving the first block`)
      await sleep(50)
    }
    const first = fake.head() + 1
    const last = first + blocks - 1
    fake.clearRequests()
    const clock = setInterval(() => {
      if (fake.head() < last) fake.advance()
      else clearInterval(clock)
    }, intervalMs)
    const servedAt = new Map<number, number>()
    let next = first
    const deadline = now() + blocks * intervalMs + Number(args["grace-s"]) * 1000
    while (next <= last && now() < deadline) {
      if (next <= fake.head() && (await served(apiPort, next))) {
        servedAt.set(next, now())
        next += 1
      } else {
        await sleep(10)
      }
    }
    clearInterval(clock)
    const n = servedAt.size
    if (n === 0) throw new Error("no revealed block was served")
    const lastServed = first + n - 1
    const elapsed = (servedAt.get(lastServed)! - fake.revealedAt(first)!) / 1000
    const latencies = [...servedAt].map(([s, t]) => t - fake.revealedAt(s)!)
    // each request is counted for the masterchain block it serves, so blocks still in flight at the end (fetched but
    // not yet served) do not inflate the figure; the head polls are all counted
    const counts: Record<string, { all: number; rateLimited: number }> = {}
    // when the source had all of a block: its last answered request (the producer then decodes and publishes it)
    const fetchedAt = new Map<number, number>()
    for (const r of fake.received(first)) {
      const mc = r.mc
      if (mc === undefined || mc < first || mc > lastServed) continue
      if (!r.poll && r.ok) fetchedAt.set(mc, Math.max(fetchedAt.get(mc) ?? 0, r.at))
      const c = (counts[r.method] ??= { all: 0, rateLimited: 0 })
      c.all += 1
      if (r.refused) c.rateLimited += 1
    }
    const total = Object.values(counts).reduce((a, c) => a + c.all, 0)
    const refused = Object.values(counts).reduce((a, c) => a + c.rateLimited, 0)
    const shardBlocks = [...Array(n).keys()].reduce(
      (a, i) => a + chain.masterchain.get(first + i)!.shardBlocks.length,
      0
    )
    const perMethod = Object.entries(counts)
      .sort((a, b) => b[1].all - a[1].all)
      .map(([m, c]) => `${m} ${(c.all / n).toFixed(2)}${c.rateLimited > 0 ? ` (${c.rateLimited} refused)` : ""}`)
      .join(", ")
    const out = process.stdout
    out.write(`chain: ${shards} shards, ${(shardBlocks / n).toFixed(2)} new shard blocks per mc block, `)
    out.write(`one mc block every ${intervalMs} ms; ${fake.label}; exporter from ${repo}\n`)
    out.write(
      `served ${n}/${blocks} mc blocks; sustained ${(n / elapsed).toFixed(2)} mc blocks/s ` +
        `(revealed ${(1000 / intervalMs).toFixed(2)}/s)\n`
    )
    out.write(
      `requests per mc block: ${(total / n).toFixed(2)} (${perMethod}); 429: ${refused}; ` +
        `budget 1 + new shard blocks = ${(1 + shardBlocks / n).toFixed(2)}\n`
    )
    const fetchLat = [...fetchedAt].map(([m, t]) => t - fake.revealedAt(m)!)
    const fetchedSpan = (Math.max(...fetchedAt.values()) - fake.revealedAt(first)!) / 1000
    out.write(
      `upstream alone: fetched ${fetchedAt.size} mc blocks at ${(fetchedAt.size / fetchedSpan).toFixed(2)}/s, ` +
        `block-to-fetched median ${quantile(fetchLat, 0.5).toFixed(0)} ms, p99 ${quantile(fetchLat, 0.99).toFixed(0)} ms\n`
    )
    out.write(
      `block-to-API latency: median ${quantile(latencies, 0.5).toFixed(0)} ms, p99 ${quantile(latencies, 0.99).toFixed(0)} ms, ` +
        `max ${Math.max(...latencies).toFixed(0)} ms\n`
    )
  } finally {
    if (job.exitCode === null) {
      job.kill("SIGTERM")
      await new Promise((r) => job.once("exit", r))
    }
    await fake.stop()
    await kafka.stop()
    rmSync(scratch, { recursive: true, force: true })
  }
}

main().catch((e) => {
  process.stderr.write(`bench:follow failed: ${e instanceof Error ? e.message : String(e)}\n`)
  process.exit(1)
})
