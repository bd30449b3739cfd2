/**
 * A bounded map with least-recently-used eviction: the consumer's message-hash -> trace id cache, the body decoder's
 * memo, and the sources' memos of shared block requests. Invariant: never holds more than `capacity` entries and,
 * when given a budget, never more than its `maxWeight` in total (a value weighing more than that is not kept); a miss
 * is only a cache miss (the caller falls back to storage, decodes or asks again).
 */
export interface LruBudget<V> {
  /** Most total weight the entries may have (bytes, when `weigh` estimates bytes). */
  readonly maxWeight: number
  readonly weigh: (value: V) => number
}

/** What an Lru holds now and what its lookups found since it was made (what a memo's size buys). */
export interface LruStats {
  readonly entries: number
  /** Total weight of the entries (0 without a budget). */
  readonly weight: number
  readonly hits: number
  readonly misses: number
}

export class Lru<K, V> {
  private readonly entries = new Map<K, V>()
  /** Each entry's weight, when there is a budget (eviction order is the entries' own). */
  private readonly weights: Map<K, number> | undefined
  private total = 0
  /** Lookups that found their key, and lookups that did not. */
  private hits = 0
  private misses = 0

  constructor(
    readonly capacity: number,
    private readonly budget?: LruBudget<V>
  ) {
    if (budget !== undefined) this.weights = new Map()
  }

  get size(): number {
    return this.entries.size
  }

  /** Total weight of the entries (0 without a budget). */
  get weight(): number {
    return this.total
  }

  stats(): LruStats {
    return { entries: this.entries.size, weight: this.total, hits: this.hits, misses: this.misses }
  }

  get(key: K): V | undefined {
    const v = this.entries.get(key)
    if (v === undefined) {
      this.misses++
      return undefined
    }
    this.hits++
    // Map keeps insertion order: re-inserting moves the key to the most recently used end.
    this.entries.delete(key)
    this.entries.set(key, v)
    return v
  }

  set(key: K, value: V): void {
    if (this.entries.has(key)) this.remove(key)
    if (this.weights !== undefined) {
      const w = this.budget!.weigh(value)
      if (w > this.budget!.maxWeight) return
      this.weights.set(key, w)
      this.total += w
    }
    this.entries.set(key, value)
    while (this.entries.size > this.capacity || (this.budget !== undefined && this.total > this.budget.maxWeight)) {
      const oldest = this.entries.keys().next()
      if (oldest.done) break
      this.remove(oldest.value)
    }
  }

  /** Forgets `key`; with `expected`, only while `key` still holds that value (a newer entry is left alone). */
  delete(key: K, expected?: V): void {
    if (!this.entries.has(key)) return
    if (expected === undefined || this.entries.get(key) === expected) this.remove(key)
  }

  private remove(key: K): void {
    this.entries.delete(key)
    if (this.weights !== undefined) {
      this.total -= this.weights.get(key) ?? 0
      this.weights.delete(key)
    }
  }
}
