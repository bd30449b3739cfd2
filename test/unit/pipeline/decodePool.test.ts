// The decode pool publishes exactly what decoding on the main thread publishes: the same record bytes, headers,
// dead letters and counts, bundle by bundle in request order, whether a bundle goes whole to one worker or in slices
// to several; and a worker that dies fails its request and every later one instead of leaving them waiting.
import { Effect, Either } from "effect"
import { describe, expect, it } from "vitest"
import { generateChain } from "../../../tools/fake/generate.js"
import { assembleBundle, pipelineDecode, prepare, type Prepared } from "../../../src/producer/assemble.js"
import { DecodePoolError, makeDecodePool, type DecodePoolOptions } from "../../../src/producer/DecodePool.js"
import type { ThreadHeap } from "../../../src/producer/decodeWorker.js"
import type { RawMasterchainBundle } from "../../../src/source/Upstream.js"
import { rawBundle } from "../../support/pipeline/chainUpstream.js"

const chain = generateChain({
  seed: 11,
  mcBlocks: 8,
  txPerBlock: 6,
  initialShards: 2,
  maxShards: 4,
  maxBlocksPerShard: 2,
  fixtures: true,
  network: "mainnet",
  cacheAboveTxs: 0
})

const raws: Array<RawMasterchainBundle> = []
for (let s = chain.first; s <= chain.last; s++) raws.push(rawBundle(chain, s)!)
// One BOC that cannot be a transaction, in the middle of a bundle: it must come back as a dead letter in place.
const poisonAt = raws.findIndex((r) => r.transactions.length >= 4)
raws[poisonAt] = {
  ...raws[poisonAt]!,
  transactions: raws[poisonAt]!.transactions.map((t, i) => (i === 2 ? { ...t, boc: "te6cc" } : t))
}

/** Comparable form: the record bytes as text, everything else as it is. */
const plain = (p: Prepared) => ({
  ...p,
  bundle: p.bundle === null ? null : { ...p.bundle, value: p.bundle.value.toString() },
  drafts: { ...p.drafts, bytes: Buffer.from(p.drafts.bytes).toString("latin1") }
})

const throughPool = (options: Omit<DecodePoolOptions, "network">, bundles: ReadonlyArray<RawMasterchainBundle>) =>
  Effect.runPromise(
    Effect.scoped(
      Effect.flatMap(makeDecodePool({ ...options, network: "mainnet" }), (pool) =>
        Effect.forEach(bundles, pool.prepare, { concurrency: 8 })
      )
    )
  )

describe("decode pool", () => {
  const expected = raws.map((raw) => prepare(assembleBundle(raw, "mainnet", pipelineDecode)))

  it("the chain has what the comparison needs: several bundles, real and generated transactions, a dead letter", () => {
    expect(raws.length).toBe(8)
    expect(expected.reduce((n, p) => n + p.transactions, 0)).toBeGreaterThan(100)
    expect(expected.flatMap((p) => p.deadLetters).map((l) => [l.mc_seqno, l.reason])).toEqual([
      [raws[poisonAt]!.mc_seqno, expect.any(String)]
    ])
  })

  it("whole bundles on workers equal the main thread's, in request order", async () => {
    const got = await throughPool({ workers: 2 }, raws)
    expect(got.map((p) => p.mcSeqno)).toEqual(raws.map((r) => r.mc_seqno))
    expect(got.map(plain)).toEqual(expected.map(plain))
    expect(Buffer.isBuffer(got[0]!.bundle!.value)).toBe(true)
  })

  it("bundles cut into slices on several workers equal the main thread's", async () => {
    const got = await throughPool({ workers: 3, sliceTxs: 5 }, raws)
    expect(got.map(plain)).toEqual(expected.map(plain))
  })

  it("each worker tells its own V8 heap as it answers (the process's figures are the main thread's)", async () => {
    const told = new Map<number, Array<ThreadHeap>>()
    await throughPool(
      { workers: 2, sliceTxs: 5, onHeap: (worker, heap) => told.set(worker, [...(told.get(worker) ?? []), heap]) },
      raws
    )
    expect([...told.keys()].sort()).toEqual([0, 1])
    for (const heaps of told.values()) {
      for (const h of heaps) {
        expect(h.used).toBeGreaterThan(0)
        expect(h.total).toBeGreaterThanOrEqual(h.used)
        expect(h.external).toBeGreaterThanOrEqual(0)
        expect(h.malloced).toBeGreaterThan(0)
        expect(h.young).toBeGreaterThan(0)
        expect(h.young).toBeLessThanOrEqual(h.total)
      }
    }
    // Every answer tells one: the bundles cut into slices of 5 make more answers than bundles.
    expect([...told.values()].reduce((n, h) => n + h.length, 0)).toBeGreaterThan(raws.length)
  })

  it("the workers' young generation is the one asked for (PRODUCER_DECODE_YOUNG_MB), and records are unchanged", async () => {
    const young = async (mb: number) => {
      let most = 0
      const got = await throughPool(
        {
          workers: 1,
          resourceLimits: { maxOldGenerationSizeMb: 256, maxYoungGenerationSizeMb: mb },
          onHeap: (_, heap) => void (most = Math.max(most, heap.young))
        },
        raws
      )
      expect(got.map(plain)).toEqual(expected.map(plain))
      return most
    }
    // V8 commits two semi-spaces of a third of the young generation each, at most.
    expect(await young(6)).toBeLessThanOrEqual(4 * 1024 * 1024)
    expect(await young(48)).toBeLessThanOrEqual(32 * 1024 * 1024)
  })

  it("a worker that dies fails its request, the queued ones and every later one with DecodePoolError", async () => {
    // A BigInt has no JSON form: encoding this bundle throws where the worker does not expect it.
    const broken = { ...raws[0]!, code_hashes: { x: 1n } } as unknown as RawMasterchainBundle
    const results = await Effect.runPromise(
      Effect.scoped(
        Effect.gen(function* () {
          const pool = yield* makeDecodePool({ workers: 1, network: "mainnet" })
          // The second request waits behind the one that kills the only worker: it must fail too, not wait for ever.
          const both = yield* Effect.all([Effect.either(pool.prepare(broken)), Effect.either(pool.prepare(raws[1]!))], {
            concurrency: 2
          })
          const later = yield* Effect.either(pool.prepare(raws[2]!))
          return [...both, later]
        })
      )
    )
    const errors = results.map((r) => (Either.isLeft(r) ? r.left : undefined))
    expect(errors.every((e) => e instanceof DecodePoolError)).toBe(true)
    expect(errors[0]?.message).toMatch(/^decode worker 1 of 1 died: TypeError: .*BigInt/)
    expect(new Set(errors.map((e) => e?.message)).size).toBe(1)
  })
})
