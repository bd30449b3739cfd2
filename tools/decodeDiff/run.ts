/**
 * The differential run of the fast decoder against the @ton/core reference: every real fixture transaction (the
 * fixture blocks' transactions and every BOC in the other fixture files), then `count` random transactions with
 * damaged ones among them, each under both exotic-body options. Used by `npm run diff:decode` (100,000 by default)
 * and, shortened, by the unit suite. Invariant: a run agrees only if every case gave the same record or error.
 */
import { fastDecodeStats } from "../../src/ton/fast/decode.js"
import type { BlockIdExt } from "../../src/ton/record.js"
import { compareOne, emptyTally, record, type Tally } from "./compare.js"
import { blockTransactions, fixtureBocs } from "./corpus.js"
import { randomCase } from "./randomTx.js"

export interface DiffReport {
  readonly fixtures: Tally
  readonly generated: Tally
  readonly fastTaken: number
  readonly fallbacks: number
  readonly fallbackReasons: ReadonlyMap<string, number>
}

const blockOf = (workchain: number): BlockIdExt => ({
  workchain,
  shard: "-9223372036854775808",
  seqno: 1,
  root_hash: "",
  file_hash: ""
})

export const runDiff = (
  realDir: string,
  count: number,
  seed: number,
  progress?: (done: number, tally: Tally) => void
): DiffReport => {
  const fast0 = fastDecodeStats.fast
  const fallback0 = fastDecodeStats.fallback
  const reasons0 = new Map(fastDecodeStats.fallbacks)
  const fixtures = emptyTally()
  for (const e of [...blockTransactions(realDir), ...fixtureBocs(realDir)]) {
    record(fixtures, e.source, compareOne(e.boc, e.ctx, { exoticBodies: "keep" }))
    record(fixtures, e.source, compareOne(e.boc, e.ctx, { exoticBodies: "reject" }))
  }
  const generated = emptyTally()
  for (let i = 0; i < count; i++) {
    const c = randomCase(seed, i)
    const ctx = { block: blockOf(c.workchain), mc_block_seqno: 1 + (i % 1000) }
    record(generated, `seed ${seed} case ${i}`, compareOne(c.boc, ctx, { exoticBodies: i % 3 === 0 ? "reject" : "keep" }))
    if (progress && (i + 1) % 5000 === 0) progress(i + 1, generated)
  }
  const fallbackReasons = new Map<string, number>()
  for (const [k, v] of fastDecodeStats.fallbacks) {
    const d = v - (reasons0.get(k) ?? 0)
    if (d > 0) fallbackReasons.set(k, d)
  }
  return {
    fixtures,
    generated,
    fastTaken: fastDecodeStats.fast - fast0,
    fallbacks: fastDecodeStats.fallback - fallback0,
    fallbackReasons
  }
}
