// The consumer's ClickHouse side alone: Kafka record values of a generated chain (decoded once by the producer's own
// decoder and cached next to the chain) go through the consumer's BatchBuffer and ClickHouseSink into a fresh
// embedded ClickHouse, without Kafka. Prints transactions per second, seconds per table and the peak RSS of this
// process. Usage: npx tsx bench/sink.ts [--gen-dir DIR] [--txs N] [--batch-rows N] [--batch-bytes N]. Numbers are
// printed, never asserted.
import { Effect, Layer } from "effect"
import {
  closeSync,
  createWriteStream,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  readSync,
  renameSync,
  rmSync
} from "node:fs"
import { once } from "node:events"
import { tmpdir } from "node:os"
import { basename, dirname, join, resolve } from "node:path"
import { parseCli } from "../src/infra/cli.js"
import { ClickHouse } from "../src/clickhouse/ClickHouse.js"
import { migrate } from "../src/clickhouse/migrations.js"
import { BatchBuffer, estimateRows } from "../src/consumer/buffer.js"
import { readBundles } from "../tools/gen/generate.js"
import { decodeBundle } from "../src/kafka/codec.js"
import { Metrics } from "../src/ops/Metrics.js"
import { assembleBundle, pipelineDecode } from "../src/producer/assemble.js"
import { ClickHouseSink } from "../src/sink/ClickHouseSink.js"
import { valueDigest } from "../src/sink/tokens.js"
import { repoRoot } from "../src/infra/kafkaBroker.js"
import { installFastCellHash } from "../src/ton/fastHash.js"

const USAGE = `Usage: npx tsx bench/sink.ts [--gen-dir DIR] [--txs N] [--batch-rows N] [--batch-bytes N]
  The consumer's ClickHouse side alone over a generated chain; numbers are printed, never asserted.`
const args = parseCli({
  "gen-dir": { type: "string", default: resolve(repoRoot, ".cache/gen/s1-n60000-b16000-w2-l2-m100-v2") },
  txs: { type: "string", default: "0" },
  "batch-rows": { type: "string", default: "50000" },
  "batch-bytes": { type: "string", default: "0" }
}, USAGE)
// As the consumer does at start (BundleConsumer): its page rendering parses message bodies.
installFastCellHash()
const genDir = resolve(args["gen-dir"])
const maxTxs = Number(args.txs) || Number.POSITIVE_INFINITY
const batchRows = Number(args["batch-rows"])
const batchBytes = Number(args["batch-bytes"]) || Number.POSITIVE_INFINITY

/** The Kafka values of the chain, one JSON bundle per line, made once with the producer's decoder. */
const valuesFile = resolve(repoRoot, ".cache/bench-sink", `${basename(genDir)}.jsonl`)
if (!existsSync(valuesFile)) {
  mkdirSync(dirname(valuesFile), { recursive: true })
  const started = Date.now()
  const tmp = `${valuesFile}.${process.pid}.tmp`
  const out = createWriteStream(tmp)
  let first = true
  for await (const g of readBundles(genDir)) {
    // The first bundle is the chain's base (its shard blocks hold no transactions); the fake serves it, never publishes.
    if (first) {
      first = false
      continue
    }
    const { bundle } = assembleBundle(g as never, "mainnet", pipelineDecode)
    if (!out.write(`${JSON.stringify(bundle)}\n`)) await once(out, "drain")
  }
  out.end()
  await once(out, "finish")
  renameSync(tmp, valuesFile)
  console.log(`decoded the chain into ${valuesFile} in ${((Date.now() - started) / 1000).toFixed(1)} s`)
}

/** Lines of a file as Buffers, read in slices (readline's iterator would queue the whole file ahead of its reader). */
function* readValues(file: string): Generator<Buffer> {
  const fd = openSync(file, "r")
  try {
    let rest = Buffer.alloc(0)
    const slice = Buffer.alloc(4 << 20)
    for (;;) {
      const n = readSync(fd, slice, 0, slice.length, null)
      if (n === 0) break
      let data = Buffer.concat([rest, slice.subarray(0, n)])
      let nl: number
      while ((nl = data.indexOf(10)) >= 0) {
        if (nl > 0) yield Buffer.from(data.subarray(0, nl))
        data = data.subarray(nl + 1)
      }
      rest = Buffer.from(data)
    }
    if (rest.length > 0) yield rest
  } finally {
    closeSync(fd)
  }
}

