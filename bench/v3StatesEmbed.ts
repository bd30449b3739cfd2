// What embedding the known account states in the `v3_pages` rows (src/flatten/v3_pages.ts) costs the consumer and
// gives the reader, over a generated chain with states (BENCH_GEN_DIR, e.g. /tmp/data/chain50k: `bench:ingest
// --gen-dir` files, the bundles as the toncenter source assembles them, account states included): each bundle decoded
// as the producer decodes it and flattened as the consumer does, then its `v3_pages` row built with and without the
// known states (the bundle's and the earlier bundles' kept, as the consumer does), alternating bundle by bundle over
// BENCH_ROUNDS (5) rounds; printed: the row's build CPU per transaction either way (this thread), the row's bytes per
// transaction either way, and the share of the lines' state fields embedded in the first round (the rest a page's
// lookups still ask for), with what a history of BENCH_HISTORY (5000,20000,50000) states would give. BENCH_BUNDLES (all) bundles of the first file. Numbers
// are printed, never asserted.
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { knownStateJson, StateHistory } from "../src/flatten/bundle.js"
import { V3_STATE_HISTORY_ENTRIES } from "../src/sink/ClickHouseSink.js"
import { accountStateRows } from "../src/flatten/account_states.js"
import { v3PageRow } from "../src/flatten/v3_pages.js"
import { assembleBundle, pipelineDecode } from "../src/producer/assemble.js"
import { txPageRow } from "../src/store/pages.js"
import { installFastCellHash } from "../src/ton/fastHash.js"
import { withShippedBodies } from "../src/ton/v3Text.js"
import { threadCpuSeconds } from "../src/ops/cpu.js"

installFastCellHash()
const dir = process.env.BENCH_GEN_DIR ?? "/tmp/data/chain50k"
const rounds = Number(process.env.BENCH_ROUNDS ?? 5)
const manifest = JSON.parse(readFileSync(join(dir, "manifest.json"), "utf8")) as { chunks: Array<{ file: string }> }
let lines = readFileSync(join(dir, manifest.chunks[0]!.file), "utf8")
  .split("\n")
  .filter((l) => l.length > 0)
if (process.env.BENCH_BUNDLES) lines = lines.slice(0, Number(process.env.BENCH_BUNDLES))
const prepared = lines.map((l) => {
  const b = assembleBundle(JSON.parse(l), "mainnet", pipelineDecode).bundle
  const pages = withShippedBodies(b, () => b.transactions.map(txPageRow))
  return { b, pages, states: accountStateRows(b.account_states) }
})
const txs = prepared.reduce((n, p) => n + p.pages.length, 0)
const history = new StateHistory(V3_STATE_HISTORY_ENTRIES)
let cpuWith = 0
let cpuWithout = 0
let bytesWith = 0
let bytesWithout = 0
let fields = 0
let embedded = 0
// the fields a consumer remembering every known state of the bundles before (any bound) could embed
let embeddable = 0
let ownOnly = 0
const seen = new Set<string>()
// and with only the newest N known states remembered (a bounded history, refreshed when used)
const bounds = (process.env.BENCH_HISTORY ?? "5000,20000,50000").split(",").map(Number)
const histories = bounds.map((n) => ({ n, kept: new Map<string, true>(), hits: 0 }))
const rowBytes = (lines: ReadonlyArray<string>) => lines.reduce((n, l) => n + Buffer.byteLength(l) + 1, 0)
for (let r = 0; r < rounds; r++) {
  for (const [k, p] of prepared.entries()) {
    const order = (k + r) % 2 === 0 ? [true, false] : [false, true]
    for (const embed of order) {
      const t0 = threadCpuSeconds()
      let row
      if (embed) {
        // as the consumer flattens (src/flatten/bundle.ts): its own known states, then the earlier ones kept
        const stateJson = knownStateJson(p.states, history)
        row = v3PageRow(p.b.mc_seqno, p.pages, stateJson)
        for (const st of p.states) if (st.known === 1) history.remember(st.hash, stateJson(st.hash)!)
      } else row = v3PageRow(p.b.mc_seqno, p.pages)
      const dt = threadCpuSeconds() - t0
      if (embed) cpuWith += dt
      else cpuWithout += dt
      if (r === 0) {
        if (embed) {
          for (const h of histories) {
            for (const piece of p.pages) {
              for (const x of [piece.state_before, piece.state_after]) {
                if (h.kept.has(x)) {
                  h.hits++
                  h.kept.delete(x)
                  h.kept.set(x, true)
                }
              }
            }
          }
          const own = new Set(p.states.filter((st) => st.known === 1).map((st) => st.hash))
          for (const piece of p.pages)
            ownOnly += (own.has(piece.state_before) ? 1 : 0) + (own.has(piece.state_after) ? 1 : 0)
          for (const st of p.states) if (st.known === 1) seen.add(st.hash)
          for (const h of histories) {
            for (const st of p.states) {
              if (st.known !== 1) continue
              h.kept.delete(st.hash)
              h.kept.set(st.hash, true)
            }
            while (h.kept.size > h.n) h.kept.delete(h.kept.keys().next().value!)
          }
          for (const piece of p.pages)
            embeddable += (seen.has(piece.state_before) ? 1 : 0) + (seen.has(piece.state_after) ? 1 : 0)
          bytesWith += rowBytes(row.lines)
          for (const line of row.lines) {
            const f = line.split("\t", 2)
            fields += 2
            embedded += (f[0]!.startsWith("{") ? 1 : 0) + (f[1]!.startsWith("{") ? 1 : 0)
          }
        } else bytesWithout += rowBytes(row.lines)
      }
    }
  }
}
const us = (s: number) => ((s * 1e6) / (txs * rounds)).toFixed(2)
console.log(`${prepared.length} bundles, ${txs} transactions, ${rounds} rounds`)
console.log(
  `v3_pages row build: ${us(cpuWithout)} us/tx with hashes, ${us(cpuWith)} us/tx with the known states embedded`
)
console.log(
  `row bytes: ${(bytesWithout / txs).toFixed(0)} B/tx with hashes, ${(bytesWith / txs).toFixed(0)} B/tx embedded ` +
    `(+${(((bytesWith - bytesWithout) / bytesWithout) * 100).toFixed(1)}%)`
)
console.log(
  `state fields embedded (the consumer's, ${V3_STATE_HISTORY_ENTRIES} earlier states kept): ${embedded} of ${fields} (${((embedded / fields) * 100).toFixed(1)}%)`
)
for (const h of histories) {
  console.log(
    `with the newest ${h.n} known states of earlier bundles too: ` +
      `${(((ownOnly + h.hits) / fields) * 100).toFixed(1)}% (from its own bundle: ${((ownOnly / fields) * 100).toFixed(1)}%)`
  )
}
console.log(
  `known in this or an earlier bundle: ${embeddable} of ${fields} (${((embeddable / fields) * 100).toFixed(1)}%)`
)
