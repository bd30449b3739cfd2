// The producer main thread's Kafka produce requests, in alternating rounds in one process: the bytes allocated outside
// the JS heap per transaction (Buffer.alloc / allocUnsafe / allocUnsafeSlow as requested, plus the codec's output) and
// the CPU, from the records the publish step hands kafkajs to the framed request the connection writes. "kafkajs":
// kafkajs's produce request v3 with main's record encoder and presized join (src/kafka/recordEncoder.ts), kafkajs's
// encoders copying each compressed batch through the batch, partition, topic, request and framing; "exact": the
// exact-size request (src/kafka/produceRequest.ts), records written into a reused join, every batch written once into
// the request behind room for the framing. Requests as BundlePublisher makes them (4 MB of transaction records each,
// partitions spread over 6 by key hash); framed as kafkajs's connection frames them; compared once (must be equal).
// Usage: npx tsx bench/produceBytes.ts [--rounds 8] [--mc 60] [--tx 30] [--seed 42] [--codec zstd]. Numbers are
// printed, never asserted.
import { createRequire } from "node:module"
import kafkajs from "kafkajs"
import { parseCli } from "../src/infra/cli.js"
import { produceRequests } from "../src/kafka/BundlePublisher.js"
import { codecStats } from "../src/kafka/codecStats.js"
import { compressionType, installKafkaCodecs } from "../src/kafka/compression.js"
import { keyPartitioner } from "../src/kafka/partitioner.js"
import { kafkajsProduceRequest, makeProduceRequest, writeEncoderAdopting, type ProduceArgs } from "../src/kafka/produceRequest.js"
import { installKafkaRecordEncoder } from "../src/kafka/recordEncoder.js"
import { completeBundle, PublishHistory } from "../src/kafka/transactions.js"
import { assembleBundle, pipelineDecode, prepare } from "../src/producer/assemble.js"
import { installFastCellHash } from "../src/ton/fastHash.js"
import { rawBundle } from "../test/support/pipeline/chainUpstream.js"
import { benchChain } from "./lib/chain.js"
import { quantile } from "./lib/stats.js"
import type { KafkaCompression } from "../src/config.js"

const USAGE = `Usage: npx tsx bench/produceBytes.ts [--rounds 8] [--mc 60] [--tx 30] [--seed 42] [--codec zstd]
  Bytes allocated outside the JS heap and CPU per transaction of kafkajs's produce request against the exact-size one.`
const args = parseCli(
  {
    rounds: { type: "string", default: "8" },
    mc: { type: "string", default: "60" },
    tx: { type: "string", default: "30" },
    seed: { type: "string", default: "42" },
    codec: { type: "string", default: "zstd" }
  },
  USAGE
)

const require = createRequire(import.meta.url)
interface Enc {
  buf: Buffer
  readonly buffer: Buffer
  writeEncoder(v: Enc): Enc
}
const Encoder = require("kafkajs/src/protocol/encoder.js") as { prototype: Enc }
const createRequest = require("kafkajs/src/protocol/request.js") as (a: {
  correlationId: number
  clientId: string
  request: { apiKey: number; apiVersion: number; encode: () => Promise<Enc> }
}) => Promise<Enc>
const Long = require("kafkajs/src/utils/long.js") as { fromValue(v: unknown): unknown }

installFastCellHash()
installKafkaCodecs()
installKafkaRecordEncoder()
const kafkajsWriteEncoder = Encoder.prototype.writeEncoder
const reference = kafkajsProduceRequest()
const exact = makeProduceRequest(reference)

