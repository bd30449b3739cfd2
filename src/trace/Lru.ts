/**
 * A bounded map with least-recently-used eviction: the consumer's message-hash -> trace id cache, and the sources'
 * memos of shared block requests. Invariant: never holds more than `capacity` entries; a miss is only a cache miss
 * (the caller falls back to storage or asks again).
 */
export class Lru<K, V> {
  private readonly entries = new Map<K, V>()

  constructor(readonly capacity: number) {}

  get size(): number {
    return this.entries.size
  }

  get(key: K): V | undefined {
    const v = this.entries.get(key)
    if (v === undefined) return undefined
    // Map keeps insertion order: re-inserting moves the key to the most recently used end.
    this.entries.delete(key)
    this.entries.set(key, v)
    return v
  }

  set(key: K, value: V): void {
    if (this.entries.has(key)) this.entries.delete(key)
    this.entries.set(key, value)
    while (this.entries.size > this.capacity) {
      const oldest = this.entries.keys().next()
      if (oldest.done) break
      this.entries.delete(oldest.value)
    }
  }

  /** Forgets `key`; with `expected`, only while `key` still holds that value (a newer entry is left alone). */
  delete(key: K, expected?: V): void {
    if (expected === undefined || this.entries.get(key) === expected) this.entries.delete(key)
  }
}
