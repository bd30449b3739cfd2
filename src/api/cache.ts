/**
 * A byte-bounded LRU of serialized response bodies. Data of a completely ingested masterchain block never
 * changes, so a rendered answer can be reused until evicted; the only live-derived part (the v3 address
 * book's bounceable flags, from the latest known code) gets a time limit instead.
 * Invariant: total cached bytes stay within the budget; an expired entry is never served.
 */

/** A body as text or as its UTF-8 bytes (sized by its length either way, a bound of its bytes for text). */
type Body = string | Buffer

interface Entry {
  readonly body: Body
  readonly expiresAt: number
}

export class ResponseCache {
  private readonly entries = new Map<string, Entry>()
  private bytes = 0
  hits = 0
  misses = 0

  constructor(
    private readonly budgetBytes: number,
    private readonly nowMs: () => number
  ) {}

  get(key: string): Body | undefined {
    const e = this.entries.get(key)
    if (e === undefined || e.expiresAt <= this.nowMs()) {
      if (e !== undefined) this.remove(key, e)
      this.misses++
      return undefined
    }
    // re-insert: Map iteration order is the recency order
    this.entries.delete(key)
    this.entries.set(key, e)
    this.hits++
    return e.body
  }

  set(key: string, body: Body, ttlMs = Number.POSITIVE_INFINITY): void {
    const size = body.length + key.length
    if (size > this.budgetBytes / 4) return
    const old = this.entries.get(key)
    if (old !== undefined) this.remove(key, old)
    // a view of a larger buffer (an answer written into room to spare) would keep all of it alive: keep its own copy
    if (typeof body !== "string" && body.byteLength < body.buffer.byteLength) {
      const own = Buffer.allocUnsafeSlow(body.byteLength)
      body.copy(own)
      body = own
    }
    this.entries.set(key, { body, expiresAt: this.nowMs() + ttlMs })
    this.bytes += size
    for (const [k, e] of this.entries) {
      if (this.bytes <= this.budgetBytes) break
      this.remove(k, e)
    }
  }

  get size(): number {
    return this.bytes
  }

  private remove(key: string, e: Entry): void {
    this.entries.delete(key)
    this.bytes -= e.body.length + key.length
  }
}
