// The producer's partitioner alone, kafkajs's DefaultPartitioner against the project's (src/kafka/partitioner.ts), in
// alternating rounds in one process: every transaction record the producer sends for a generated chain (completed as
// the publish step does), placed among the transactions topic's partitions (KAFKA_PARTITIONS' default, 6) as
// kafkajs's producer asks its partitioner, once per message. Prints CPU per transaction per round and the medians;
// the partitions are compared between the two once (they must be equal).
// Usage: npx tsx bench/partitioner.ts [--rounds 6] [--repeat 20] [--mc 60] [--tx 30] [--seed 42]. Numbers are
// printed, never asserted.
import { Partitioners, type ICustomPartitioner, type PartitionMetadata } from "kafkajs"
import { parseCli } from "../src/infra/cli.js"
import { keyPartitioner } from "../src/kafka/partitioner.js"
import { completeBundle, PublishHistory } from "../src/kafka/transactions.js"
import { assembleBundle, pipelineDecode, prepare } from "../src/producer/assemble.js"
import { rawBundle } from "../test/support/pipeline/chainUpstream.js"
import { benchChain } from "./lib/chain.js"

const USAGE = `Usage: npx tsx bench/partitioner.ts [--rounds 6] [--repeat 20] [--mc 60] [--tx 30] [--seed 42]
  The transactions topic's partitioner, kafkajs's against the project's, in alternating rounds.`
const args = parseCli(
  {
    rounds: { type: "string", default: "6" },
    repeat: { type: "string", default: "20" },
    mc: { type: "string", default: "60" },
    tx: { type: "string", default: "30" },
    seed: { type: "string", default: "42" }
  },
  USAGE
)

const chain = benchChain(Number(args.seed), Number(args.mc), Number(args.tx))
const messages: Array<{ key: string | Buffer | null; value: Buffer | string | null; headers?: unknown }> = []
const history = new PublishHistory()
for (let s = chain.first; s <= chain.last; s++) {
  const raw = rawBundle(chain, s)
  if (raw === undefined) continue
  const prepared = prepare(assembleBundle(raw, chain.network, pipelineDecode))
  const done = completeBundle(prepared.mcSeqno, prepared.drafts, prepared.accountStates, history)
  // as the publisher hands them to kafkajs (toKafka: key, value, headers, no partition)
  for (const r of done.records) messages.push({ key: r.key, value: r.value, headers: r.headers })
}
const repeat = Number(args.repeat)
process.stdout.write(`${messages.length} transaction records, each placed ${repeat} times per round\n`)

const partitionMetadata: Array<PartitionMetadata> = Array.from({ length: 6 }, (_, i) => ({
  partitionErrorCode: 0,
  partitionId: i,
  leader: 1,
  replicas: [1],
  isr: [1]
}))
const variants: Record<string, ICustomPartitioner> = { kafkajs: Partitioners.DefaultPartitioner, project: keyPartitioner }

const placeAll = (name: string): Array<number> => {
  const partitioner = variants[name]!()
  const out: Array<number> = []
  for (let r = 0; r < repeat; r++) {
    for (const message of messages) {
      const p = partitioner({ topic: "ton.mainnet.transactions.v1", partitionMetadata, message: message as never })
      if (r === 0) out.push(p)
    }
  }
  return out
}

const cpu = () => {
  const u = process.cpuUsage()
  return (u.user + u.system) / 1e6
}
const median = (xs: ReadonlyArray<number>) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!

const [a, b] = [placeAll("kafkajs"), placeAll("project")]
process.stdout.write(`same partitions: ${a.length === b.length && a.every((p, i) => p === b[i])}\n`)
const per: Record<string, Array<number>> = { kafkajs: [], project: [] }
for (let round = 0; round < Number(args.rounds); round++) {
  const order = round % 2 === 0 ? ["kafkajs", "project"] : ["project", "kafkajs"]
  for (const name of order) {
    const t0 = cpu()
    placeAll(name)
    per[name]!.push(((cpu() - t0) / (messages.length * repeat)) * 1e6)
  }
  process.stdout.write(
    `round ${round + 1}: kafkajs ${per.kafkajs!.at(-1)!.toFixed(2)} us/tx, project ${per.project!.at(-1)!.toFixed(2)} us/tx\n`
  )
}
process.stdout.write(
  `median: kafkajs ${median(per.kafkajs!).toFixed(2)} us/tx, project ${median(per.project!).toFixed(2)} us/tx ` +
    `(CPU of the process, per transaction record)\n`
)
