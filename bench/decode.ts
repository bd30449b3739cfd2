/**
 * Decode + render throughput on every transaction of the real fixture blocks: each transaction BOC is decoded into
 * a TransactionRecord and rendered as v2 raw.transaction and v3 Transaction, on one core (single thread).
 * Prints transactions per second for each run and the median, per wall-clock second and per CPU second of this
 * process (the latter is the per-core figure that stays meaningful on a busy machine); `npm run bench:decode`.
 */
import fs from "node:fs"
import path from "node:path"
import { fileURLToPath } from "node:url"
import { Either } from "effect"
import { extractBlock } from "../src/ton/block.js"
import { decodeTransaction } from "../src/ton/decode.js"
import type { BlockIdExt } from "../src/ton/record.js"
import { renderV2Transaction } from "../src/ton/v2.js"
import { renderV3Transaction } from "../src/ton/v3.js"

const here = path.dirname(fileURLToPath(import.meta.url))
const dir = path.resolve(process.env.FIXTURES_DIR ?? path.join(here, "../../shared/fixtures"), "blocks")
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

const states = new Map()
let sink = 0
const pass = () => {
  for (const { boc, ctx } of inputs) {
    const r = decodeTransaction(boc, ctx)
    if (Either.isLeft(r)) throw new Error(r.left.message)
    sink += renderV2Transaction(r.right).out_msgs.length + renderV3Transaction(r.right, states).out_msgs.length
  }
}

pass() // warm-up: JIT and caches
const wallRates: Array<number> = []
const cpuRates: Array<number> = []
for (let run = 0; run < runs; run++) {
  let n = 0
  const start = process.hrtime.bigint()
  const cpuStart = process.cpuUsage()
  let elapsed = 0
  while (elapsed < runMs) {
    pass()
    n += inputs.length
    elapsed = Number(process.hrtime.bigint() - start) / 1e6
  }
  const cpu = process.cpuUsage(cpuStart)
  const cpuMs = (cpu.user + cpu.system) / 1000
  wallRates.push((n / elapsed) * 1000)
  cpuRates.push((n / cpuMs) * 1000)
  console.log(
    `run ${run + 1}: ${n} tx, wall ${elapsed.toFixed(0)} ms = ${wallRates.at(-1)!.toFixed(0)} tx/s, ` +
      `cpu ${cpuMs.toFixed(0)} ms = ${cpuRates.at(-1)!.toFixed(0)} tx/s`
  )
}
const median = (xs: Array<number>) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!
console.log(
  `median decode+render (v2+v3): ${median(cpuRates).toFixed(0)} tx per CPU-second (one core), ` +
    `${median(wallRates).toFixed(0)} tx/s wall (checksum ${sink})`
)
