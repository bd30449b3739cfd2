// The record batch's CRC32C, as the produce request computes it over each compressed batch in place: kafkajs's
// byte-wise table loop (the reference) against the project's slicing-by-8 `crc32cRange` (src/ton/fastHash.ts), CPU
// per MB over the same buffer in alternating rounds. Usage: npx tsx bench/crc32c.ts [--rounds 5] [--kib 600].
// Numbers are printed, never asserted; the two must agree (checked once).
import { createRequire } from "node:module"
import { parseCli } from "../src/infra/cli.js"
import { crc32cRange } from "../src/ton/fastHash.js"
import { quantile } from "./lib/stats.js"

const require = createRequire(import.meta.url)
const kafkajsCrc32C = require("kafkajs/src/protocol/recordBatch/crc32C/index.js") as (b: Buffer) => number

const args = parseCli(
  { rounds: { type: "string", default: "5" }, kib: { type: "string", default: "600" } },
  "usage: npx tsx bench/crc32c.ts [--rounds 5] [--kib 600]"
)
const rounds = Number(args.rounds)
const buf = Buffer.alloc(Number(args.kib) * 1024)
for (let i = 0; i < buf.length; i++) buf[i] = (i * 131 + (i >>> 9)) & 0xff
if (kafkajsCrc32C(buf) !== crc32cRange(buf, 0, buf.length)) throw new Error("the two CRC32Cs differ")

const usPerMb = (f: () => number): number => {
  const start = process.cpuUsage()
  let sink = 0
  for (let i = 0; i < 100; i++) sink ^= f()
  const used = process.cpuUsage(start)
  if (sink === 0.5) console.log(sink) // keeps the calls
  return (used.user + used.system) / 100 / (buf.length / 1e6)
}
const a: Array<number> = []
const b: Array<number> = []
for (let r = 1; r <= rounds; r++) {
  a.push(usPerMb(() => kafkajsCrc32C(buf)))
  b.push(usPerMb(() => crc32cRange(buf, 0, buf.length)))
  console.log(`round ${r}: kafkajs ${a.at(-1)!.toFixed(0)} us/MB, slicing-by-8 ${b.at(-1)!.toFixed(0)} us/MB`)
}
const median = (xs: ReadonlyArray<number>): number => quantile(xs, 0.5)
console.log(`median: kafkajs ${median(a).toFixed(0)} us/MB, slicing-by-8 ${median(b).toFixed(0)} us/MB (CPU of the process)`)
