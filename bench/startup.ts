/**
 * Start-up and memory of the runnables, run from TypeScript through tsx (`node --import tsx pipelines/x.ts`) and as
 * compiled JavaScript (the file its npm script starts: `node dist/pipelines/x.js`, the producer's bundle
 * dist/pipelines/producer.bundle.js; after `npm run build`), one process at a time on this machine.
 * Prints, per runtime and runnable: time to the first output line, time to ready (the API listening, the producer's
 * backfill summary), CPU seconds and peak RSS (the kernel's VmHWM, sampled from /proc until the process exits).
 * Usage: npm run build && npx tsx bench/startup.ts [--rounds 1]. Numbers are printed, never asserted.
 */
import { spawn } from "node:child_process"
import { existsSync, mkdtempSync, rmSync } from "node:fs"
import { cpus, loadavg, tmpdir } from "node:os"
import { join } from "node:path"
import { parseCli } from "../src/infra/cli.js"
import { peakRssBytes, readStat } from "./lib/proc.js"
import { runnableCommand } from "./lib/runnable.js"
import { repoRoot } from "../src/infra/paths.js"
import { startLocalKafka } from "../src/infra/kafkaBroker.js"
import { startFakeToncenter } from "../tools/fake/server.js"
import { freePortPair } from "../tools/ports.js"

const USAGE = `Usage: npm run bench:startup -- [--rounds 1]
  Start-up time and CPU of the runnables; numbers are printed, never asserted.`
const args = parseCli({ rounds: { type: "string", default: "1" } }, USAGE)


interface Sample {
  readonly firstLineMs: number | undefined
  readonly readyMs: number | undefined
  /** CPU seconds the process had used when it got ready: start-up cost independent of the machine's load. */
  readonly readyCpu: number | undefined
  readonly cpuSeconds: number
  readonly peakRssMb: number
  readonly code: number | null
}

const procStatus = (pid: number): { hwmKb: number; cpu: number } | undefined => {
  try {
    return { hwmKb: peakRssBytes(pid) / 1024, cpu: readStat(`/proc/${pid}/stat`).cpu }
  } catch {
    return undefined
  }
}

/** Runs one process until `ready` appears (then `linger` ms more and SIGTERM) or until it exits by itself. */
const measure = (
  argv: ReadonlyArray<string>,
  env: Record<string, string>,
  ready: RegExp,
  stopAfterReady: boolean
): Promise<Sample> =>
  new Promise((resolve) => {
    const t0 = performance.now()
    const proc = spawn(process.execPath, argv, { cwd: repoRoot, env: { ...process.env, ...env }, stdio: "pipe" })
    let firstLineMs: number | undefined
    let readyMs: number | undefined
    let readyCpu: number | undefined
    let peakKb = 0
    let cpu = 0
    let out = ""
    const onData = (c: Buffer) => {
      firstLineMs ??= performance.now() - t0
      out += c.toString()
      if (readyMs === undefined && ready.test(out)) {
        readyMs = performance.now() - t0
        readyCpu = proc.pid === undefined ? undefined : procStatus(proc.pid)?.cpu
        if (stopAfterReady) setTimeout(() => proc.kill("SIGTERM"), 1000)
      }
    }
    proc.stdout.on("data", onData)
    proc.stderr.on("data", onData)
    const timer = setInterval(() => {
      const s = proc.pid === undefined ? undefined : procStatus(proc.pid)
      if (s !== undefined) {
        peakKb = Math.max(peakKb, s.hwmKb)
        cpu = s.cpu
      }
    }, 25)
    proc.once("exit", (code) => {
      clearInterval(timer)
      if (readyMs === undefined) process.stderr.write(`${argv.join(" ")} never got ready:\n${out.slice(-3000)}\n`)
      resolve({ firstLineMs, readyMs, readyCpu, cpuSeconds: cpu, peakRssMb: peakKb / 1024, code })
    })
  })

