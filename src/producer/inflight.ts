/**
 * The producer's byte budget for the bundles it holds between their fetch and their publish (PRODUCER_INFLIGHT_BYTES):
 * the prefetch alone bounds them by count, and a bundle's bytes range from ~1 MB (a quiet masterchain block) to tens
 * of MB (a busy one, thousands of transactions), so eight busy ones ahead of the publish held several hundred MB.
 *
 * A fetch may start when what is held (fetched, waiting for or in its Kafka transaction) plus what fetches under way
 * reserved, plus its own reservation, fits the budget, or when nothing is held or under way (a bundle larger than the
 * budget goes alone, so the chain never stalls). Its reservation is the largest of the last bundles' sizes (sizes
 * change slowly along the chain; the first fetch reserves the whole budget); once fetched, the bundle's own size
 * replaces it until it is published. So what is held stays within the budget but for the fetches that started before
 * the sizes grew, each by its growth. Fetches start in the order they ask (first come, first served), so later seqnos
 * never pass earlier ones waiting for room.
 */
import { Effect, Exit } from "effect"

/** Bundles whose sizes make the reservation. */
const RECENT = 16

export class InFlightBytes {
  private held = 0
  private reserved = 0
  private underWay = 0
  private readonly recent: Array<number> = []
  private readonly waiting: Array<() => boolean> = []
  private readonly sizes = new WeakMap<object, number>()
  /** The largest of held + reserved so far (what the budget bounded). */
  peak = 0

  constructor(
    readonly budget: number,
    private readonly onChange: (bytes: number) => void = () => {}
  ) {}

  /** Held plus reserved bytes now. */
  get bytes(): number {
    return this.held + this.reserved
  }

  /** The largest of the recent bundles; before any arrived, the whole budget (the first fetch goes alone). */
  private reservation(): number {
    if (this.recent.length === 0) return Number.isFinite(this.budget) ? this.budget : 0
    let max = 0
    for (const s of this.recent) if (s > max) max = s
    return max
  }

  /** Reserves room for one fetch if it fits now; false to wait. */
  private tryEnter(): number | false {
    const r = this.reservation()
    const idle = this.held === 0 && this.underWay === 0
    if (!idle && this.held + this.reserved + r > this.budget) return false
    this.underWay++
    this.reserved += r
    this.changed()
    return r
  }

  private changed(): void {
    const b = this.bytes
    if (b > this.peak) this.peak = b
    this.onChange(b)
  }

  /** Starts the waiting fetches, in order, while they fit. */
  private wake(): void {
    while (this.waiting.length > 0 && this.waiting[0]!()) this.waiting.shift()
  }

  /**
   * Runs `fetch` once there is room for it, then holds `bytesOf` its result (taken when it arrives) until the result
   * is `release`d; a fetch that fails or is interrupted gives its reservation back.
   */
  hold<A extends object, E, R>(fetch: Effect.Effect<A, E, R>, bytesOf: (a: A) => number): Effect.Effect<A, E, R> {
    const enter = Effect.async<number>((resume) => {
      const first = this.waiting.length === 0 ? this.tryEnter() : false
      if (first !== false) return resume(Effect.succeed(first))
      const attempt = (): boolean => {
        const r = this.tryEnter()
        if (r === false) return false
        resume(Effect.succeed(r))
        return true
      }
      this.waiting.push(attempt)
      return Effect.sync(() => {
        const i = this.waiting.indexOf(attempt)
        if (i >= 0) this.waiting.splice(i, 1)
        this.wake()
      })
    })
    return Effect.uninterruptibleMask((restore) =>
      Effect.flatMap(restore(enter), (r) =>
        restore(fetch).pipe(
          Effect.onExit((exit) =>
            Effect.sync(() => {
              this.underWay--
              this.reserved -= r
              if (Exit.isSuccess(exit)) {
                const size = bytesOf(exit.value)
                this.sizes.set(exit.value, size)
                this.held += size
                this.recent.push(size)
                if (this.recent.length > RECENT) this.recent.shift()
              }
              this.changed()
              this.wake()
            })
          )
        )
      )
    )
  }

  /** A held result was published (or dropped): its bytes leave the budget (once; anything else is ignored). */
  release(held: object): void {
    const size = this.sizes.get(held)
    if (size === undefined) return
    this.sizes.delete(held)
    this.held -= size
    this.changed()
    this.wake()
  }
}