const dataDir = mkdtempSync(join(tmpdir(), "bench-sink-"))
const peaks = { heap: 0, external: 0, anon: 0 }
const sampler = setInterval(() => {
  const m = process.memoryUsage()
  const anon = Number(/RssAnon:\s+(\d+) kB/.exec(readFileSync("/proc/self/status", "utf8"))![1]) * 1024
  peaks.heap = Math.max(peaks.heap, m.heapUsed)
  peaks.external = Math.max(peaks.external, m.external)
  peaks.anon = Math.max(peaks.anon, anon)
}, 50)
const mb = (n: number) => `${(n / 1e6).toFixed(0)} MB`
const peakRss = () => Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync("/proc/self/status", "utf8"))![1]) * 1024

const run = Effect.gen(function* () {
  yield* migrate()
  const sink = yield* ClickHouseSink
  const metrics = yield* Metrics
  const buffer = new BatchBuffer()
  const beat = async () => undefined
  const baseRss = peakRss()
  const started = performance.now()
  let txs = 0
  let batches = 0
  const flush = Effect.gen(function* () {
    const { items } = buffer.take()
    const result = yield* sink.write(
      items.map((i) => ({ bundle: i.bundle, digest: i.digest })),
      beat
    )
    txs += result.transactions
    batches++
  })
  // Read as Kafka hands records over: one value at a time, so the chain never sits in memory as a whole.
  const lines = readValues(valuesFile)
  let stored = 0
  for (let offset = 0; stored < maxTxs; offset++) {
    const next = lines.next()
    if (next.done === true) break
    const value = next.value
    const decoded = decodeBundle(value)
    if (decoded._tag === "Left") throw decoded.left
    const bundle = decoded.right
    stored += bundle.transactions.length
    buffer.add({ bundle, digest: valueDigest(value), offset: BigInt(offset), rows: estimateRows(bundle), bytes: value.length }, Date.now())
    if (buffer.due(batchRows, Number.POSITIVE_INFINITY, Date.now(), batchBytes)) yield* flush
  }
  if (buffer.size > 0) yield* flush
  const seconds = (performance.now() - started) / 1000
  console.log(`sink: ${txs} transactions in ${batches} batches, ${seconds.toFixed(1)} s = ${Math.round(txs / seconds)} tx/s`)
  console.log(`  batch: ${batchRows} rows${Number.isFinite(batchBytes) ? `, ${batchBytes} bytes` : ""}`)
  const insert = (yield* Effect.promise(() => metrics.consumerInsertSeconds.get())).values
  const rows = (yield* Effect.promise(() => metrics.consumerRows.get())).values
  for (const v of insert.filter((x) => x.metricName?.endsWith("_sum"))) {
    const table = String(v.labels.table)
    const n = rows.find((r) => r.labels.table === table)?.value ?? 0
    console.log(`  insert ${table.padEnd(18)} ${String(n).padStart(8)} rows in ${v.value.toFixed(1).padStart(6)} s = ${Math.round(n / v.value)} rows/s`)
  }
  console.log(
    `peak RSS ${mb(peakRss())} (${mb(baseRss)} before the first record); sampled peaks: anonymous ${mb(peaks.anon)}, ` +
      `JS heap used ${mb(peaks.heap)}, external ${mb(peaks.external)}`
  )
})

await Effect.runPromise(
  run.pipe(
    Effect.provide(
      ClickHouseSink.layer.pipe(
        Layer.provideMerge(ClickHouse.fromConfig({ url: undefined, user: "default", password: "", database: "ton", dataDir })),
        Layer.provideMerge(Metrics.layerTest)
      )
    )
  )
).finally(() => {
  clearInterval(sampler)
  rmSync(dataDir, { recursive: true, force: true })
})
