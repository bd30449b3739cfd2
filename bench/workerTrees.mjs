// In process, the producer's decode worker's work on the liteserver source (block files decoded and assembled, then
// prepared: drafts, bodies' texts, bundle record) and the publish step's completion of the drafts (trace ids, history,
// lt order), of two checkouts' compiled trees (each with its own `npm run build` and node_modules) side by side in one
// process, in alternating rounds over the same bundles: a change against main where the pipeline's pairs are noisier.
// Prints this thread's CPU per transaction per round and the medians per tree. Usage: node bench/workerTrees.mjs
// GEN_DIR A_CHECKOUT B_CHECKOUT [rounds 8] [mc 0 (all)]. Numbers are printed, never asserted.
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { Either } from "effect"
import { loadChain, loadTree } from "./lib/workerTrees.mjs"
const root = join(dirname(fileURLToPath(import.meta.url)), "..")
const { threadCpuSeconds } = await import(join(root, "dist/src/ops/cpu.js"))
const [genDir, aDir, bDir, roundsS = "8", mcS = "0"] = process.argv.slice(2)
if (bDir === undefined) {
  process.stderr.write("Usage: node bench/workerTrees.mjs GEN_DIR A_CHECKOUT B_CHECKOUT [rounds 8] [mc 0]\n")
  process.exit(2)
}
const trees = { a: await loadTree(aDir), b: await loadTree(bDir) }
const { network, seqnos, bundleOf } = await loadChain(root, genDir, Number(mcS))
const bundlesOf = (t) => seqnos.map((seqno) => bundleOf(t, seqno))
const round = (t) => {
  const history = new t.tx.PublishHistory()
  let txs = 0, worker = 0, publish = 0
  for (const b of bundlesOf(t)) {
    const t0 = threadCpuSeconds()
    const a = t.assembleBlockFiles(b, network)
    if (Either.isLeft(a)) throw new Error("block")
    const p = t.prepare(a.right)
    const t1 = threadCpuSeconds()
    t.tx.completeBundle(p.mcSeqno, p.drafts, p.accountStates, history)
    publish += threadCpuSeconds() - t1
    worker += t1 - t0
    txs += p.transactions
  }
  return { txs, worker: (worker * 1e6) / txs, publish: (publish * 1e6) / txs }
}
const res = { a: [], b: [] }
const order = ["a", "b"]
for (let r = 0; r < Number(roundsS); r++) {
  for (const k of r % 2 === 0 ? order : [...order].reverse()) {
    const x = round(trees[k])
    res[k].push(x)
    console.log(`round ${r} ${k}: ${x.txs} tx, worker ${x.worker.toFixed(1)} us/tx, publish ${x.publish.toFixed(1)} us/tx`)
  }
}
const med = (xs) => { const s = [...xs].sort((p, q) => p - q); return s[Math.floor(s.length / 2)] }
for (const k of order) console.log(`median ${k} (${k === "a" ? aDir : bDir}): worker ${med(res[k].map((x) => x.worker)).toFixed(1)} us/tx, publish ${med(res[k].map((x) => x.publish)).toFixed(1)} us/tx`)
