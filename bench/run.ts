/**
 * Runs every benchmark of the project in one go (`npm run bench`), one process at a time so they do not compete for
 * the two cores, and rewrites BENCHMARKS.md with the machine, the exact commands, each script's own description of
 * how its figures are computed, and its output. Invariant: numbers come only from the scripts' printed output of this
 * run; nothing is edited by hand or asserted. `--only decode,generate` picks steps (the other sections keep their
 * previous results); `--no-write` leaves the file. The volume steps (gen-1m, store-1m, api-1m) build the
 * million-transaction chain and a ClickHouse store of it once, under .cache, and reuse them on later runs.
 */
import { spawn } from "node:child_process"
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import os from "node:os"
import path from "node:path"
import { fileURLToPath } from "node:url"
import { parseCli } from "../src/infra/cli.js"

import { outputKey, type Manifest } from "../tools/gen/generate.js"

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..")

interface Step {
  readonly name: string
  readonly script: string
  readonly args: ReadonlyArray<string>
  readonly title: string
  readonly env?: Readonly<Record<string, string>>
}

const USAGE = `Usage: npm run bench -- [--only NAME[,NAME]] [--no-write] [--gen-txs 200000] [--gen-base 4000]
  Runs the benchmarks and regenerates BENCHMARKS.md (--no-write: print only).`
const values = parseCli({
  only: { type: "string" },
  "no-write": { type: "boolean", default: false },
  "gen-txs": { type: "string", default: "200000" },
  "gen-base": { type: "string", default: "4000" }
}, USAGE)

const genDir = mkdtempSync(path.join(os.tmpdir(), "bench-gen-"))
// The million-transaction chain and the store built from it are cached under .cache and reused by later runs.
const volume = { seed: "7", txs: 1_000_000, baseTxs: 16_000, worlds: 2, lanes: 2, txPerMc: 100, fixtures: true }
const volumeDir = path.join(".cache/gen", outputKey(volume))
const volumeStore = ".cache/bench-store/1m"
const steps: ReadonlyArray<Step> = [
  { name: "decode", script: "bench/decode.ts", args: [], title: "Decode + render ceiling" },
  {
    name: "generate",
    script: "pipelines/generate.ts",
    args: ["--seed", "7", "--txs", values["gen-txs"]!, "--base", values["gen-base"]!, "--cache-dir", genDir],
    title: "Chain generator (fresh cache)"
  },
  { name: "ingest", script: "bench/ingest.ts", args: [], title: "End-to-end ingest" },
  { name: "api", script: "bench/api.ts", args: [], title: "API load" },
  {
    name: "gen-1m",
    script: "pipelines/generate.ts",
    args: ["--seed", volume.seed, "--txs", String(volume.txs), "--base", String(volume.baseTxs)],
    title: "Chain generator (one million transactions, cached)"
  },
  {
    name: "store-1m",
    script: "bench/ingest.ts",
    args: ["--gen-dir", volumeDir, "--store", volumeStore],
    title: "End-to-end ingest at volume (one million transactions, store kept)"
  },
  {
    name: "api-1m",
    script: "bench/api.ts",
    args: [],
    env: { BENCH_STORE_DIR: volumeStore },
    title: "API load on the one-million-transaction store"
  },
  { name: "follow", script: "bench/follow.ts", args: [], title: "Follow-mode pace against toncenter (10 rps, 4 shards, 400 ms blocks)" }
]
const wanted = values.only === undefined ? null : new Set(values.only.split(","))

/** The leading comment of a script: its own statement of what it measures and how. */
const headerOf = (file: string): string => {
  const text = readFileSync(path.join(root, file), "utf8")
  const lines: Array<string> = []
  for (const line of text.split("\n")) {
    const t = line.trim()
    if (t.startsWith("/**") || t.startsWith("*/")) {
      if (t.startsWith("*/")) break
      continue
    }
    if (t.startsWith("//")) lines.push(t.replace(/^\/\/ ?/, ""))
    else if (t.startsWith("*")) lines.push(t.replace(/^\* ?/, ""))
    else break
  }
  return lines.join(" ").trim()
}

interface Result {
  readonly step: Step
  readonly command: string
  readonly code: number | null
  readonly seconds: number
  readonly finishedAt: string
  readonly output: string
}

const run = (step: Step): Promise<Result> =>
  new Promise((resolve) => {
    const started = Date.now()
    const args = ["tsx", step.script, ...step.args]
    const child = spawn("npx", args, { cwd: root, env: { ...process.env, ...step.env }, stdio: ["ignore", "pipe", "pipe"] })
    let output = ""
    const keep = (chunk: Buffer) => {
      const s = chunk.toString()
      process.stdout.write(s)
      // Progress lines redraw with \r; only their last state is worth keeping.
      output += s
    }
    child.stdout.on("data", keep)
    child.stderr.on("data", keep)
    child.on("close", (code) =>
      resolve({
        step,
        command: `${Object.entries(step.env ?? {}).map(([k, v]) => `${k}=${v} `).join("")}npx ${args.join(" ")}`,
        code,
        seconds: (Date.now() - started) / 1000,
        finishedAt: new Date().toISOString(),
        output: output
          .split("\n")
          .map((l) => l.split("\r").filter((p) => p.trim() !== "").pop() ?? "")
          .filter((l) => !l.startsWith("npm warn"))
          .join("\n")
          .trim()
      })
    )
  })

