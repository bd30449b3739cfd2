/**
 * The publish step's out-message hash -> trace id memory, outside the JS heap: a fixed number of entries in one hash
 * table of plain arrays (the 44 characters of each base64 hash as bytes, bucket chains and a least-recently-used list
 * as slot numbers), so that a full history is a few typed arrays to the garbage collector instead of ~350,000 strings
 * and a Map it marks on every major collection. Invariant: behaves as `Lru<HashB64, HashB64>` of the same capacity
 * (a lookup makes the entry the most recent; the least recent goes first when full); entries whose key or value is
 * not a 44-character base64 hash, which the chain never has, are kept in such an Lru of their own beside it.
 */
import type { HashB64 } from "../ton/record.js"
import { Lru } from "../trace/Lru.js"

/** Characters of a base64 SHA-256 hash: 43 and one `=`. */
const HASH_CHARS = 44
/** A base64 SHA-256 hash as the chain gives it (standard alphabet): 44 characters JSON writes unescaped. */
export const PLAIN_HASH = /^[A-Za-z0-9+/]{43}=$/

/** Bytes one entry takes outside the JS heap: key and value, chain and list links, ~2 bucket slots. */
export const TRACE_HISTORY_ENTRY_BYTES = 2 * HASH_CHARS + 3 * 4 + 2 * 4

/** The characters of a hash are uniform: twelve of them mixed are plenty for a table of < 2^31 buckets. */
const bucketAt = (b: Buffer, off: number): number => {
  const h = b.readUInt32LE(off) ^ Math.imul(b.readUInt32LE(off + 4), 0x9e3779b1) ^ Math.imul(b.readUInt32LE(off + 8), 0x85ebca6b)
  return h ^ (h >>> 15)
}

export class TraceHistory {
  private readonly keys: Buffer
  private readonly values: Buffer
  /** Bucket -> first slot + 1 (0: empty). */
  private readonly buckets: Int32Array
  private readonly mask: number
  /** Slot -> next slot + 1 in its bucket. */
  private readonly chain: Int32Array
  /** Slot -> the next older / newer slot + 1 in recency (0: none). */
  private readonly older: Int32Array
  private readonly newer: Int32Array
  /** Most and least recently used slot + 1 (0: none). */
  private newest = 0
  private oldest = 0
  /** Entries held; slots never used start at `fresh`; freed slots are chained from `free` (slot + 1). */
  private count = 0
  private fresh = 0
  private free = 0
  private readonly scratch = Buffer.alloc(HASH_CHARS)
  private readonly other: Lru<HashB64, HashB64>

  constructor(readonly capacity: number) {
    if (!Number.isSafeInteger(capacity) || capacity < 1) throw new Error(`trace history capacity ${capacity}`)
    this.keys = Buffer.alloc(capacity * HASH_CHARS)
    this.values = Buffer.alloc(capacity * HASH_CHARS)
    let size = 16
    while (size < capacity * 2) size *= 2
    this.buckets = new Int32Array(size)
    this.mask = size - 1
    this.chain = new Int32Array(capacity)
    this.older = new Int32Array(capacity)
    this.newer = new Int32Array(capacity)
    this.other = new Lru(capacity)
  }

  get size(): number {
    return this.count + this.other.size
  }

  get(key: HashB64): HashB64 | undefined {
    if (!PLAIN_HASH.test(key)) return this.other.get(key)
    const slot = this.find(this.load(key))
    if (slot < 0) return this.other.size === 0 ? undefined : this.other.get(key)
    this.touch(slot)
    return this.values.toString("latin1", slot * HASH_CHARS, (slot + 1) * HASH_CHARS)
  }

  set(key: HashB64, value: HashB64): void {
    const plainKey = PLAIN_HASH.test(key)
    if (!plainKey || !PLAIN_HASH.test(value)) {
      if (plainKey) this.remove(key)
      this.other.set(key, value)
      return
    }
    if (this.other.size > 0) this.other.delete(key)
    const bucket = this.load(key)
    let slot = this.find(bucket)
    if (slot >= 0) {
      this.touch(slot)
    } else {
      if (this.free !== 0) {
        slot = this.free - 1
        this.free = this.chain[slot]!
      } else if (this.fresh < this.capacity) slot = this.fresh++
      else {
        slot = this.oldest - 1
        this.unlinkBucket(slot)
        this.unlinkRecency(slot)
        this.count--
      }
      this.count++
      this.scratch.copy(this.keys, slot * HASH_CHARS)
      this.chain[slot] = this.buckets[bucket]!
      this.buckets[bucket] = slot + 1
      this.pushNewest(slot)
    }
    this.values.write(value, slot * HASH_CHARS, HASH_CHARS, "latin1")
  }

  /** Forgets a plain key's entry, if held. */
  private remove(key: HashB64): void {
    const slot = this.find(this.load(key))
    if (slot < 0) return
    this.unlinkBucket(slot)
    this.unlinkRecency(slot)
    this.chain[slot] = this.free
    this.free = slot + 1
    this.count--
  }

  /** Writes `key` into the scratch bytes and returns its bucket. */
  private load(key: string): number {
    this.scratch.write(key, 0, HASH_CHARS, "latin1")
    return bucketAt(this.scratch, 0) & this.mask
  }

  /** The slot holding the scratch key, or -1. */
  private find(bucket: number): number {
    const keys = this.keys
    const s = this.scratch
    for (let at = this.buckets[bucket]!; at !== 0; at = this.chain[at - 1]!) {
      const off = (at - 1) * HASH_CHARS
      let i = 0
      while (i < HASH_CHARS && keys[off + i] === s[i]) i++
      if (i === HASH_CHARS) return at - 1
    }
    return -1
  }

  private unlinkBucket(slot: number): void {
    const bucket = bucketAt(this.keys, slot * HASH_CHARS) & this.mask
    let at = this.buckets[bucket]!
    if (at === slot + 1) {
      this.buckets[bucket] = this.chain[slot]!
      return
    }
    while (at !== 0) {
      const next = this.chain[at - 1]!
      if (next === slot + 1) {
        this.chain[at - 1] = this.chain[slot]!
        return
      }
      at = next
    }
  }

  private unlinkRecency(slot: number): void {
    const o = this.older[slot]!
    const n = this.newer[slot]!
    if (o !== 0) this.newer[o - 1] = n
    else this.oldest = n
    if (n !== 0) this.older[n - 1] = o
    else this.newest = o
    this.older[slot] = 0
    this.newer[slot] = 0
  }

  private pushNewest(slot: number): void {
    this.older[slot] = this.newest
    this.newer[slot] = 0
    if (this.newest !== 0) this.newer[this.newest - 1] = slot + 1
    else this.oldest = slot + 1
    this.newest = slot + 1
  }

  private touch(slot: number): void {
    if (this.newest === slot + 1) return
    this.unlinkRecency(slot)
    this.pushNewest(slot)
  }
}
