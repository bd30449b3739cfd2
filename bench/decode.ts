/**
 * Decode ceiling on every transaction of the real fixture blocks, on one core (single thread): each transaction BOC is
 * decoded into a TransactionRecord by the producer's own decoder (pipelineDecode: node:crypto cell hashing, exotic
 * bodies kept), then, timed apart, each record is rendered as v2 raw.transaction and v3 Transaction (the API's cost).
 * Prints transactions per second for each run and the medians, per wall-clock second and per CPU second of this
 * process (the latter is the per-core figure that stays meaningful on a busy machine); `npm run bench:decode`.
 */
import fs from "node:fs"
import path from "node:path"
import { fileURLToPath } from "node:url"
import { Either } from "effect"
import { pipelineDecode } from "../src/producer/assemble.js"
import { extractBlock } from "../src/ton/block.js"
import { installFastCellHash } from "../src/ton/fastHash.js"
import type { BlockIdExt, TransactionRecord } from "../src/ton/record.js"
import { renderV2Transaction } from "../src/ton/v2.js"
import { renderV3Transaction } from "../src/ton/v3.js"

// The producer installs the faster cell code before decoding; the ceiling measures the same code.
installFastCellHash()

const here = path.dirname(fileURLToPath(import.meta.url))
const dir = path.resolve(process.env.FIXTURES_DIR ?? path.join(here, "../test/fixtures/real"), "blocks")
const runMs = Number(process.env.BENCH_RUN_MS ?? 1500)
const runs = Number(process.env.BENCH_RUNS ?? 5)

const inputs: Array<{ boc: string; ctx: { block: BlockIdExt; mc_block_seqno: number } }> = []
for (const f of fs.readdirSync(dir).sort()) {
  if (!/\.(boc|hex\.txt|b64\.txt)$/.test(f)) continue
  const file = path.join(dir, f)
  const raw = f.endsWith(".boc") ? fs.readFileSync(file) : fs.readFileSync(file, "utf8").trim()
  const bytes = typeof raw === "string" && f.endsWith(".hex.txt") ? Buffer.from(raw, "hex") : raw
  const block = extractBlock(bytes)
  if (Either.isLeft(block)) throw new Error(`${f}: ${block.left.message}`)
  const h = block.right.header
  const { workchain, shard, seqno, root_hash, file_hash } = h
  const id: BlockIdExt = { workchain, shard, seqno, root_hash, file_hash }
  for (const t of block.right.transactions) inputs.push({ boc: t.boc, ctx: { block: id, mc_block_seqno: h.seqno } })
}
const totalBytes = inputs.reduce((s, i) => s + i.boc.length, 0)
console.log(`transactions: ${inputs.length} from ${dir} (${(totalBytes / 1024).toFixed(0)} KiB of base64 BOCs)`)

let records: Array<TransactionRecord> = []
const states = new Map()
let sink = 0
const decodePass = () => {
  const out: Array<TransactionRecord> = []
  for (const { boc, ctx } of inputs) {
    const r = pipelineDecode(boc, ctx)
    if (Either.isLeft(r)) throw new Error(r.left.message)
    out.push(r.right)
  }
  records = out
}
const renderPass = () => {
  for (const r of records) {
    sink += renderV2Transaction(r).out_msgs.length + renderV3Transaction(r, states).out_msgs.length
  }
}

interface Rate {
  readonly wall: number
  readonly cpu: number
}

/** Repeats `pass` for at least runMs of wall time; rates per wall-clock second and per CPU second of this process. */
const measure = (pass: () => void): Rate & { n: number; wallMs: number; cpuMs: number } => {
  let n = 0
  const start = process.hrtime.bigint()
  const cpuStart = process.cpuUsage()
  let wallMs = 0
  while (wallMs < runMs) {
    pass()
    n += inputs.length
    wallMs = Number(process.hrtime.bigint() - start) / 1e6
  }
  const cpu = process.cpuUsage(cpuStart)
  const cpuMs = (cpu.user + cpu.system) / 1000
  return { n, wallMs, cpuMs, wall: (n / wallMs) * 1000, cpu: (n / cpuMs) * 1000 }
}

decodePass() // warm-up: JIT and caches
renderPass()
const decodeRates: Array<Rate> = []
const renderRates: Array<Rate> = []
for (let run = 0; run < runs; run++) {
  const d = measure(decodePass)
  const r = measure(renderPass)
  decodeRates.push(d)
  renderRates.push(r)
  console.log(
    `run ${run + 1}: decode ${d.n} tx, wall ${d.wallMs.toFixed(0)} ms = ${d.wall.toFixed(0)} tx/s, ` +
      `cpu ${d.cpuMs.toFixed(0)} ms = ${d.cpu.toFixed(0)} tx/s; ` +
      `render ${r.n} tx, cpu ${r.cpuMs.toFixed(0)} ms = ${r.cpu.toFixed(0)} tx/s`
  )
}
const median = (xs: Array<number>) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!
const decodeCpu = median(decodeRates.map((r) => r.cpu))
const renderCpu = median(renderRates.map((r) => r.cpu))
console.log(
  `median render (v2+v3, API side, not in the ingest path): ${renderCpu.toFixed(0)} tx per CPU-second (one core), ` +
    `${median(renderRates.map((r) => r.wall)).toFixed(0)} tx/s wall (checksum ${sink})`
)
console.log(
  `median decode+render (both medians combined): ${(1 / (1 / decodeCpu + 1 / renderCpu)).toFixed(0)} ` +
    `tx per CPU-second (one core)`
)
console.log(
  `median decode (ingest ceiling: pipelineDecode, node:crypto cell hash, exotic bodies kept, no render): ` +
    `${decodeCpu.toFixed(0)} tx per CPU-second (one core), ${median(decodeRates.map((r) => r.wall)).toFixed(0)} tx/s wall`
)
