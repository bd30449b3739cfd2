/**
 * Decode ceiling on every transaction of the real fixture blocks, on one core (single thread), for both decoders:
 * the @ton/core path (src/ton/decode.ts with node:crypto cell hashing installed, exotic bodies kept) and the fast
 * path the producer runs (src/ton/fast). Prints where the CPU goes per stage (base64, parse, hash, TL-B + record
 * building, body BOC serialization, JSON encoding of the record), the medians in transactions per CPU-second of this
 * process (the per-core figure that stays meaningful on a busy machine), and, timed apart, the v2/v3 rendering the
 * API does, and the message-body decoding the consumer does when it makes message_contents rows.
 * `npm run bench:decode`; BENCH_RUN_MS (per measurement) and BENCH_RUNS tune the length; BENCH_BASELINE_DIR=<checkout>
 * also measures that checkout's fast path (its src/ton/fast) in the same runs, interleaved, for before/after figures.
 */
import path from "node:path"
import { fileURLToPath } from "node:url"
import type { Cell } from "@ton/core"
import { Either } from "effect"
import { blockTransactions } from "../tools/decodeDiff/corpus.js"
import { referenceDecode } from "../src/producer/assemble.js"
import { decodeBase64, parseBoc, parseBocBytes, serializeBocBase64 } from "../src/ton/boc.js"
import { decodeTransactionCell } from "../src/ton/decode.js"
import { decodeBodyBoc } from "../src/ton/bodies/decode.js"
import { decodeTransactionFast, fastDecodeStats, fastStages } from "../src/ton/fast/decode.js"
import type { TransactionRecord } from "../src/ton/record.js"
import { installFastCellHash } from "../src/ton/fastHash.js"
import { renderV2Transaction } from "../src/ton/v2.js"
import { goJsonStringify, renderV3Transaction } from "../src/ton/v3.js"

// The producer installs the faster cell code before decoding; the ceiling measures the same code.
installFastCellHash()

const here = path.dirname(fileURLToPath(import.meta.url))
const real = path.resolve(process.env.FIXTURES_DIR ?? path.join(here, "../test/fixtures/real"))
const runMs = Number(process.env.BENCH_RUN_MS ?? 1000)
const runs = Number(process.env.BENCH_RUNS ?? 3)

const inputs = blockTransactions(real)
const n = inputs.length
const totalBytes = inputs.reduce((s, i) => s + i.boc.length, 0)
console.log(`transactions: ${n} from ${real}/blocks (${(totalBytes / 1024).toFixed(0)} KiB of base64 BOCs)`)

const ok = <A>(e: Either.Either<A, { message: string }>): A => {
  if (Either.isLeft(e)) throw new Error(e.left.message)
  return e.right
}

// Inputs of the stages measured apart: bytes, parsed cells, the records, and every body / state init cell.
const bytes = inputs.map((i) => ok(decodeBase64(i.boc)))
const cells = bytes.map((b) => ok(parseBocBytes(b)))
const records = inputs.map((i) => ok(referenceDecode(i.boc, i.ctx)))
const contentCells: Array<Cell> = []
for (const r of records) {
  for (const m of [r.in_msg, ...r.out_msgs]) {
    if (m === null) continue
    contentCells.push(ok(parseBoc(m.body.boc)))
    if (m.init_state !== null) contentCells.push(ok(parseBoc(m.init_state.boc)))
  }
}

// The distinct message bodies of the fixture transactions: what one consumer batch of them decodes (uncached).
const bodies = new Map<string, string>()
for (const r of records) for (const m of [r.in_msg, ...r.out_msgs]) if (m !== null) bodies.set(m.body.hash, m.body.boc)

// Another checkout's fast path, measured in the same runs (before/after).
type FastModule = typeof import("../src/ton/fast/decode.js")
const baselineDir = process.env.BENCH_BASELINE_DIR
const baseline: FastModule | null =
  baselineDir === undefined
    ? null
    : ((await import(path.resolve(baselineDir, "src/ton/fast/decode.ts"))) as FastModule)
if (baseline !== null) console.log(`baseline fast path: ${path.resolve(baselineDir!)}`)

let sink = 0
const basePasses = (b: FastModule) => ({
  "baseline fast: base64 + parse": () => {
    for (const i of inputs) b.fastStages.parse(Buffer.from(i.boc, "base64"))
  },
  "baseline fast: base64 + parse + hash": () => {
    for (const i of inputs) {
      b.fastStages.parse(Buffer.from(i.boc, "base64"))
      b.fastStages.hash()
    }
  },
  "baseline fast: whole decode": () => {
    for (const i of inputs) sink += ok(b.decodeTransactionFast(i.boc, i.ctx, { exoticBodies: "keep" })).now
  }
})
const passes = {
  "core: base64": () => {
    for (const i of inputs) sink += ok(decodeBase64(i.boc)).length
  },
  "core: base64 + parse + hash (Cell objects)": () => {
    for (const i of inputs) sink += ok(parseBoc(i.boc)).bits.length
  },
  "core: TL-B + record on parsed cells": () => {
    for (let k = 0; k < n; k++) {
      sink += ok(decodeTransactionCell(cells[k]!, inputs[k]!.boc, inputs[k]!.ctx, { exoticBodies: "keep" })).now
    }
  },
  "core: of which body/init BOC serialization": () => {
    for (const c of contentCells) sink += serializeBocBase64(c).length
  },
  "core: whole decode": () => {
    for (const i of inputs) sink += ok(referenceDecode(i.boc, i.ctx)).now
  },
  "fast: base64": () => {
    for (const i of inputs) sink += Buffer.from(i.boc, "base64").length
  },
  "fast: base64 + parse": () => {
    for (const i of inputs) fastStages.parse(Buffer.from(i.boc, "base64"))
  },
  "fast: base64 + parse + hash": () => {
    for (const i of inputs) {
      fastStages.parse(Buffer.from(i.boc, "base64"))
      fastStages.hash()
    }
  },
  "fast: whole decode": () => {
    for (const i of inputs) sink += ok(decodeTransactionFast(i.boc, i.ctx, { exoticBodies: "keep" })).now
  },
  "fast: whole decode, body/init BOCs written twice": () => {
    for (const i of inputs) {
      sink += ok(decodeTransactionFast(i.boc, i.ctx, { exoticBodies: "keep" })).now
      sink += fastStages.contents()
    }
  },
  ...(baseline === null ? {} : basePasses(baseline)),
  "record -> JSON (Kafka encoding, either path)": () => {
    for (const r of records) sink += JSON.stringify(r).length
  },
  "consumer: message bodies decoded (src/ton/bodies, uncached)": () => {
    for (const boc of bodies.values()) {
      const d = decodeBodyBoc(boc)
      sink += d === null ? 0 : goJsonStringify(d).length
    }
  },
  "render v2 + v3 (API side, not ingest)": () => {
    const states = new Map()
    for (const r of records) sink += renderV2Transaction(r).out_msgs.length + renderV3Transaction(r, states).out_msgs.length
  }
} satisfies Record<string, () => void>
type Pass = keyof typeof passes | keyof ReturnType<typeof basePasses>

