// The producer's byte budget for fetched bundles (src/producer/inflight.ts, PRODUCER_INFLIGHT_BYTES): fetches start
// while the recent bundles' size fits beside what is held, the first one alone; a bundle larger than the budget goes
// alone instead of stalling; waiting fetches start in order; a failed or interrupted fetch gives its room back; and
// through the producer's own shape (an ordered stream with a prefetch of 8, published in Kafka-transaction chunks
// that release what they published) every bundle comes out in order with what is held bounded by bytes.
import { Chunk, Deferred, Duration, Effect, Exit, Fiber, Stream } from "effect"
import { describe, expect, it } from "vitest"
import { InFlightBytes } from "../../../src/producer/inflight.js"
import { transactionBatches } from "../../../src/producer/Producer.js"

interface Item {
  readonly seqno: number
  readonly size: number
  readonly transactions: number
}

const item = (seqno: number, size: number): Item => ({ seqno, size, transactions: 1 })

/** A fetch the test completes by hand, and whether it has started. */
const manual = Effect.gen(function* () {
  const done = yield* Deferred.make<Item, string>()
  const started = { value: false }
  const fetch = Effect.suspend(() => {
    started.value = true
    return Deferred.await(done)
  })
  return { done, started, fetch }
})

const settle = () => Effect.sleep(Duration.millis(5))

