/**
 * The differential run of the fast decoder against the @ton/core reference: every real fixture transaction (the
 * fixture blocks' transactions and every BOC in the other fixture files), then `count` random transactions with
 * damaged ones among them, each under both exotic-body options. Used by `npm run diff:decode` (100,000 by default)
 * and, shortened, by the unit suite. Invariant: a run agrees only if every case gave the same record or error.
 */
import { fastDecodeStats } from "../../src/ton/fast/decode.js"
import type { BlockIdExt } from "../../src/ton/record.js"
import { compareOne, emptyTally, record, type Tally } from "./compare.js"
import { blockTransactions, type CorpusEntry, fixtureBocs } from "./corpus.js"
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

/** Every real fixture case: the fixture blocks' transactions, then every BOC of the other fixture files. */
export const fixtureCases = (realDir: string): Array<CorpusEntry> => [
  ...blockTransactions(realDir),
  ...fixtureBocs(realDir)
]

/** Compares the given fixture cases under both exotic-body options (every real fixture when none are given). */
export const diffFixtures = (
  realDir: string,
  into: Tally = emptyTally(),
  cases: ReadonlyArray<CorpusEntry> = fixtureCases(realDir)
): Tally => {
  for (const e of cases) {
    record(into, e.source, compareOne(e.boc, e.ctx, { exoticBodies: "keep" }))
    record(into, e.source, compareOne(e.boc, e.ctx, { exoticBodies: "reject" }))
  }
  return into
}

/** Generated cases `from` .. `to`-1 of the stream `seed` (a third of them under exoticBodies "reject"). */
export const diffGenerated = (seed: number, from: number, to: number, into: Tally = emptyTally()): Tally => {
  for (let i = from; i < to; i++) {
    const c = randomCase(seed, i)
    const ctx = { block: blockOf(c.workchain), mc_block_seqno: 1 + (i % 1000) }
    record(into, `seed ${seed} case ${i}`, compareOne(c.boc, ctx, { exoticBodies: i % 3 === 0 ? "reject" : "keep" }))
  }
  return into
}

export const runDiff = (
  realDir: string,
  count: number,
  seed: number,
  progress?: (done: number, tally: Tally) => void
): DiffReport => {
  const fast0 = fastDecodeStats.fast
  const fallback0 = fastDecodeStats.fallback
  const reasons0 = new Map(fastDecodeStats.fallbacks)
  const fixtures = diffFixtures(realDir)
  const generated = emptyTally()
  for (let i = 0; i < count; i += 5000) {
    diffGenerated(seed, i, Math.min(count, i + 5000), generated)
    progress?.(Math.min(count, i + 5000), generated)
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