const results: Array<Result> = []
for (const step of steps) {
  if (wanted !== null && !wanted.has(step.name)) continue
  if (!existsSync(path.join(root, step.script))) {
    console.log(`\n## ${step.title}: ${step.script} does not exist yet, skipped`)
    continue
  }
  console.log(`\n## ${step.title}: npx tsx ${step.script} ${step.args.join(" ")}`)
  results.push(await run(step))
}
rmSync(genDir, { recursive: true, force: true })

const cpus = os.cpus()
const machine = [
  `- CPU: ${cpus[0]?.model ?? "unknown"}, ${cpus.length} logical cores (available parallelism ${os.availableParallelism()})`,
  `- Memory: ${(os.totalmem() / 2 ** 30).toFixed(1)} GiB; OS: ${os.type()} ${os.release()} ${os.arch()}`,
  `- Node ${process.version}; load average at the end of the run: ${os.loadavg().map((x) => x.toFixed(2)).join(", ")}`,
  "- The machine is shared: other processes may run during a benchmark. Per-CPU-second figures, where a script",
  "  prints them, and medians over repeated runs are the numbers to compare."
].join("\n")

console.log("\n## Summary")
for (const r of results) console.log(`${r.step.name.padEnd(10)} exit ${r.code}  ${r.seconds.toFixed(0)} s`)

/** Generations cached under .cache/gen (e.g. the 1M-transaction one): their manifests record how long they took. */
const cachedGenerations = (): string => {
  const dir = path.join(root, ".cache/gen")
  if (!existsSync(dir)) return "none cached on this machine"
  const rows = readdirSync(dir)
    .filter((d) => existsSync(path.join(dir, d, "manifest.json")))
    .map((d) => JSON.parse(readFileSync(path.join(dir, d, "manifest.json"), "utf8")) as Manifest)
    .sort((a, b) => b.txs - a.txs)
    .map((m) => {
      const emu = m.seconds.baseCached ? "cached" : `${(m.baseTxs / m.seconds.base).toFixed(0)} tx/s`
      return `| ${m.seed} | ${m.txs} | ${m.baseTxs} x ${m.replicas} | ${m.bundles} / ${m.shardBlocks} | ${(m.bocBytes / m.txs).toFixed(0)} | ${emu} | ${(m.txs / m.seconds.derive).toFixed(0)} tx/s |`
    })
  return [
    "| seed | txs | emulated base x replicas | mc / shard blocks | BOC bytes/tx | emulator | derive+arrange+write |",
    "|---|---|---|---|---|---|---|",
    ...rows
  ].join("\n")
}

if (!values["no-write"]) {
  const fresh = results.map((r) =>
    [
      `## ${r.step.title}`,
      "",
      "```",
      r.command,
      "```",
      "",
      `How it is computed (from the script): ${headerOf(r.step.script)}`,
      "",
      `Ran ${r.finishedAt}; exit code ${r.code}, ${r.seconds.toFixed(0)} s wall. Output:`,
      "",
      "```",
      r.output,
      "```",
      ""
    ].join("\n")
  )
  // The hand-written assessment against the goals survives regeneration; the figures it cites are updated by hand.
  const previous = existsSync(path.join(root, "BENCHMARKS.md")) ? readFileSync(path.join(root, "BENCHMARKS.md"), "utf8") : ""
  // A partial run (--only) replaces its own sections and keeps the others' latest results, in step order.
  const previousSections = new Map<string, string>()
  for (const part of previous.split(/\n(?=## )/)) {
    const title = /^## (.*)/.exec(part)?.[1]
    if (title !== undefined) previousSections.set(title, part.trimEnd() + "\n")
  }
  const sections = steps.flatMap((step) => {
    const i = results.findIndex((r) => r.step === step)
    if (i >= 0) return [fresh[i]!]
    const kept = previousSections.get(step.title)
    return kept === undefined ? [] : [kept]
  })
  const standing = /<!-- standing:start -->[\s\S]*<!-- standing:end -->/.exec(previous)?.[0] ?? ""
  const doc = [
    "# Benchmarks",
    "",
    `Latest results of \`npm run bench\` (bench/run.ts), last written ${new Date().toISOString()}. Regenerate with`,
    "`npm run bench` (`-- --only api-1m,...` reruns some steps and keeps the other sections); each section below is",
    "one script run as a separate process, in this order, with its printed output verbatim and the time it ran.",
    "",
    "## Goals (issue: realistic data at volume)",
    "",
    "- End-to-end ingest at least 20,000 tx/s and at least half the decode ceiling (per core, times the cores).",
    "- API at least 2,000 requests/s per endpoint with p99 under 25 ms at 40 transactions per response.",
    "- Peak resident memory under 300 MB per pipeline process at full speed; storage no more than the raw BOC bytes.",
    "",
    ...(standing === "" ? [] : [standing, ""]),
    "## Machine",
    "",
    machine,
    "",
    ...sections,
    "## Generated chains cached on this machine",
    "",
    "From each `.cache/gen/*/manifest.json` (`npm run generate -- --seed S --txs N`): emulator rate = emulated base",
    "transactions / wall seconds of the emulation phase (worlds run in parallel threads); derive rate = all output",
    "transactions / wall seconds from the first derived replica to the last bundle written.",
    "",
    cachedGenerations(),
    ""
  ].join("\n")
  writeFileSync(path.join(root, "BENCHMARKS.md"), doc)
  console.log("wrote BENCHMARKS.md")
}
