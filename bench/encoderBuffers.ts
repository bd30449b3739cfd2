// What the consumer holds for one batch once it is encoded, in process: a generated chain's masterchain blocks made
// into bundle records as the decode worker makes them (block files decoded, the record encoded), decoded back as the
// consumer decodes a Kafka value, cut into batches by the values' bytes as the consumer cuts them
// (CONSUMER_BATCH_BYTES), and every table's rows encoded as a single node's sink encodes them. Prints per batch the
// values' bytes, the insert bodies' bytes (in all and per table), and the bytes the encoders' buffers hold for them
// just before the bodies are taken (`capacity`: used or not). Numbers are printed, never asserted.
// Usage: npx tsx bench/encoderBuffers.ts --gen-dir DIR [--mc 120 (0: all)] [--batch-bytes 16777216]
import { Either } from "effect"
import { INSERT_ORDER, type TableName, visitBundleRows } from "../src/flatten/bundle.js"
import { parseCli } from "../src/infra/cli.js"
import { decodeBundle } from "../src/kafka/codec.js"
import { prepare } from "../src/producer/assemble.js"
import { assembleBlockFiles } from "../src/producer/blockFiles.js"
import { encoderFor, type RowEncoder } from "../src/sink/encode.js"
import { installFastCellHash } from "../src/ton/fastHash.js"
import type { MasterchainBundle } from "../src/ton/record.js"
import { generatedBlockFileBundles } from "./lib/chain.js"

const USAGE = `Usage: npx tsx bench/encoderBuffers.ts --gen-dir DIR [--mc 120] [--batch-bytes 16777216]
  A batch's values, its encoded insert bodies per table, and the encoders' buffers held for them.`
const args = parseCli(
  {
    "gen-dir": { type: "string" },
    mc: { type: "string", default: "120" },
    "batch-bytes": { type: "string", default: String(16 * 1024 * 1024) }
  },
  USAGE
)
if (args["gen-dir"] === undefined) {
  process.stderr.write(`${USAGE}\n`)
  process.exit(2)
}
const batchBytes = Number(args["batch-bytes"])

const mb = (n: number) => (n / 1e6).toFixed(1)

const report = (batch: ReadonlyArray<{ readonly bundle: MasterchainBundle; readonly bytes: number }>) => {
  const encoders = new Map<TableName, RowEncoder>(INSERT_ORDER.map((t) => [t, encoderFor(t)]))
  visitBundleRows(
    batch.map((x) => x.bundle),
    (table, row) => encoders.get(table)!.add(row),
    undefined,
    { pageKv: true }
  )
  let held = 0
  let body = 0
  const tables: Array<string> = []
  for (const table of INSERT_ORDER) {
    const e = encoders.get(table)!
    held += e.capacity
    const { bytes } = e.finishChunks()
    body += bytes
    if (bytes > 0) tables.push(`${table} ${mb(bytes)}`)
  }
  const txs = batch.reduce((n, x) => n + x.bundle.transactions.length, 0)
  const values = batch.reduce((n, x) => n + x.bytes, 0)
  console.log(
    `batch of ${batch.length} bundles, ${txs} tx: values ${mb(values)} MB, bodies ${mb(body)} MB, encoder buffers ` +
      `${mb(held)} MB (unused ${mb(held - body)}); ${tables.join(", ")}`
  )
}

const main = async () => {
  installFastCellHash()
  const { bundles, network } = await generatedBlockFileBundles(args["gen-dir"]!, Number(args.mc))
  let batch: Array<{ readonly bundle: MasterchainBundle; readonly bytes: number }> = []
  let bytes = 0
  for (const files of bundles) {
    const assembled = assembleBlockFiles(files, network)
    if (Either.isLeft(assembled)) throw assembled.left
    const record = prepare(assembled.right).bundle
    if (record === null) continue
    const decoded = decodeBundle(record.value)
    if (Either.isLeft(decoded)) throw decoded.left
    batch.push({ bundle: decoded.right, bytes: record.value.length })
    bytes += record.value.length
    if (bytes >= batchBytes) {
      report(batch)
      batch = []
      bytes = 0
    }
  }
  if (batch.length > 0) report(batch)
}

void main()