const chain = benchChain(Number(args.seed), Number(args.mc), Number(args.tx))
const history = new PublishHistory()
const bundles = []
const transactions = []
let txs = 0
for (let s = chain.first; s <= chain.last; s++) {
  const raw = rawBundle(chain, s)
  if (raw === undefined) continue
  const prepared = prepare(assembleBundle(raw, chain.network, pipelineDecode))
  const done = completeBundle(prepared.mcSeqno, prepared.drafts, prepared.accountStates, history)
  txs += prepared.transactions
  if (prepared.bundle !== null) bundles.push(prepared.bundle)
  transactions.push(...done.records)
}
const topics = { blocks: "ton.mainnet.blocks", deadLetter: "ton.mainnet.dead", transactions: "ton.mainnet.transactions" }
const partitioner = keyPartitioner()
const SIX = Array.from({ length: 6 }, (_, i) => ({ partitionId: i, leader: 0, partitionErrorCode: 0, replicas: [0], isr: [0] }))
const compression = compressionType(args.codec as KafkaCompression)
const requests: Array<ProduceArgs> = produceRequests(topics, 1, bundles, [], transactions, 4 * 1024 * 1024).map((r) => ({
  acks: -1,
  timeout: 30000,
  transactionalId: "ton-exporter.mainnet.producer",
  producerId: Long.fromValue(1000),
  producerEpoch: 1,
  compression,
  topicData: r.map(({ topic, messages }) => {
    const byPartition = new Map<number, Array<(typeof messages)[number]>>()
    for (const m of messages) {
      const p = m.partition ?? partitioner({ topic, partitionMetadata: SIX, message: m })
      byPartition.set(p, [...(byPartition.get(p) ?? []), m])
    }
    return { topic, partitions: [...byPartition].map(([partition, ms]) => ({ partition, firstSequence: 0, messages: ms })) }
  })
}))

let allocated = 0
for (const name of ["alloc", "allocUnsafe", "allocUnsafeSlow"] as const) {
  const original = Buffer[name] as (size: number, ...rest: Array<unknown>) => Buffer
  ;(Buffer as unknown as Record<string, unknown>)[name] = (size: number, ...rest: Array<unknown>) => {
    allocated += size
    return original.call(Buffer, size, ...rest)
  }
}

const variants = {
  kafkajs: { make: reference, writeEncoder: kafkajsWriteEncoder },
  exact: { make: exact, writeEncoder: writeEncoderAdopting as unknown as Enc["writeEncoder"] }
}
type Name = keyof typeof variants
const encodeAll = async (name: Name): Promise<Array<Buffer>> => {
  Encoder.prototype.writeEncoder = variants[name].writeEncoder
  const out: Array<Buffer> = []
  for (const a of requests) {
    const r = { ...variants[name].make(a), apiVersion: 7 }
    out.push((await createRequest({ correlationId: 1, clientId: "ton-exporter", request: r })).buffer)
  }
  return out
}

// kafkajs stamps each batch with Date.now(): the comparison runs in one millisecond's clock
const realNow = Date.now
const now = realNow()
Date.now = () => now
const [a, b] = [await encodeAll("kafkajs"), await encodeAll("exact")]
Date.now = realNow
process.stdout.write(
  `${txs} transactions, ${requests.length} requests (${args.codec}); framed requests byte-identical: ${a.length === b.length && a.every((x, i) => x.equals(b[i]!))}\n`
)

const cpu = () => {
  const u = process.cpuUsage()
  return (u.user + u.system) / 1e6
}
const median = (xs: ReadonlyArray<number>): number => quantile(xs, 0.5)
const names: Array<Name> = ["kafkajs", "exact"]
const us: Record<Name, Array<number>> = { kafkajs: [], exact: [] }
const kb: Record<Name, Array<number>> = { kafkajs: [], exact: [] }
for (let round = 0; round < Number(args.rounds); round++) {
  for (const name of round % 2 === 0 ? names : [...names].reverse()) {
    const [a0, c0, t0] = [allocated, codecStats.compressOutBytes, cpu()]
    await encodeAll(name)
    us[name].push(((cpu() - t0) / txs) * 1e6)
    kb[name].push((allocated - a0 + codecStats.compressOutBytes - c0) / txs / 1000)
  }
  process.stdout.write(`round ${round + 1}: ${names.map((n) => `${n} ${us[n].at(-1)!.toFixed(1)} us/tx ${kb[n].at(-1)!.toFixed(1)} kB/tx`).join(", ")}\n`)
}
process.stdout.write(
  `median: ${names.map((n) => `${n} ${median(us[n]).toFixed(1)} us/tx, ${median(kb[n]).toFixed(1)} kB/tx outside the heap`).join("; ")} (CPU of the process, per transaction)\n`
)