/** CPU microseconds per transaction of `pass`, repeated for at least runMs of wall time. */
const measure = (pass: () => void): number => {
  let reps = 0
  const start = Date.now()
  const cpuStart = process.cpuUsage()
  while (Date.now() - start < runMs) {
    pass()
    reps++
  }
  const cpu = process.cpuUsage(cpuStart)
  return (cpu.user + cpu.system) / (reps * n)
}

for (const pass of Object.values(passes)) pass() // warm-up: JIT and caches
const samples = new Map<Pass, Array<number>>()
for (let run = 0; run < runs; run++) {
  for (const [name, pass] of Object.entries(passes) as Array<[Pass, () => void]>) {
    const us = measure(pass)
    samples.set(name, [...(samples.get(name) ?? []), us])
  }
  const core = samples.get("core: whole decode")!.at(-1)!
  const fast = samples.get("fast: whole decode")!.at(-1)!
  const base = samples.get("baseline fast: whole decode")?.at(-1)
  console.log(
    `run ${run + 1}: core ${(1e6 / core).toFixed(0)} tx/CPU-s, fast ${(1e6 / fast).toFixed(0)} tx/CPU-s` +
      (base === undefined ? "" : `, baseline fast ${(1e6 / base).toFixed(0)} tx/CPU-s`)
  )
}
const median = (xs: Array<number>) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!
const us = (p: Pass) => median(samples.get(p)!)
const row = (label: string, v: number) => console.log(`  ${label.padEnd(44)} ${v.toFixed(1).padStart(7)} us/tx`)

console.log("where the CPU goes, median CPU microseconds per transaction (one core):")
console.log("@ton/core path")
row("base64 -> bytes", us("core: base64"))
row("parse + hash (Cell objects, hashed as built)", us("core: base64 + parse + hash (Cell objects)") - us("core: base64"))
row("TL-B + record building", us("core: TL-B + record on parsed cells") - us("core: of which body/init BOC serialization"))
row("body / init BOC serialization", us("core: of which body/init BOC serialization"))
row("whole decode", us("core: whole decode"))
console.log("fast path")
row("base64 -> bytes", us("fast: base64"))
row("parse (flat arrays)", us("fast: base64 + parse") - us("fast: base64"))
row("hash (SHA-256 of every cell)", us("fast: base64 + parse + hash") - us("fast: base64 + parse"))
const fastBocs = us("fast: whole decode, body/init BOCs written twice") - us("fast: whole decode")
row("TL-B + record (base64 check included)", us("fast: whole decode") - us("fast: base64 + parse + hash") - fastBocs)
row("body / init BOC serialization", fastBocs)
row("whole decode", us("fast: whole decode"))
if (baseline !== null) {
  console.log("baseline fast path (BENCH_BASELINE_DIR)")
  row("base64 + parse", us("baseline fast: base64 + parse"))
  row("hash", us("baseline fast: base64 + parse + hash") - us("baseline fast: base64 + parse"))
  row("TL-B + record + body BOCs", us("baseline fast: whole decode") - us("baseline fast: base64 + parse + hash"))
  row("whole decode", us("baseline fast: whole decode"))
}
console.log("after decoding")
row("record -> JSON (Kafka encoding)", us("record -> JSON (Kafka encoding, either path)"))
row(
  `bodies decoded, consumer (${bodies.size} distinct)`,
  us("consumer: message bodies decoded (src/ton/bodies, uncached)")
)
row("render v2 + v3 (API side, not ingest)", us("render v2 + v3 (API side, not ingest)"))

const fallbacks = [...fastDecodeStats.fallbacks].map(([k, v]) => `${k}: ${v}`).join(", ")
console.log(`fast path took ${fastDecodeStats.fast} decodes, fell back on ${fastDecodeStats.fallback}${fallbacks ? ` (${fallbacks})` : ""}`)
console.log(
  `median decode ceiling (ingest, no render), tx per CPU-second on one core: ` +
    `@ton/core path ${(1e6 / us("core: whole decode")).toFixed(0)}, ` +
    `fast path ${(1e6 / us("fast: whole decode")).toFixed(0)} ` +
    `(x${(us("core: whole decode") / us("fast: whole decode")).toFixed(1)})` +
    (baseline === null ? "" : `, baseline fast path ${(1e6 / us("baseline fast: whole decode")).toFixed(0)}`) +
    ` (checksum ${sink % 1000})`
)
