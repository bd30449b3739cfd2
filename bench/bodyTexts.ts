// The bundle record's `decoded_bodies` (the producer's decoded body texts the consumer takes instead of decoding the
// bodies again), in process over a generated chain: the record's bytes per transaction with and without it (as
// written and zstd level 3 compressed, record by record), beside two other forms measured for size only (the text on
// each message's body; the decodings as raw JSON, unescaped); the producer's CPU per transaction for drafting and
// encoding without and with the texts (the same bundles, the body memo warm, variants alternating round by round);
// and the consumer's CPU per transaction to parse each record and flatten it into rows, in fresh processes (the body
// memo cold, as a consumer starts) alternating between the records without the texts and with them, round by round.
// Usage: npx tsx bench/bodyTexts.ts --gen-dir DIR [--mc 0 (all)] [--rounds 5]. Numbers are printed, never asserted.
import { spawnSync } from "node:child_process"
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { Encoder as ZstdEncoder } from "@toondepauw/node-zstd"
import { Either } from "effect"
import { flattenBundle } from "../src/flatten/bundle.js"
import { parseCli } from "../src/infra/cli.js"
import { decodeBundle, encodeBundle } from "../src/kafka/codec.js"
import { draftTransactions } from "../src/kafka/transactions.js"
import { threadCpuSeconds } from "../src/ops/cpu.js"
import { assembleBundle, pipelineDecode, prepare } from "../src/producer/assemble.js"
import { BODY_DECODER_VERSION } from "../src/ton/bodies/version.js"
import { installFastCellHash } from "../src/ton/fastHash.js"
import type { MasterchainBundle } from "../src/ton/record.js"
import { gatherBodyTexts } from "../src/ton/v3Text.js"
import { readBundles } from "../tools/gen/generate.js"

const USAGE = `Usage: npx tsx bench/bodyTexts.ts --gen-dir DIR [--mc 0] [--rounds 5]
  The bundle record's decoded body texts: bytes, producer CPU added, consumer CPU saved.`
const args = parseCli(
  {
    "gen-dir": { type: "string" },
    mc: { type: "string", default: "0" },
    rounds: { type: "string", default: "5" },
    consume: { type: "string" }
  },
  USAGE
)
installFastCellHash()

const median = (xs: ReadonlyArray<number>): number => {
  const s = [...xs].sort((a, b) => a - b)
  const m = s.length >> 1
  return s.length % 2 === 1 ? s[m]! : (s[m - 1]! + s[m]!) / 2
}
const ms = (seconds: number, txs: number) => ((1000 * seconds) / txs).toFixed(4)

/** A child's pass: every record of a file parsed and flattened, as the consumer does, with a cold body memo. */
if (args.consume !== undefined) {
  let parse = 0
  let flatten = 0
  let txs = 0
  const all = readFileSync(args.consume)
  for (let at = 0; at < all.length; ) {
    const nl = all.indexOf(10, at)
    const end = nl < 0 ? all.length : nl
    // a copy of its own, as kafkajs hands each record's value
    const value = Buffer.from(all.subarray(at, end))
    at = end + 1
    const t0 = threadCpuSeconds()
    const b = decodeBundle(value)
    const t1 = threadCpuSeconds()
    if (Either.isLeft(b)) throw b.left
    flattenBundle(b.right)
    const t2 = threadCpuSeconds()
    parse += t1 - t0
    flatten += t2 - t1
    txs += b.right.transactions.length
  }
  process.stdout.write(JSON.stringify({ parse, flatten, txs }))
  process.exit(0)
}

if (args["gen-dir"] === undefined) {
  process.stderr.write(`${USAGE}\n`)
  process.exit(2)
}
const limit = Number(args.mc) > 0 ? Number(args.mc) : Number.POSITIVE_INFINITY
const rounds = Number(args.rounds)

const bundles: Array<MasterchainBundle> = []
for await (const g of readBundles(args["gen-dir"])) {
  if (bundles.length >= limit) break
  bundles.push(assembleBundle(g as never, "mainnet", pipelineDecode).bundle)
}
const txs = bundles.reduce((n, b) => n + b.transactions.length, 0)
console.log(`${bundles.length} bundles, ${txs} transactions (load ${readFileSync("/proc/loadavg", "utf8").trim()})`)

// The records as main writes them and as the producer writes them now (prepare), and the two other forms.
const plain = bundles.map((b) => encodeBundle(b, 0).value)
const shipped = bundles.map((b) => prepare({ bundle: b, deadLetters: [] }).bundle!.value)
const perMessage: Array<Buffer> = []
const rawJson: Array<Buffer> = []
let texts = 0
let textChars = 0
for (const [i, b] of bundles.entries()) {
  const record = JSON.parse(shipped[i]!.toString("utf8")) as MasterchainBundle
  const given = record.decoded_bodies!.texts
  texts += Object.keys(given).length
  for (const t of Object.values(given)) textChars += t.length
  const withText = (m: MasterchainBundle["transactions"][number]["out_msgs"][number]) =>
    given[m.body.hash] === undefined ? m : { ...m, body: { ...m.body, decoded: given[m.body.hash] } }
  const txsWith = b.transactions.map((t) => ({
    ...t,
    in_msg: t.in_msg === null ? null : withText(t.in_msg),
    out_msgs: t.out_msgs.map(withText)
  }))
  perMessage.push(Buffer.from(JSON.stringify({ ...b, transactions: txsWith })))
  const entries = Object.entries(given).map(([h, t]) => `${JSON.stringify(h)}:${t}`)
  const head = plain[i]!.subarray(0, plain[i]!.length - 1).toString("utf8")
  rawJson.push(
    Buffer.from(`${head},"decoded_bodies":{"decoder_version":${BODY_DECODER_VERSION},"texts":{${entries.join(",")}}}}`)
  )
}
const zstd = new ZstdEncoder(3)
const sizes = (name: string, values: ReadonlyArray<Buffer>) => {
  let raw = 0
  let packed = 0
  for (const v of values) {
    raw += v.length
    packed += zstd.encodeSync(v).length
  }
  console.log(
    `  ${name.padEnd(36)} ${(raw / txs).toFixed(0).padStart(6)} B/tx written, ${(packed / txs).toFixed(0).padStart(5)} B/tx zstd-3`
  )
}
console.log(`record bytes (${texts} texts, ${(textChars / txs).toFixed(0)} characters of text per tx):`)
sizes("without the texts (main)", plain)
sizes("hash -> text map (this branch)", shipped)
sizes("text on each message's body", perMessage)
sizes("hash -> raw JSON map (unescaped)", rawJson)

