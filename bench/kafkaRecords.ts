// kafkajs's record encoding alone, kafkajs's record encoder and join against the project's (src/kafka/recordEncoder.ts), in
// alternating rounds in one process: every record the producer sends for a generated chain (bundle records and the
// transactions topic's records, completed as the publish step does) cut into produce requests as the publisher cuts
// them, each request's records encoded and joined as kafkajs's record batch joins them before compressing (the
// compression and the checksum of the compressed batch, the same for both, are left out). Prints CPU per transaction
// per round and the medians; the joined bytes are compared between the encoders once (they must be equal).
// Usage: npx tsx bench/kafkaRecords.ts [--rounds 6] [--mc 60] [--tx 30] [--seed 42]. Numbers are printed, never
// asserted.
import { createRequire } from "node:module"
import { parseCli } from "../src/infra/cli.js"
import { chunkBySize } from "../src/kafka/BundlePublisher.js"
import type { EncodedMessage } from "../src/kafka/codec.js"
import {
  kafkajsRecordEncoder,
  makeRecordEncoder,
  writeEncoderArrayPresized
} from "../src/kafka/recordEncoder.js"
import { completeBundle, PublishHistory } from "../src/kafka/transactions.js"
import { assembleBundle, pipelineDecode, prepare } from "../src/producer/assemble.js"
import { rawBundle } from "../test/support/pipeline/chainUpstream.js"
import { benchChain } from "./lib/chain.js"

const USAGE = `Usage: npx tsx bench/kafkaRecords.ts [--rounds 6] [--mc 60] [--tx 30] [--seed 42]
  kafkajs record encoding, kafkajs's encoder against the project's, in alternating rounds.`
const args = parseCli(
  {
    rounds: { type: "string", default: "6" },
    mc: { type: "string", default: "60" },
    tx: { type: "string", default: "30" },
    seed: { type: "string", default: "42" }
  },
  USAGE
)

const require = createRequire(import.meta.url)
type KafkajsEncoder = ThisParameterType<typeof writeEncoderArrayPresized>
const Encoder = require("kafkajs/src/protocol/encoder.js") as new () => KafkajsEncoder
const kafkajsJoin = Encoder.prototype.writeEncoderArray

const chain = benchChain(Number(args.seed), Number(args.mc), Number(args.tx))
const requests: Array<Array<EncodedMessage>> = []
const history = new PublishHistory()
let txs = 0
for (let s = chain.first; s <= chain.last; s++) {
  const raw = rawBundle(chain, s)
  if (raw === undefined) continue
  const prepared = prepare(assembleBundle(raw, chain.network, pipelineDecode))
  const done = completeBundle(prepared.mcSeqno, prepared.drafts, prepared.accountStates, history)
  txs += prepared.transactions
  requests.push([prepared.bundle!])
  requests.push(...chunkBySize(done.records, 4 * 1024 * 1024))
}
const records = requests.reduce((n, r) => n + r.length, 0)
process.stdout.write(`${txs} transactions, ${records} records in ${requests.length} produce requests\n`)

type Encode = Parameters<typeof makeRecordEncoder>[0]
const reference = kafkajsRecordEncoder()
type Join = typeof writeEncoderArrayPresized
// kafkajs: its record encoder and its join; project: what installKafkaRecordEncoder installs
const variants: Record<string, { readonly encode: Encode; readonly join: Join }> = {
  kafkajs: { encode: reference, join: kafkajsJoin },
  project: { encode: makeRecordEncoder(reference), join: writeEncoderArrayPresized }
}

const encodeAll = async (name: string): Promise<Array<Buffer>> => {
  const { encode, join } = variants[name]!
  const out: Array<Buffer> = []
  for (const messages of requests) {
    const recs = messages.map((m, i) => encode({ ...m, offsetDelta: i, timestampDelta: 0 }))
    out.push(join.call(new Encoder(), recs as unknown as ReadonlyArray<KafkajsEncoder>).buffer)
  }
  return out
}

const cpu = () => {
  const u = process.cpuUsage()
  return (u.user + u.system) / 1e6
}
const median = (xs: ReadonlyArray<number>) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!

const [a, b] = [await encodeAll("kafkajs"), await encodeAll("project")]
const equal = a.length === b.length && a.every((x, i) => x.equals(b[i]!))
process.stdout.write(`records byte-identical: ${equal}\n`)
const per: Record<string, Array<number>> = { kafkajs: [], project: [] }
for (let round = 0; round < Number(args.rounds); round++) {
  const order = round % 2 === 0 ? ["kafkajs", "project"] : ["project", "kafkajs"]
  for (const name of order) {
    const t0 = cpu()
    await encodeAll(name)
    per[name]!.push(((cpu() - t0) / txs) * 1e6)
  }
  process.stdout.write(`round ${round + 1}: kafkajs ${per.kafkajs!.at(-1)!.toFixed(1)} us/tx, project ${per.project!.at(-1)!.toFixed(1)} us/tx\n`)
}
process.stdout.write(
  `median: kafkajs ${median(per.kafkajs!).toFixed(1)} us/tx, project ${median(per.project!).toFixed(1)} us/tx (CPU of the process, per transaction)\n`
)
