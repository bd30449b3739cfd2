// The producer main thread's share of the transactions topic, in alternating rounds in one process: what arrives from
// a decode worker (the prepared bundle, serialized as a worker's message is: v8.serialize before the clock, the
// main thread's v8.deserialize timed) and the publish step's completion of its drafts into records (trace ids, history,
// lt order). "strings": the drafts as they were, a v3 JSON string per transaction spliced and encoded per record
// (test/support/publishReference.ts), the trace history an Lru of strings; "strings+table": the same with the
// off-heap trace history (src/kafka/traceHistory.ts); "bytes": one buffer per bundle with room for the trace id,
// records as views of it, and the off-heap history (src/kafka/transactions.ts; a worker moves the buffer, here
// deserialize copies it, so "bytes" is charged a copy the pipeline does not make). Records are compared once (they must be equal). Each round uses a fresh history.
// --full true: each round's trace history is first filled to its capacity (~176,000 entries, untimed), as at volume,
// so the collector has a full history to mark. Usage: npx tsx bench/publishRecords.ts [--rounds 8] [--mc 60] [--tx 30]
// [--seed 42] [--full false]. Numbers are printed, never asserted.
import { deserialize, serialize } from "node:v8"
import { parseCli } from "../src/infra/cli.js"
import { completeBundle, PublishHistory } from "../src/kafka/transactions.js"
import { Lru } from "../src/trace/Lru.js"
import { assembleBundle, pipelineDecode, prepare } from "../src/producer/assemble.js"
import { installFastCellHash } from "../src/ton/fastHash.js"
import { completeBundleReference, draftTransactionsReference } from "../test/support/publishReference.js"
import { rawBundle } from "../test/support/pipeline/chainUpstream.js"
import { benchChain } from "./lib/chain.js"

const USAGE = `Usage: npx tsx bench/publishRecords.ts [--rounds 8] [--mc 60] [--tx 30] [--seed 42] [--full false]
  The main thread's receipt and completion of transaction drafts, string drafts against one buffer per bundle.`
const args = parseCli(
  {
    rounds: { type: "string", default: "8" },
    mc: { type: "string", default: "60" },
    tx: { type: "string", default: "30" },
    seed: { type: "string", default: "42" },
    full: { type: "string", default: "false" }
  },
  USAGE
)

installFastCellHash()
const chain = benchChain(Number(args.seed), Number(args.mc), Number(args.tx))
const bytesMsgs: Array<Buffer> = []
const stringMsgs: Array<Buffer> = []
let txs = 0
for (let s = chain.first; s <= chain.last; s++) {
  const raw = rawBundle(chain, s)
  if (raw === undefined) continue
  const assembled = assembleBundle(raw, chain.network, pipelineDecode)
  const prepared = prepare(assembled)
  txs += prepared.transactions
  bytesMsgs.push(serialize({ ...prepared, bundle: null }))
  stringMsgs.push(serialize({ ...prepared, bundle: null, drafts: draftTransactionsReference(assembled.bundle) }))
}

type Message = Parameters<typeof completeBundle>[1] extends infer D ? { mcSeqno: number; drafts: D; accountStates: [] } : never
const full = args.full === "true"
const filled = (h: PublishHistory): PublishHistory => {
  if (!full) return h
  const key = Buffer.alloc(32)
  for (let i = 0; i < h.traces.capacity; i++) {
    key.writeUInt32LE(i, 0)
    key.writeUInt32LE(0x9e3779b1, 8)
    h.traces.set(key.toString("base64"), key.reverse().toString("base64"))
    key.reverse()
  }
  return h
}
const runBytes = (history = filled(new PublishHistory())) => {
  const out: Array<Buffer> = []
  for (const m of bytesMsgs) {
    const p = deserialize(m) as Message
    for (const r of completeBundle(p.mcSeqno, p.drafts, p.accountStates, history).records) out.push(r.value as Buffer)
  }
  return out
}
/** main's publish history: the trace ids in an Lru of strings of the same capacity (as before traceHistory.ts). */
const lruHistory = (): PublishHistory => {
  const h = new PublishHistory()
  Object.defineProperty(h, "traces", { value: new Lru<string, string>(h.traces.capacity) })
  return filled(h)
}
const runStrings = (history = lruHistory()) => {
  const out: Array<Buffer> = []
  for (const m of stringMsgs) {
    const p = deserialize(m) as { mcSeqno: number; drafts: ReturnType<typeof draftTransactionsReference>; accountStates: [] }
    for (const r of completeBundleReference(p.mcSeqno, p.drafts, p.accountStates, history).records) out.push(r.value as Buffer)
  }
  return out
}

const [a, b] = [runStrings(), runBytes()]
process.stdout.write(
  `${txs} transactions; records byte-identical: ${a.length === b.length && a.every((x, i) => x.equals(b[i]!))}\n`
)

const cpu = () => {
  const u = process.cpuUsage()
  return (u.user + u.system) / 1e6
}
const median = (xs: ReadonlyArray<number>) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)]!
const names = ["strings", "strings+table", "bytes"]
const per: Record<string, Array<number>> = Object.fromEntries(names.map((n) => [n, []]))
// Each round's history is made (and filled, with --full) before its clock starts.
const histories: Record<string, () => PublishHistory> = {
  strings: lruHistory,
  "strings+table": () => filled(new PublishHistory()),
  bytes: () => filled(new PublishHistory())
}
const run: Record<string, (h: PublishHistory) => Array<Buffer>> = {
  strings: runStrings,
  "strings+table": runStrings,
  bytes: runBytes
}
for (let round = 0; round < Number(args.rounds); round++) {
  for (const name of round % 2 === 0 ? names : [...names].reverse()) {
    const history = histories[name]!()
    const t0 = cpu()
    run[name]!(history)
    per[name]!.push(((cpu() - t0) / txs) * 1e6)
  }
  process.stdout.write(`round ${round + 1}: ${names.map((n) => `${n} ${per[n]!.at(-1)!.toFixed(1)}`).join(", ")} us/tx\n`)
}
process.stdout.write(
  `median: ${names.map((n) => `${n} ${median(per[n]!).toFixed(1)}`).join(", ")} us/tx (CPU of the process, per transaction)\n`
)