// The producer: drafts and the record, without and with the texts, over the same bundles (the body memo as warm
// for both: each bundle is drafted once before it is measured).
const producer: Record<string, { draft: Array<number>; encode: Array<number> }> = {
  main: { draft: [], encode: [] },
  branch: { draft: [], encode: [] }
}
for (let r = 0; r < rounds; r++) {
  const order = r % 2 === 0 ? ["main", "branch"] : ["branch", "main"]
  const sums: Record<string, { draft: number; encode: number }> = {
    main: { draft: 0, encode: 0 },
    branch: { draft: 0, encode: 0 }
  }
  for (const b of bundles) {
    draftTransactions(b)
    for (const v of order) {
      const t0 = threadCpuSeconds()
      if (v === "main") {
        draftTransactions(b)
        const t1 = threadCpuSeconds()
        encodeBundle(b, 0)
        sums[v]!.draft += t1 - t0
        sums[v]!.encode += threadCpuSeconds() - t1
      } else {
        const [, given] = gatherBodyTexts(() => draftTransactions(b))
        const t1 = threadCpuSeconds()
        encodeBundle({ ...b, decoded_bodies: { decoder_version: BODY_DECODER_VERSION, texts: given } }, 0)
        sums[v]!.draft += t1 - t0
        sums[v]!.encode += threadCpuSeconds() - t1
      }
    }
  }
  for (const v of order) {
    producer[v]!.draft.push(sums[v]!.draft)
    producer[v]!.encode.push(sums[v]!.encode)
  }
  console.log(
    `producer round ${r + 1}: ms/tx draft main ${ms(sums.main!.draft, txs)} branch ${ms(sums.branch!.draft, txs)}, ` +
      `record JSON main ${ms(sums.main!.encode, txs)} branch ${ms(sums.branch!.encode, txs)}`
  )
}

// The consumer: each pass in a process of its own, alternating.
const dir = mkdtempSync(join(tmpdir(), "bench-body-texts-"))
const files = { main: join(dir, "main.jsonl"), branch: join(dir, "branch.jsonl") }
// Compact JSON holds no raw newline: one record a line.
const lines = (values: ReadonlyArray<Buffer>) => Buffer.concat(values.flatMap((v) => [v, Buffer.from("\n")]))
writeFileSync(files.main, lines(plain))
writeFileSync(files.branch, lines(shipped))
const consumer: Record<string, { parse: Array<number>; flatten: Array<number> }> = {
  main: { parse: [], flatten: [] },
  branch: { parse: [], flatten: [] }
}
for (let r = 0; r < rounds; r++) {
  const order = r % 2 === 0 ? ["main", "branch"] : ["branch", "main"]
  const line: Array<string> = []
  for (const v of order) {
    const child = spawnSync(
      process.execPath,
      [...process.execArgv, fileURLToPath(import.meta.url), "--consume", files[v as "main" | "branch"]],
      { encoding: "utf8", maxBuffer: 1 << 20 }
    )
    if (child.status !== 0) throw new Error(`consumer pass failed: ${child.stderr}`)
    const got = JSON.parse(child.stdout) as { parse: number; flatten: number; txs: number }
    consumer[v]!.parse.push(got.parse)
    consumer[v]!.flatten.push(got.flatten)
    line.push(`${v} parse ${ms(got.parse, got.txs)} flatten ${ms(got.flatten, got.txs)}`)
  }
  console.log(`consumer round ${r + 1}: ms/tx ${line.join(", ")}`)
}
rmSync(dir, { recursive: true, force: true })

console.log(`medians over ${rounds} rounds, ms of CPU per transaction (load ${readFileSync("/proc/loadavg", "utf8").trim()}):`)
for (const v of ["main", "branch"]) {
  const p = producer[v]!
  const c = consumer[v]!
  const pSum = median(p.draft.map((d, i) => d + p.encode[i]!))
  const cSum = median(c.parse.map((d, i) => d + c.flatten[i]!))
  console.log(
    `  ${v.padEnd(6)} producer draft ${ms(median(p.draft), txs)} + record JSON ${ms(median(p.encode), txs)} = ${ms(pSum, txs)}; ` +
      `consumer parse ${ms(median(c.parse), txs)} + flatten ${ms(median(c.flatten), txs)} = ${ms(cSum, txs)}`
  )
}
