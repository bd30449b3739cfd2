// Two checkouts' compiled trees (each with its own `npm run build` and node_modules) side by side in one process: the
// decode worker's output for every masterchain block of a generated chain (block files assembled, then prepared), the
// bundle record's bytes, the drafts' bytes and the drafts' list compared block by block: a change to what the worker
// builds checked to leave every Kafka record's bytes as they were. Usage: node bench/workerTreesBytes.mjs GEN_DIR
// A_CHECKOUT B_CHECKOUT. Prints the blocks that differ (0 when identical); never asserts.
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { Either } from "effect"
import { loadChain, loadTree } from "./lib/workerTrees.mjs"
const root = join(dirname(fileURLToPath(import.meta.url)), "..")
const [genDir, aDir, bDir] = process.argv.slice(2)
if (bDir === undefined) {
  process.stderr.write("Usage: node bench/workerTreesBytes.mjs GEN_DIR A_CHECKOUT B_CHECKOUT\n")
  process.exit(2)
}
const trees = { a: await loadTree(aDir), b: await loadTree(bDir) }
const { network, seqnos, bundleOf } = await loadChain(root, genDir)
let diff = 0, bytes = 0, txs = 0
for (const seqno of seqnos) {
  const out = {}
  for (const [k, t] of Object.entries(trees)) {
    const a = t.assembleBlockFiles(bundleOf(t, seqno), network)
    if (Either.isLeft(a)) throw new Error("block")
    const p = t.prepare(a.right)
    out[k] = { bundle: Buffer.from(p.bundle.value), drafts: Buffer.from(p.drafts.bytes), list: JSON.stringify(p.drafts.list), n: p.transactions }
  }
  if (!out.a.bundle.equals(out.b.bundle) || !out.a.drafts.equals(out.b.drafts) || out.a.list !== out.b.list) diff++
  bytes += out.a.bundle.length + out.a.drafts.length
  txs += out.a.n
}
console.log(`${seqnos.length} masterchain blocks, ${txs} transactions, ${bytes} bytes of bundle records and drafts; blocks differing: ${diff}`)
