// What the producer's decode worker's isolate is made of, on the liteserver source over a generated chain.
// 1. In this process, the worker's work ("files" requests: block files read, the bundle record and the drafts) once
//    over the chain in order, as one worker meets it, with fresh body memos of each size asked for: what the text memo
//    and the object memo hold at the end (entries, weight) and what they caught (hits / lookups).
// 2. A real decode worker (the pool's script and limits) sent the same requests one at a time: its heap as it answers
//    (total, used, external; the largest), then a heap snapshot taken from this thread (which collects first: the
//    live heap) summed by node type and by the largest constructors / strings; --snapshot FILE keeps it.
// Usage: npx tsx bench/workerHeap.ts --gen-dir DIR [--mc 0 (all)] [--text-chars 16777216,4194304,1048576,262144]
// [--worker-only] [--young MB] [--old MB] [--snapshot FILE] [--compiled (dist/'s worker bundle, as the runnables start it) | --compiled-graph
// (dist/'s unbundled worker module)] | --summarize FILE. Numbers are printed, never asserted.
import { createWriteStream, readFileSync } from "node:fs"
import { Worker } from "node:worker_threads"
import { Either } from "effect"
import { parseCli } from "../src/infra/cli.js"
import { processCpuSeconds } from "../src/ops/cpu.js"
import { prepare } from "../src/producer/assemble.js"
import { assembleBlockFiles } from "../src/producer/blockFiles.js"
import { workerLimits, workerScript } from "../src/producer/DecodePool.js"
import { WORKER_BUNDLE } from "../src/producer/workerBundle.js"
import type { DecodeReply, DecodeRequest, ThreadHeap } from "../src/producer/decodeWorker.js"
import { movableBuffers, ownBlockFile } from "../src/source/liteserver/blockFiles.js"
import { bodyMemoStats, resetBodyMemo } from "../src/ton/bodies/decode.js"
import { installFastCellHash } from "../src/ton/fastHash.js"
import { bodyTextMemoStats, resetBodyTextMemo } from "../src/ton/v3Text.js"
import { generatedBlockFileBundles } from "./lib/chain.js"

const USAGE = `Usage: npx tsx bench/workerHeap.ts --gen-dir DIR [--mc 0] [--text-chars 16777216,4194304,1048576,262144] [--worker-only] [--snapshot FILE] [--young MB]
  The decode worker's isolate: its body memos by size, its heap as it answers, a heap snapshot summed.`
const args = parseCli(
  {
    "gen-dir": { type: "string" },
    mc: { type: "string", default: "0" },
    "text-chars": { type: "string", default: "16777216,4194304,1048576,262144" },
    "worker-only": { type: "boolean", default: false },
    snapshot: { type: "string" },
    young: { type: "string" },
    old: { type: "string" },
    compiled: { type: "boolean", default: false },
    "compiled-graph": { type: "boolean", default: false },
    summarize: { type: "string" }
  },
  USAGE
)
// --summarize FILE: a snapshot written before (--snapshot, bench/workerSnapshot.mjs) summed up, nothing run
const mb = (n: number) => (n / 1024 / 1024).toFixed(1)
const summarize = (text: string) => {
  const snap = JSON.parse(text) as {
    snapshot: { meta: { node_fields: Array<string>; node_types: [Array<string>, ...Array<unknown>] } }
    nodes: Array<number>
    strings: Array<string>
  }
  const fields = snap.snapshot.meta.node_fields
  const width = fields.length
  const [fType, fName, fSize] = ["type", "name", "self_size"].map((f) => fields.indexOf(f))
  const types = snap.snapshot.meta.node_types[0]
  const byType = new Map<string, { size: number; count: number }>()
  const byName = new Map<string, { size: number; count: number }>()
  // strings by what they are: bodies' texts (the text memo), source maps' mappings, other long strings (mostly
  // modules' source text), short strings
  const kinds = new Map<string, { size: number; count: number }>()
  const add = (m: Map<string, { size: number; count: number }>, k: string, size: number) => {
    const v = m.get(k) ?? { size: 0, count: 0 }
    v.size += size
    v.count++
    m.set(k, v)
  }
  let live = 0
  for (let i = 0; i < snap.nodes.length; i += width) {
    const type = types[snap.nodes[i + fType!]!]!
    const name = snap.strings[snap.nodes[i + fName!]!]!
    const size = snap.nodes[i + fSize!]!
    live += size
    add(byType, type, size)
    const isString = type === "string" || type === "concatenated string" || type === "sliced string"
    if (isString) {
      add(
        kinds,
        name.startsWith('{"@type"') || name.startsWith('"') || name === "null"
          ? "bodies' texts and other JSON"
          : /^[A-Za-z0-9+/]{4,7}[,;]/.test(name) && /AAAA|AAA[A-Z]/.test(name.slice(0, 40))
            ? "source maps' mappings"
            : size >= 1024
              ? "long strings (source text)"
              : "short strings",
        size
      )
    }
    add(byName, isString ? `${type}: ${name.length > 40 ? `${name.slice(0, 40)}…(${name.length})` : name}` : `${type}: ${name.slice(0, 60)}`, size)
  }
  process.stdout.write(`snapshot (after a full collection): live ${mb(live)} MB in ${snap.nodes.length / width} nodes\n`)
  for (const [t, v] of [...byType].sort((a, b) => b[1].size - a[1].size)) process.stdout.write(`  ${t}: ${mb(v.size)} MB, ${v.count} nodes\n`)
  process.stdout.write("strings by kind:\n")
  for (const [t, v] of [...kinds].sort((a, b) => b[1].size - a[1].size)) process.stdout.write(`  ${t}: ${mb(v.size)} MB, ${v.count}\n`)
  process.stdout.write("largest by type and name:\n")
  for (const [k, v] of [...byName].sort((a, b) => b[1].size - a[1].size).slice(0, 30)) {
    process.stdout.write(`  ${mb(v.size)} MB ${v.count}x ${k.replace(/\n/g, " ")}\n`)
  }
}
if (args.summarize !== undefined) {
  summarize(readFileSync(args.summarize, "utf8"))
  process.exit(0)
}
if (args["gen-dir"] === undefined) {
  process.stderr.write(`${USAGE}\n`)
  process.exit(2)
}
installFastCellHash()
const { bundles, network } = await generatedBlockFileBundles(args["gen-dir"], Number(args.mc))
const pct = (a: number, b: number) => (b === 0 ? "-" : `${((100 * a) / b).toFixed(1)}%`)

