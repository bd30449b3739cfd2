// What the consumer's batches cost in memory in process, its Kafka, engine and HTTP legs apart: a generated chain's
// masterchain blocks made into bundle records as the decode worker makes them, cut into batches by the values' bytes
// as the consumer cuts them (CONSUMER_BATCH_BYTES), then, for several rounds, each batch decoded, flattened and encoded
// as a single node's sink does, its tables' bodies either kept in memory (`--bodies memory`, the sink before
// 2026-11-29) or spooled to files as they are encoded (`--bodies spool`, src/clickhouse/spool.ts), each body then
// read back once as an insert would read it. Prints the peak RSS and the largest V8 heap, external and untracked
// native memory above what the process held before the first batch, and the CPU of the rounds. One variant per
// process: run it several times alternating, with `node --heap-growing-percent=P` to see the consumer's heap bound.
// The records are built once into --values-dir by a first run that measures nothing (reused when present), so that
// their building sets no peak.
// Usage: node --import tsx bench/batchMemory.ts --gen-dir DIR --values-dir DIR [--mc 150] [--bodies memory|spool]
//          [--rounds 3] [--batch-bytes 16777216]
import { Either } from "effect"
import { createReadStream, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { SpoolFile } from "../src/clickhouse/spool.js"
import { INSERT_ORDER, type TableName, visitBundleRows } from "../src/flatten/bundle.js"
import { parseCli } from "../src/infra/cli.js"
import { decodeBundle } from "../src/kafka/codec.js"
import { prepare } from "../src/producer/assemble.js"
import { assembleBlockFiles } from "../src/producer/blockFiles.js"
import { encoderFor, type RowEncoder } from "../src/sink/encode.js"
import { installFastCellHash } from "../src/ton/fastHash.js"
import { generatedBlockFileBundles } from "./lib/chain.js"

const USAGE = `Usage: node --import tsx bench/batchMemory.ts --gen-dir DIR --values-dir DIR [--mc 150] [--bodies memory|spool]
    [--rounds 3] [--batch-bytes 16777216]
  The consumer's batches decoded, flattened and encoded in process, bodies in memory or spooled: peak memory and CPU.`
const args = parseCli(
  {
    "gen-dir": { type: "string" },
    "values-dir": { type: "string" },
    mc: { type: "string", default: "150" },
    bodies: { type: "string", default: "spool" },
    rounds: { type: "string", default: "3" },
    "batch-bytes": { type: "string", default: String(16 * 1024 * 1024) }
  },
  USAGE
)
if (args["gen-dir"] === undefined || args["values-dir"] === undefined || !["memory", "spool"].includes(args.bodies!)) {
  process.stderr.write(`${USAGE}\n`)
  process.exit(2)
}
const valuesDir = args["values-dir"]!
const spool = args.bodies === "spool"
const mb = (n: number) => (n / 1e6).toFixed(0)

/** The chain's bundle records, built once into the values directory. */
const values = async (): Promise<Array<Buffer>> => {
  if (!existsSync(join(valuesDir, "done"))) {
    mkdirSync(valuesDir, { recursive: true })
    installFastCellHash()
    const { bundles, network } = await generatedBlockFileBundles(args["gen-dir"]!, Number(args.mc))
    let i = 0
    for (const files of bundles) {
      const assembled = assembleBlockFiles(files, network)
      if (Either.isLeft(assembled)) throw assembled.left
      const record = prepare(assembled.right).bundle
      if (record !== null) writeFileSync(join(valuesDir, `${String(i++).padStart(6, "0")}.bin`), record.value)
    }
    writeFileSync(join(valuesDir, "done"), String(i))
    // the building's own memory would set this process's peak: measured by the next run
    console.log(`${i} bundle records written into ${valuesDir}; run again to measure`)
    process.exit(0)
  }
  return readdirSync(valuesDir)
    .filter((f) => f.endsWith(".bin"))
    .sort()
    .map((f) => readFileSync(join(valuesDir, f)))
}

const readBack = (file: string) =>
  new Promise<void>((resolve, reject) => {
    const r = createReadStream(file)
    r.on("data", () => undefined)
    r.on("end", resolve)
    r.on("error", reject)
  })

const main = async () => {
  const all = await values()
  const batches: Array<Array<Buffer>> = []
  let batch: Array<Buffer> = []
  let bytes = 0
  for (const v of all) {
    batch.push(v)
    bytes += v.length
    if (bytes >= Number(args["batch-bytes"])) {
      batches.push(batch)
      batch = []
      bytes = 0
    }
  }
  if (batch.length > 0) batches.push(batch)
  const dir = mkdtempSync(join(tmpdir(), "batch-memory-"))
  const base = process.memoryUsage()
  const untracked = (m: NodeJS.MemoryUsage) => m.rss - m.heapTotal - m.external
  const most = { rss: 0, heap: 0, external: 0, untracked: 0 }
  const sample = () => {
    const m = process.memoryUsage()
    most.rss = Math.max(most.rss, m.rss - base.rss)
    most.heap = Math.max(most.heap, m.heapTotal - base.heapTotal)
    most.external = Math.max(most.external, m.external - base.external)
    most.untracked = Math.max(most.untracked, untracked(m) - untracked(base))
  }
  let serial = 0
  let txs = 0
  const cpu = process.cpuUsage()
  for (let round = 0; round < Number(args.rounds); round++) {
    for (const b of batches) {
      const bundles = b.map((v) => {
        const d = decodeBundle(v)
        if (Either.isLeft(d)) throw d.left
        return d.right
      })
      txs += bundles.reduce((n, x) => n + x.transactions.length, 0)
      const bodies = new Map<TableName, { readonly encoder: RowEncoder; readonly file: SpoolFile }>(
        INSERT_ORDER.map((t) => {
          const encoder = encoderFor(t)
          const file = new SpoolFile(join(dir, `${++serial}.body`))
          if (spool) encoder.spillTo(file)
          return [t, { encoder, file }]
        })
      )
      let rows = 0
      visitBundleRows(
        bundles,
        (table, row) => {
          bodies.get(table)!.encoder.add(row)
          if (++rows % 500 === 0) sample()
        },
        undefined,
        { pageKv: true }
      )
      sample()
      for (const table of INSERT_ORDER) {
        const { encoder, file } = bodies.get(table)!
        const body = file.finish(encoder.finishChunks().chunks)
        if (!Array.isArray(body)) await readBack((body as { file: string }).file)
        else await new Promise((r) => setImmediate(r))
        file.remove()
        sample()
      }
    }
  }
  const used = process.cpuUsage(cpu)
  rmSync(dir, { recursive: true, force: true })
  console.log(
    `bodies ${args.bodies}: ${batches.length} batches of ${all.length} bundles, ${args.rounds} rounds, ${txs} tx; ` +
      `above the start: peak RSS ${mb(most.rss)} MB, V8 heap ${mb(most.heap)}, external ${mb(most.external)}, ` +
      `untracked native ${mb(most.untracked)} (each its own largest); CPU ${((used.user + used.system) / txs).toFixed(1)} us/tx`
  )
}

void main()
