// The producer's decode worker's work on the liteserver source, in process: every masterchain block's files (the
// chain's blocks built as the fake liteserver serves them) decoded and assembled, its bundle record encoded and its
// transactions' v3 drafts rendered, as a worker answers an "files" request, round after round. Variants of the drafts'
// renderer alternate round by round so that the machine's load falls on each alike; the drafts are compared byte for
// byte first. Prints per round this thread's CPU per transaction by stage (block files decoded, the bundle's JSON, the
// drafts), the process's CPU (V8's GC threads included) and what the collector did (its time, the heap it freed: the garbage); then medians per variant.
// With --worker the round is exactly what a worker answers a "files" request with (prepare: the drafts rendered with
// their bodies' texts gathered, the bundle record with those texts encoded), one variant ("worker"), its stages block
// files and prepare.
// Usage: npx tsx bench/decodeWorker.ts --gen-dir DIR [--rounds 6] [--mc 0 (all)] [--variants main,project]
// [--only-variant NAME (no comparison: for a profile)] [--worker] [--heap-prof FILE [--heap-interval 4096]].
// With --heap-prof the rounds run under V8's sampling heap profiler (objects collected by either collector kept, so
// every allocation counts, not only what survives): the profile is written to FILE (Chrome's .heapprofile) and the
// allocations per transaction are printed by function and by module (bench/lib/heapProfile.ts). Numbers are printed,
// never asserted.
import { GCProfiler } from "node:v8"
import { Either } from "effect"
import { parseCli } from "../src/infra/cli.js"
import { encodeBundle } from "../src/kafka/codec.js"
import { draftTransactions, type Drafts } from "../src/kafka/transactions.js"
import { processCpuSeconds, threadCpuSeconds } from "../src/ops/cpu.js"
import { prepare } from "../src/producer/assemble.js"
import { assembleBlockFiles } from "../src/producer/blockFiles.js"
import { installFastCellHash } from "../src/ton/fastHash.js"
import type { MasterchainBundle } from "../src/ton/record.js"
import { draftTransactionsReference } from "../test/support/draftsReference.js"
import { generatedBlockFileBundles } from "./lib/chain.js"
import { startHeapSampling, summarizeHeapProfile } from "./lib/heapProfile.js"

const USAGE = `Usage: npx tsx bench/decodeWorker.ts --gen-dir DIR [--rounds 6] [--mc 0] [--variants main,project] [--only-variant NAME]
  The decode worker's work on block files, by stage, drafts renderers in alternating rounds.`
const args = parseCli(
  {
    "gen-dir": { type: "string" },
    rounds: { type: "string", default: "6" },
    mc: { type: "string", default: "0" },
    variants: { type: "string", default: "main,project" },
    "only-variant": { type: "string" },
    worker: { type: "boolean", default: false },
    "heap-prof": { type: "string" },
    "heap-interval": { type: "string", default: "4096" }
  },
  USAGE
)
if (args["gen-dir"] === undefined) {
  process.stderr.write(`${USAGE}\n`)
  process.exit(2)
}

/** The drafts' renderers: main's (the object tree through goJson, kept as the reference) and the project's. */
const renderers: Record<string, (b: MasterchainBundle) => Drafts> = {
  main: draftTransactionsReference,
  project: draftTransactions
}
const asWorker = args.worker === true
const names = asWorker ? ["worker"] : (args["only-variant"] ?? args.variants).split(",")
if (asWorker) renderers.worker = draftTransactions
for (const n of names) if (renderers[n] === undefined) throw new Error(`unknown variant ${n}`)

installFastCellHash()
const { bundles, network } = await generatedBlockFileBundles(args["gen-dir"], Number(args.mc))

/** What the collector did during `f`: its pauses' time and the heap it freed (the garbage `f` left, roughly). */
const collected = <A>(f: () => A): [A, { readonly ms: number; readonly freed: number; readonly gcs: number }] => {
  const profiler = new GCProfiler()
  profiler.start()
  const a = f()
  const stats = profiler.stop()?.statistics ?? []
  let ms = 0
  let freed = 0
  for (const e of stats) {
    ms += e.cost / 1000
    freed += Math.max(0, e.beforeGC.heapStatistics.usedHeapSize - e.afterGC.heapStatistics.usedHeapSize)
  }
  return [a, { ms, freed, gcs: stats.length }]
}

