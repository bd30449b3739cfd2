/**
 * Generates a realistic chain for the fake toncenter: `npm run generate -- --seed 1 --txs 1000000`.
 * Prints a progress line while it works and the output directory, counts and generation rates at the end; an
 * existing output for the same options is reused (delete `.cache/gen` to start over).
 */
import { parseCli } from "../src/infra/cli.js"
import { generate } from "../tools/gen/generate.js"

const values = parseCli(
  {
    seed: { type: "string", default: "1" },
    txs: { type: "string", default: "1000000" },
    base: { type: "string" },
    worlds: { type: "string", default: "2" },
    lanes: { type: "string", default: "2" },
    "tx-per-mc": { type: "string", default: "100" },
    "cache-dir": { type: "string" },
    "no-fixtures": { type: "boolean", default: false },
    "no-threads": { type: "boolean", default: false }
  },
  `usage: npm run generate -- [--seed S] [--txs N] [--base N] [--worlds N] [--lanes N] [--tx-per-mc N]
                             [--cache-dir DIR] [--no-fixtures] [--no-threads]
  defaults: --seed 1 --txs 1000000 --worlds 2 --lanes 2 --tx-per-mc 100, output under .cache/gen`
)

const started = Date.now()
let lastPrint = 0
const { dir, manifest } = await generate({
  seed: values.seed!,
  txs: Number(values.txs),
  baseTxs: values.base === undefined ? undefined : Number(values.base),
  worlds: Number(values.worlds),
  lanes: Number(values.lanes),
  txPerMc: Number(values["tx-per-mc"]),
  cacheDir: values["cache-dir"],
  fixturesDir: values["no-fixtures"] ? null : undefined,
  threads: !values["no-threads"],
  onProgress: (p) => {
    const now = Date.now()
    if (now - lastPrint < 500 && p.done < p.total) return
    lastPrint = now
    const rate = p.elapsedMs > 0 ? Math.round((p.done / p.elapsedMs) * 1000) : 0
    process.stderr.write(`\r${p.phase}: ${p.done}/${p.total} tx, ${rate} tx/s, ${(p.elapsedMs / 1000).toFixed(1)} s   `)
  }
})
process.stderr.write("\n")
const m = manifest
const rate = (n: number, s: number) => (s > 0 ? Math.round(n / s) : 0)
console.log(`output      ${dir}`)
console.log(`txs         ${m.txs} (${m.fixtureTxs} real from fixtures, ${m.baseTxs} emulated base x ${m.replicas} replicas)`)
console.log(`blocks      ${m.bundles} masterchain (${m.mcFirst}..${m.mcLast}), ${m.shardBlocks} shard blocks`)
console.log(`states      ${m.accountStates} account states (toncenter v3 accountStates: each existing account a block touches, after it)`)
console.log(`boc bytes   ${m.bocBytes} (${(m.bocBytes / m.txs).toFixed(0)} per tx)`)
console.log(
  `emulator    ${m.seconds.baseCached ? "cached" : `${m.seconds.base.toFixed(1)} s, ${rate(m.baseTxs, m.seconds.base)} tx/s`}`
)
console.log(`derive      ${m.seconds.derive.toFixed(1)} s, ${rate(m.txs, m.seconds.derive)} tx/s (arranged and written)`)
console.log(`wall        ${((Date.now() - started) / 1000).toFixed(1)} s`)
