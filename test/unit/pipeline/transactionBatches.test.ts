// The producer's grouping of bundles into Kafka transactions: bounded by bundles and by records, never splitting a
// bundle, never losing or reordering one.
import { Chunk, Effect, Stream } from "effect"
import { describe, expect, it } from "vitest"
import { transactionBatches } from "../../../src/producer/Producer.js"

const batches = (sizes: ReadonlyArray<number>, perTx: number, maxRecords: number) =>
  Effect.runPromise(
    Stream.fromIterable(sizes.map((transactions, i) => ({ i, transactions }))).pipe(
      transactionBatches(perTx, maxRecords),
      Stream.map((c) => Chunk.toReadonlyArray(c)),
      Stream.runCollect,
      Effect.map((c) => Chunk.toReadonlyArray(c))
    )
  )

describe("transactionBatches", () => {
  it("keeps each Kafka transaction within the record bound, in order, every bundle once", async () => {
    const sizes = [100, 900, 1500, 10, 10, 2990, 3000, 1, 1, 1, 2500, 2500]
    const out = await batches(sizes, 32, 4_000)
    expect(out.flat().map((b) => b.i)).toEqual(sizes.map((_, i) => i))
    for (const b of out) {
      const records = b.reduce((n, x) => n + 1 + x.transactions, 0)
      expect(b.length === 1 || records <= 4_000, JSON.stringify(b)).toBe(true)
    }
    // not one bundle per transaction either: small bundles share
    expect(out.length).toBeLessThan(sizes.length)
  })

  it("a bundle larger than the bound goes alone; small ones stop at the bundle bound", async () => {
    const big = await batches([5, 9_000, 5], 32, 4_000)
    expect(big.map((b) => b.map((x) => x.transactions))).toEqual([[5], [9_000], [5]])
    const small = await batches(Array.from({ length: 70 }, () => 0), 32, 4_000)
    expect(small.map((b) => b.length)).toEqual([32, 32, 6])
  })
})