interface Round {
  readonly decode: number
  readonly bundle: number
  readonly drafts: number
  readonly thread: number
  readonly process: number
  readonly gcMs: number
  readonly gcs: number
  /** KiB per transaction the collector freed. */
  readonly freed: number
}

let txs = 0
const round = (name: string, keep?: Array<Drafts>): Round => {
  const render = renderers[name]!
  let decode = 0
  let bundle = 0
  let drafts = 0
  let n = 0
  const t0 = threadCpuSeconds()
  const p0 = processCpuSeconds()
  for (const b of bundles) {
    const a = threadCpuSeconds()
    const assembled = assembleBlockFiles(b, network)
    if (Either.isLeft(assembled)) throw assembled.left
    const x = threadCpuSeconds()
    const { bundle: mb, deadLetters } = assembled.right
    if (asWorker) {
      // the worker's whole encode stage: drafts, bodies' texts, the bundle record with them
      const prepared = prepare(assembled.right)
      keep?.push(prepared.drafts)
      drafts += threadCpuSeconds() - x
    } else {
      encodeBundle(mb, deadLetters.length)
      const y = threadCpuSeconds()
      const d = render(mb)
      const z = threadCpuSeconds()
      keep?.push(d)
      bundle += y - x
      drafts += z - y
    }
    decode += x - a
    n += mb.transactions.length
  }
  txs = n
  const per = (s: number) => (s / n) * 1e6
  return {
    decode: per(decode),
    bundle: per(bundle),
    drafts: per(drafts),
    thread: per(threadCpuSeconds() - t0),
    process: per(processCpuSeconds() - p0),
    gcMs: 0,
    gcs: 0,
    freed: 0
  }
}

if (args["only-variant"] === undefined && names.length > 1) {
  const outs = names.map((n) => {
    const keep: Array<Drafts> = []
    round(n, keep)
    return keep
  })
  let same = true
  for (let i = 1; i < outs.length; i++) {
    for (let j = 0; j < outs[0]!.length && same; j++) {
      const [a, b] = [outs[0]![j]!, outs[i]![j]!]
      same = Buffer.compare(Buffer.from(a.bytes), Buffer.from(b.bytes)) === 0 && JSON.stringify(a.list) === JSON.stringify(b.list)
    }
  }
  process.stdout.write(`${bundles.length} masterchain blocks, ${txs} transactions; drafts identical: ${same}\n`)
}

const stages = (bundle: string, drafts: string) => (asWorker ? `prepare ${drafts}` : `bundle JSON ${bundle}, drafts ${drafts}`)
const rounds: Record<string, Array<Round>> = Object.fromEntries(names.map((n) => [n, []]))
const sampling = args["heap-prof"] === undefined ? null : await startHeapSampling(Number(args["heap-interval"]))
const f1 = (x: number) => x.toFixed(1)
for (let r = 0; r < Number(args.rounds); r++) {
  const order = r % 2 === 0 ? names : [...names].reverse()
  for (const n of order) {
    const [x0, gc] = collected(() => round(n))
    const x = { ...x0, gcMs: gc.ms, gcs: gc.gcs, freed: gc.freed / txs / 1024 }
    rounds[n]!.push(x)
    process.stdout.write(
      `round ${r + 1} ${n}: thread ${f1(x.thread)} us/tx (block files ${f1(x.decode)}, ${stages(f1(x.bundle), f1(x.drafts))}), process ${f1(x.process)} us/tx, GC ${x.gcs} collections ${f1(x.gcMs)} ms, ${f1(x.freed)} KiB/tx freed\n`
    )
  }
}
if (sampling !== null) {
  const profile = await sampling.stop()
  const { writeFileSync } = await import("node:fs")
  writeFileSync(args["heap-prof"]!, JSON.stringify(profile))
  process.stdout.write(summarizeHeapProfile(profile, txs * Number(args.rounds) * names.length))
}
const median = (xs: ReadonlyArray<number>) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!
for (const n of names) {
  const rs = rounds[n]!
  const m = (k: keyof Round) => f1(median(rs.map((x) => x[k])))
  process.stdout.write(
    `median ${n}: thread ${m("thread")} us/tx (block files ${m("decode")}, ${stages(m("bundle"), m("drafts"))}), process ${m("process")} us/tx, GC ${m("gcMs")} ms a round, ${m("freed")} KiB/tx freed\n`
  )
}
