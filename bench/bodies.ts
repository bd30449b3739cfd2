// What decoding message bodies at ingest costs: every real fixture block (the bundles the tests store) is flattened
// into table rows with body decoding (the consumer's work per batch), and every distinct body is decoded alone,
// cold, with the per-kind cost. Prints microseconds per body and transactions per CPU-second of flattening;
// numbers are printed, never asserted. Usage: npx tsx bench/bodies.ts [--rounds N] [--fast] (--fast installs the
// faster @ton/core internals first, as the producer and the all-in-one job do).
import { Cell } from "@ton/core"
import { parseCli } from "../src/infra/cli.js"
import { flattenBundles } from "../src/flatten/index.js"
import { decodeBodyBoc } from "../src/ton/bodies/decode.js"
import { installFastCellHash } from "../src/ton/fastHash.js"
import { realBlockBundles } from "../test/unit/store/realBlocks.js"

const USAGE = `Usage: npx tsx bench/bodies.ts [--rounds N] [--fast]
  --rounds N  rounds of flattening (default 20)
  --fast      install the faster cell internals first, as the producer does`
const args = parseCli({ rounds: { type: "string", default: "20" }, fast: { type: "boolean", default: false } }, USAGE)
const rounds = Number(args.rounds)
if (args.fast) installFastCellHash()
const { bundles } = realBlockBundles()
const txs = bundles.flatMap((b) => b.transactions)
const bodies = new Map<string, string>()
for (const t of txs) for (const m of [t.in_msg, ...t.out_msgs]) if (m) bodies.set(m.body.hash, m.body.boc)

const cpu = (f: () => void): number => {
  const start = process.cpuUsage()
  f()
  const u = process.cpuUsage(start)
  return (u.user + u.system) / 1e6
}

// Cold decoding of each distinct body (decodeBodyBoc keeps no memo), grouped by what it decodes to.
const kinds = new Map<string, { n: number; seconds: number }>()
let total = 0
for (let r = 0; r < rounds; r++) {
  for (const boc of bodies.values()) {
    let kind = "null"
    const s = cpu(() => {
      const d = decodeBodyBoc(boc)
      kind = d === null ? "null" : typeof d === "object" ? String(d["@type"]) : typeof d
    })
    total += s
    const k = kinds.get(kind) ?? { n: 0, seconds: 0 }
    kinds.set(kind, { n: k.n + 1, seconds: k.seconds + s })
  }
}
const cells = [...bodies.values()].reduce((a, b) => a + Cell.fromBase64(b).depth(), 0)
console.log(`bodies: ${bodies.size} distinct in ${txs.length} transactions of ${bundles.length} blocks (sum of depths ${cells})`)
console.log(`decode alone: ${((total / (rounds * bodies.size)) * 1e6).toFixed(1)} us per body (CPU), ${rounds} rounds`)
for (const [kind, k] of [...kinds].sort((a, b) => b[1].seconds - a[1].seconds)) {
  console.log(`  ${kind.padEnd(32)} ${String(k.n / rounds).padStart(5)} bodies  ${((k.seconds / k.n) * 1e6).toFixed(1)} us each`)
}

// Flattening as the consumer does it per batch. After the first round every body is in the decoder's memo (by cell
// hash), so these rounds cost what flattening costs without decoding; the cold decoding above is what ingest adds.
flattenBundles(bundles)
const flat = cpu(() => {
  for (let r = 0; r < rounds; r++) flattenBundles(bundles)
})
const flatPerTx = flat / (rounds * txs.length)
const decodePerTx = total / (rounds * txs.length)
console.log(`flatten, bodies already decoded: ${(flatPerTx * 1e6).toFixed(1)} us per tx (${Math.round(1 / flatPerTx)} tx per CPU-second)`)
console.log(`decoding every distinct body once: ${(decodePerTx * 1e6).toFixed(1)} us per tx`)
console.log(`flatten with decoding: ${((flatPerTx + decodePerTx) * 1e6).toFixed(1)} us per tx (${Math.round(1 / (flatPerTx + decodePerTx))} tx per CPU-second)`)
