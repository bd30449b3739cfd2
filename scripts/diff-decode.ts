// `npm run diff:decode [count] [seed]`: the fast transaction decoder against the @ton/core reference on every real
// fixture and on `count` generated transactions (default 100,000, a quarter of them damaged), field by field.
// Prints the tallies and every disagreement; exits 1 if there is any.
import path from "node:path"
import { fileURLToPath } from "node:url"
import { installFastCellHash } from "../src/ton/fastHash.js"
import { runDiff } from "../tools/decodeDiff/run.js"
import type { Tally } from "../tools/decodeDiff/compare.js"

const here = path.dirname(fileURLToPath(import.meta.url))
const count = Number(process.argv[2] ?? 100_000)
const seed = Number(process.argv[3] ?? 1)
// Building the random cells with @ton/core hashes every cell; node:crypto makes that several times cheaper.
installFastCellHash()

const started = Date.now()
const line = (name: string, t: Tally): string =>
  `${name}: ${t.total} cases, ${t.decoded} decoded, errors ${JSON.stringify(Object.fromEntries(t.errors))}, ` +
  `${t.mismatches.length} disagreements`
const report = runDiff(path.join(here, "../test/fixtures/real"), count, seed, (done, t) =>
  console.log(`  ${done} generated, ${t.mismatches.length} disagreements, ${((Date.now() - started) / 1000).toFixed(0)} s`)
)
console.log(line("real fixtures (both exotic-body options)", report.fixtures))
console.log(line(`generated (seed ${seed})`, report.generated))
console.log(
  `fast path decoded ${report.fastTaken}, handed ${report.fallbacks} to the reference: ` +
    JSON.stringify(Object.fromEntries(report.fallbackReasons))
)
const all = [...report.fixtures.mismatches, ...report.generated.mismatches]
for (const m of all.slice(0, 20)) {
  console.log(`DISAGREE ${m.source}\n  reference: ${m.reference.slice(0, 2000)}\n  fast:      ${m.fast.slice(0, 2000)}`)
}
console.log(`${all.length === 0 ? "AGREE" : "DISAGREE"} in ${((Date.now() - started) / 1000).toFixed(0)} s`)
process.exit(all.length === 0 ? 0 : 1)
