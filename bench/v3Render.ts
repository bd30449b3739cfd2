// The v3 Transaction renderer alone, as the producer's transactions topic and the consumer's tx_pages use it
// (goJson of renderV3Transaction), against its first, spread-built form (test/support/v3Reference.ts), in alternating
// rounds in one process over every transaction of a generated chain. Message bodies are decoded in both (their memo
// holds a few thousand, fewer than the chain's distinct bodies, so most are decoded again each round, as on a real
// chain where bodies rarely repeat). Prints CPU per transaction per round and the medians; the texts are compared.
// Usage: npx tsx bench/v3Render.ts [--rounds 6] [--mc 60] [--tx 30] [--seed 42]. Numbers are printed, never asserted.
import { goJson } from "../src/api/json.js"
import { parseCli } from "../src/infra/cli.js"
import { storedStates } from "../src/kafka/transactions.js"
import { assembleBundle, pipelineDecode } from "../src/producer/assemble.js"
import type { AccountStateRecord, TransactionRecord } from "../src/ton/record.js"
import { renderV3Transaction } from "../src/ton/v3.js"
import { rawBundle } from "../test/support/pipeline/chainUpstream.js"
import { referenceV3Transaction } from "../test/support/v3Reference.js"
import { benchChain } from "./lib/chain.js"

const USAGE = `Usage: npx tsx bench/v3Render.ts [--rounds 6] [--mc 60] [--tx 30] [--seed 42]
  v3 Transaction rendering, the renderer against its spread-built reference, in alternating rounds.`
const args = parseCli(
  {
    rounds: { type: "string", default: "6" },
    mc: { type: "string", default: "60" },
    tx: { type: "string", default: "30" },
    seed: { type: "string", default: "42" }
  },
  USAGE
)
const chain = benchChain(Number(args.seed), Number(args.mc), Number(args.tx))
const txs: Array<{ readonly tx: TransactionRecord; readonly states: ReadonlyMap<string, AccountStateRecord> }> = []
for (let s = chain.first; s <= chain.last; s++) {
  const raw = rawBundle(chain, s)
  if (raw === undefined) continue
  const bundle = assembleBundle(raw, chain.network, pipelineDecode).bundle
  const states = storedStates(bundle.account_states)
  for (const tx of bundle.transactions) txs.push({ tx, states })
}
const variants = { reference: referenceV3Transaction, project: renderV3Transaction }
type Name = keyof typeof variants
const renderAll = (name: Name): Array<string> => txs.map(({ tx, states }) => goJson(variants[name](tx, states)))
const cpu = () => {
  const u = process.cpuUsage()
  return (u.user + u.system) / 1e6
}
const median = (xs: ReadonlyArray<number>) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!
const [a, b] = [renderAll("reference"), renderAll("project")]
process.stdout.write(`${txs.length} transactions; texts identical: ${a.every((x, i) => x === b[i])}\n`)
const per: Record<Name, Array<number>> = { reference: [], project: [] }
for (let round = 0; round < Number(args.rounds); round++) {
  const order: Array<Name> = round % 2 === 0 ? ["reference", "project"] : ["project", "reference"]
  for (const name of order) {
    const t0 = cpu()
    renderAll(name)
    per[name].push(((cpu() - t0) / txs.length) * 1e6)
  }
  process.stdout.write(`round ${round + 1}: reference ${per.reference.at(-1)!.toFixed(1)} us/tx, project ${per.project.at(-1)!.toFixed(1)} us/tx\n`)
}
process.stdout.write(
  `median: reference ${median(per.reference).toFixed(1)} us/tx, project ${median(per.project).toFixed(1)} us/tx (CPU of the process)\n`
)