describe("InFlightBytes", () => {
  it("starts the first fetch alone, then as many as the last bundles' size fits beside what is held", () =>
    Effect.runPromise(
      Effect.gen(function* () {
        const gate = new InFlightBytes(100)
        const fetches = yield* Effect.all([manual, manual, manual, manual, manual])
        const fibers = yield* Effect.forEach(fetches, (f) => Effect.fork(gate.hold(f.fetch, (i: Item) => i.size)))
        yield* settle()
        // nothing known yet: the first reserves the whole budget
        expect(fetches.map((f) => f.started.value)).toEqual([true, false, false, false, false])
        yield* Deferred.succeed(fetches[0]!.done, item(0, 30))
        yield* settle()
        // 30 held, 30 reserved per fetch: two more fit (30 + 30 + 30 = 90), a third would be 120
        expect(fetches.map((f) => f.started.value)).toEqual([true, true, true, false, false])
        expect(gate.bytes).toBe(90)
        const first = yield* Fiber.join(fibers[0]!)
        gate.release(first)
        yield* settle()
        expect(fetches.map((f) => f.started.value)).toEqual([true, true, true, true, false])
        for (const [i, f] of fetches.slice(1).entries()) yield* Deferred.succeed(f.done, item(i + 1, 30))
        for (const f of fibers.slice(1)) gate.release(yield* Fiber.join(f))
        expect(gate.bytes).toBe(0)
        expect(gate.peak).toBeLessThanOrEqual(100)
      })
    ))

  it("lets a bundle larger than the budget go alone instead of stalling, and holds the next fetch until it is released", () =>
    Effect.runPromise(
      Effect.gen(function* () {
        const gate = new InFlightBytes(10)
        const big = yield* gate.hold(Effect.succeed(item(0, 50)), (i) => i.size)
        expect(gate.bytes).toBe(50)
        const next = yield* manual
        const fiber = yield* Effect.fork(gate.hold(next.fetch, (i: Item) => i.size))
        yield* settle()
        expect(next.started.value).toBe(false)
        gate.release(big)
        yield* settle()
        // nothing held: the next goes though the reservation (50) exceeds the budget
        expect(next.started.value).toBe(true)
        yield* Deferred.succeed(next.done, item(1, 5))
        gate.release(yield* Fiber.join(fiber))
        expect(gate.bytes).toBe(0)
      })
    ))

  it("starts waiting fetches in the order they asked", () =>
    Effect.runPromise(
      Effect.gen(function* () {
        const gate = new InFlightBytes(10)
        const held = yield* gate.hold(Effect.succeed(item(0, 4)), (i) => i.size)
        const order: Array<number> = []
        const fibers = yield* Effect.forEach([1, 2, 3], (n) =>
          Effect.fork(gate.hold(Effect.sync(() => (order.push(n), item(n, 4))), (i) => i.size))
        )
        yield* settle()
        // 4 held + 4 reserved: one started (8), the next would be 12
        expect(order).toEqual([1])
        gate.release(held)
        // each published (released) as it comes, as the producer's publish does
        for (const f of fibers) gate.release(yield* Fiber.join(f))
        expect(order).toEqual([1, 2, 3])
        expect(gate.bytes).toBe(0)
      })
    ))

  it("gives back the room of a fetch that failed or was interrupted, waiting or under way", () =>
    Effect.runPromise(
      Effect.gen(function* () {
        const gate = new InFlightBytes(10)
        gate.release(yield* gate.hold(Effect.succeed(item(0, 6)), (i) => i.size))
        const failed = yield* Effect.exit(gate.hold(Effect.fail("upstream down"), (i: Item) => i.size))
        expect(Exit.isFailure(failed)).toBe(true)
        expect(gate.bytes).toBe(0)
        // one under way (6 reserved), one waiting behind it: interrupt both
        const slow = yield* manual
        const underWay = yield* Effect.fork(gate.hold(slow.fetch, (i: Item) => i.size))
        const waiting = yield* Effect.fork(gate.hold(Effect.succeed(item(2, 6)), (i) => i.size))
        yield* settle()
        expect(gate.bytes).toBe(6)
        yield* Fiber.interrupt(waiting)
        yield* Fiber.interrupt(underWay)
        expect(gate.bytes).toBe(0)
        // and the gate still works
        gate.release(yield* gate.hold(Effect.succeed(item(3, 6)), (i) => i.size))
        expect(gate.bytes).toBe(0)
      })
    ))

  /** Bundles of these sizes through the producer's shape; what was published, in order, and the gate. */
  const throughProducer = (sizes: ReadonlyArray<number>, budget: number) =>
    Effect.gen(function* () {
      const gate = new InFlightBytes(budget)
      const published: Array<number> = []
      yield* Stream.range(0, sizes.length - 1).pipe(
        Stream.mapEffect(
          (n) =>
            gate.hold(
              // fetch times vary, so fetches complete out of order
              Effect.as(Effect.sleep(Duration.millis((n * 7) % 5)), item(n, sizes[n]!)),
              (i) => i.size
            ),
          { concurrency: 8 }
        ),
        transactionBatches(4, 16),
        Stream.mapEffect((chunk) =>
          Effect.gen(function* () {
            yield* Effect.sleep(Duration.millis(2))
            for (const i of Chunk.toReadonlyArray(chunk)) {
              published.push(i.seqno)
              gate.release(i)
            }
          })
        ),
        Stream.runDrain
      )
      return { published, gate }
    })

  it("through the producer's shape: every bundle in order, what is held within the budget (eight bundles' worth without it)", () =>
    Effect.runPromise(
      Effect.gen(function* () {
        const sizes = Array.from({ length: 60 }, () => 400)
        const { published, gate } = yield* throughProducer(sizes, 1_000)
        expect(published).toEqual(sizes.map((_, i) => i))
        expect(gate.bytes).toBe(0)
        expect(gate.peak).toBeGreaterThanOrEqual(400)
        expect(gate.peak).toBeLessThanOrEqual(1_000)
        // the prefetch count alone: up to eight bundles at once
        const { gate: unbounded } = yield* throughProducer(sizes, Number.POSITIVE_INFINITY)
        expect(unbounded.peak).toBeGreaterThan(2_000)
      })
    ))

  it("through the producer's shape with sizes that grow: above the budget by at most the growth of the fetches under way", () =>
    Effect.runPromise(
      Effect.gen(function* () {
        // a quiet stretch, a busy one (ten times larger), a quiet one again
        const sizes = Array.from({ length: 120 }, (_, i) => (i >= 40 && i < 80 ? 400 : 40))
        const { published, gate } = yield* throughProducer(sizes, 1_000)
        expect(published).toEqual(sizes.map((_, i) => i))
        expect(gate.bytes).toBe(0)
        // eight quiet reservations may turn busy at once: 8 x (400 - 40) above the budget at most
        expect(gate.peak).toBeLessThanOrEqual(1_000 + 8 * 360)
      })
    ))

  it("bounds nothing with an infinite budget: the prefetch count alone", () =>
    Effect.runPromise(
      Effect.gen(function* () {
        const gate = new InFlightBytes(Number.POSITIVE_INFINITY)
        const fetches = yield* Effect.all([manual, manual, manual])
        const fibers = yield* Effect.forEach(fetches, (f) => Effect.fork(gate.hold(f.fetch, (i: Item) => i.size)))
        yield* settle()
        expect(fetches.every((f) => f.started.value)).toBe(true)
        for (const [i, f] of fetches.entries()) yield* Deferred.succeed(f.done, item(i, 1e9))
        for (const f of fibers) gate.release(yield* Fiber.join(f))
        expect(gate.bytes).toBe(0)
      })
    ))
})