const runtimes = {
  tsx: (name: string) => ["--import", "tsx", `pipelines/${name}.ts`],
  // the file the runnable's npm script starts (the producer's bundle; `npm start` runs all)
  node: (name: string) => [runnableCommand(name === "all" ? "start" : name, repoRoot).file]
} as const

const fmt = (ms: number | undefined) => (ms === undefined ? "-" : `${(ms / 1000).toFixed(2)} s`)

const main = async () => {
  if (!existsSync(join(repoRoot, "dist/pipelines/all.js"))) throw new Error("run `npm run build` first")
  const scratch = mkdtempSync(join(tmpdir(), "bench-startup-"))
  const kafka = await startLocalKafka({ port: await freePortPair(), dataDir: join(scratch, "kafka") })
  const fake = await startFakeToncenter({ chain: { kind: "fixtures" } })
  const rows: Array<string> = []
  try {
    const [apiPort, opsPort] = [await freePortPair(), await freePortPair()]
    const base = { LOG_LEVEL: "warn", API_PORT: String(apiPort), METRICS_PORT: String(opsPort), NETWORK: "mainnet" }
    const chdb = join(scratch, "chdb")
    // The API needs a migrated store; the migration itself is not measured.
    await measure(runtimes.node("migrate"), { ...base, CLICKHOUSE_DATA_DIR: chdb }, /migrations on/, false)
    for (let round = 0; round < Number(args.rounds); round++) {
      for (const [runtime, argv] of Object.entries(runtimes)) {
        const api = await measure(argv("api"), { ...base, CLICKHOUSE_DATA_DIR: chdb }, /api: listening/, true)
        const producer = await measure(
          argv("producer"),
          {
            ...base,
            KAFKA_BROKERS: kafka.brokers.join(","),
            KAFKA_TOPIC_PREFIX: `startup-${runtime}-${round}`,
            TONCENTER_URL: fake.url,
            TONCENTER_RPS: "10000",
            PRODUCER_MODE: "backfill",
            PRODUCER_FROM: String(fake.chain.first),
            PRODUCER_TO: String(fake.chain.last)
          },
          /producer done/,
          false
        )
        const all = await measure(
          [...argv("all"), "--exit"],
          {
            ...base,
            KAFKA_BROKERS: kafka.brokers.join(","),
            KAFKA_TOPIC_PREFIX: `startup-all-${runtime}-${round}`,
            CLICKHOUSE_DATA_DIR: join(scratch, `all-${runtime}-${round}`)
          },
          // offline with --exit it backfills the bundled chain and prints its summary (LOG_LEVEL=warn: no api line)
          /^done: mc /m,
          false
        )
        for (const [name, s] of [
          ["api", api],
          ["producer (backfill of the bundled chain)", producer],
          ["all-in-one (npm start --exit, offline)", all]
        ] as const) {
          rows.push(
            `| ${runtime} | ${name} | ${fmt(s.firstLineMs)} | ${fmt(s.readyMs)} | ${s.readyCpu?.toFixed(2) ?? "-"} | ` +
              `${s.cpuSeconds.toFixed(2)} | ` +
              `${s.peakRssMb.toFixed(0)} MB | ${s.code} |`
          )
        }
      }
    }
  } finally {
    await fake.stop()
    await kafka.stop()
    rmSync(scratch, { recursive: true, force: true })
  }
  console.log(
    [
      `chain: bundled real transactions, mc ${fake.chain.first}..${fake.chain.last}; ready = api listening / producer summary / all-in-one backfill summary`,
      `load average at the end: ${loadavg().map((l) => l.toFixed(1)).join(" ")} on ${cpus().length} cores`,
      "| runtime | runnable | first line | ready | CPU s at ready | CPU s (whole run) | peak RSS | exit |",
      "|---|---|---|---|---|---|---|---|",
      ...rows
    ].join("\n")
  )
}

await main()