if (args["worker-only"] !== true) {
  for (const chars of args["text-chars"].split(",").map(Number)) {
    resetBodyTextMemo(chars)
    resetBodyMemo()
    let txs = 0
    for (const b of bundles) {
      const a = assembleBlockFiles(b, network)
      if (Either.isLeft(a)) throw a.left
      prepare(a.right)
      txs += a.right.bundle.transactions.length
    }
    const t = bodyTextMemoStats()
    const o = bodyMemoStats()
    process.stdout.write(
      `text memo of ${mb(chars)} M chars: ${bundles.length} bundles, ${txs} tx; holds ${t.entries} texts, ${mb(t.weight)} M chars; ` +
        `hits ${t.hits} of ${t.hits + t.misses} lookups (${pct(t.hits, t.hits + t.misses)}); ` +
        `object memo holds ${o.entries}, ${mb(o.weight)} MB, hits ${o.hits} of ${o.hits + o.misses}\n`
    )
  }
}

// 2. The real worker.
const limits = {
  ...workerLimits,
  ...(args.young === undefined ? {} : { maxYoungGenerationSizeMb: Number(args.young) }),
  ...(args.old === undefined ? {} : { maxOldGenerationSizeMb: Number(args.old) })
}
// --compiled: the script the runnables start (dist/, from `npm run build`) instead of the sources' bundle;
// --compiled-graph: the compiled worker's own module graph, unbundled (how the runnables started it before)
const script =
  args["compiled-graph"] === true
    ? new URL("../dist/src/producer/decodeWorker.js", import.meta.url)
    : args.compiled === true
      ? new URL(`../dist/src/producer/${WORKER_BUNDLE}`, import.meta.url)
      : await workerScript()
const worker = new Worker(script, { resourceLimits: limits })
const replies: Array<(r: DecodeReply) => void> = []
worker.on("message", (m: DecodeReply) => replies.shift()?.(m))
const next = () => new Promise<DecodeReply>((resolve) => replies.push(resolve))
await next() // ready
let peak: ThreadHeap | undefined
let sumTotal = 0
let sumUsed = 0
let n = 0
let cpu = 0
let txs = 0
const p0 = processCpuSeconds()
for (const [i, b] of bundles.entries()) {
  const files = { ...b, blocks: b.blocks.map(ownBlockFile) }
  const req: DecodeRequest = { id: i, op: "files", files, network }
  const answer = next()
  worker.postMessage(req, movableBuffers(files.blocks))
  const r = await answer
  if (r.op === "ready") continue
  const h = r.heap
  cpu += r.cpu.decode + r.cpu.encode
  if (r.op === "bundle") txs += r.prepared.drafts.list.length
  if (peak === undefined || h.total + h.external > peak.total + peak.external) peak = h
  sumTotal += h.total
  sumUsed += h.used
  n++
}
if (peak !== undefined) {
  process.stdout.write(
    `worker (young ${limits.maxYoungGenerationSizeMb} MB, old ${limits.maxOldGenerationSizeMb} MB) over ${n} requests: largest total + external ${mb(peak.total + peak.external)} MB ` +
      `(total ${mb(peak.total)}, used ${mb(peak.used)}, external ${mb(peak.external)}, malloced ${mb(peak.malloced)}, young ${mb(peak.young)}); ` +
      `mean total ${mb(sumTotal / n)}, mean used ${mb(sumUsed / n)}; worker thread ${((cpu / txs) * 1e3).toFixed(3)} ms/tx, ` +
      `process ${(((processCpuSeconds() - p0) / txs) * 1e3).toFixed(3)} ms/tx over ${txs} tx\n`
  )
}

// The snapshot (V8 collects first: the live heap).
const stream = await worker.getHeapSnapshot()
const chunks: Array<Buffer> = []
const keep = args.snapshot === undefined ? undefined : createWriteStream(args.snapshot)
for await (const c of stream) {
  const buf = Buffer.from(c as Buffer)
  chunks.push(buf)
  keep?.write(buf)
}
keep?.end()
await worker.terminate()
summarize(Buffer.concat(chunks).toString("utf8"))
