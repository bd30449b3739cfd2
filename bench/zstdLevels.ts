// zstd levels on the producer's record JSON: for each level, the CPU per transaction to compress and to decompress
// (the calling thread's, levels interleaved round by round, medians printed) and the bytes per transaction written,
// in record batches of the sizes the producer sends. What KAFKA_ZSTD_LEVEL trades: the producer's compression CPU
// against the bytes the broker stores and serves and the consumer reads. Numbers are printed, never asserted.
// Usage: npx tsx bench/zstdLevels.ts --gen-dir DIR [--levels 1,2,3] [--rounds 5] [--txs 25000] [--batch-kib 1024]
import { Decoder, Encoder } from "@toondepauw/node-zstd"
import { Either } from "effect"
import { parseCli } from "../src/infra/cli.js"
import { threadCpuSeconds } from "../src/ops/cpu.js"
import { pipelineDecode } from "../src/producer/assemble.js"
import { installFastCellHash } from "../src/ton/fastHash.js"
import { loadGeneratedChain } from "../tools/gen/chain.js"
import { chainTransactionBocs } from "./lib/chain.js"

const USAGE =
  "Usage: npx tsx bench/zstdLevels.ts --gen-dir DIR [--levels 1,2,3] [--rounds 5] [--txs 25000] [--batch-kib 1024]"
const args = parseCli(
  {
    "gen-dir": { type: "string" },
    levels: { type: "string", default: "1,2,3" },
    rounds: { type: "string", default: "5" },
    txs: { type: "string", default: "25000" },
    "batch-kib": { type: "string", default: "1024" }
  },
  USAGE
)
if (args["gen-dir"] === undefined) {
  process.stderr.write(`${USAGE}\n`)
  process.exit(2)
}
const levels = args.levels.split(",").map(Number)
const rounds = Number(args.rounds)
const batchBytes = Number(args["batch-kib"]) * 1024

installFastCellHash()
const chain = await loadGeneratedChain(args["gen-dir"])
const all = chainTransactionBocs(chain)
const step = Math.max(1, Math.ceil(all.length / Number(args.txs)))
const json: Array<Buffer> = []
for (let i = 0; i < all.length; i += step) {
  const r = pipelineDecode(all[i]![0], all[i]![1])
  if (Either.isRight(r)) json.push(Buffer.from(JSON.stringify(r.right)))
}
const batches: Array<Buffer> = []
for (let i = 0; i < json.length;) {
  const part: Array<Buffer> = []
  let bytes = 0
  while (i < json.length && bytes < batchBytes) {
    part.push(json[i]!)
    bytes += json[i]!.length
    i++
  }
  batches.push(Buffer.concat(part))
}
const n = json.length
const raw = batches.reduce((s, b) => s + b.length, 0)

const median = (xs: ReadonlyArray<number>) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!
const decoder = new Decoder()
const encoders = new Map(levels.map((l) => [l, new Encoder(l)]))
const cpu = new Map(levels.map((l) => [l, { compress: [] as Array<number>, decompress: [] as Array<number>, out: 0 }]))
for (let r = 0; r < rounds; r++) {
  for (const level of levels) {
    const enc = encoders.get(level)!
    const t0 = threadCpuSeconds()
    const packed = batches.map((b) => enc.encodeSync(b))
    const t1 = threadCpuSeconds()
    for (const p of packed) decoder.decodeSync(p)
    const t2 = threadCpuSeconds()
    const c = cpu.get(level)!
    c.compress.push(((t1 - t0) * 1e6) / n)
    c.decompress.push(((t2 - t1) * 1e6) / n)
    c.out = packed.reduce((s, p) => s + p.length, 0)
  }
}
console.log(
  `${n} transaction records (${(raw / n).toFixed(0)} B of JSON each) in ${batches.length} batches of ~${args["batch-kib"]} KiB, ` +
    `${rounds} rounds, levels interleaved; load ${(await import("node:os"))
      .loadavg()
      .map((x) => x.toFixed(1))
      .join(" ")}`
)
console.log("level  wire B/tx  ratio  compress us/tx (median)  decompress us/tx (median)")
for (const level of levels) {
  const c = cpu.get(level)!
  console.log(
    `${String(level).padStart(5)}  ${(c.out / n).toFixed(0).padStart(9)}  ${(raw / c.out).toFixed(2).padStart(5)}  ` +
      `${median(c.compress).toFixed(1).padStart(23)}  ${median(c.decompress).toFixed(1).padStart(25)}`
  )
}
