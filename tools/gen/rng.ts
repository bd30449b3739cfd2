/**
 * Seeded pseudo-random numbers for the chain generator: every choice the generator makes (keys, actors, amounts,
 * time steps) comes from here, so a seed alone fixes the output. Invariant: no call reads the clock or the OS RNG.
 */
import { createHash } from "node:crypto"

/** 32 bytes derived from the seed and a label: independent streams for keys, worlds and replicas. */
export const derive32 = (...parts: ReadonlyArray<string | number | bigint>): Buffer =>
  createHash("sha256").update(parts.map(String).join("\u0000")).digest()

/** sfc32: small, fast and good enough for choosing actions; seeded from a sha256 so nearby seeds diverge at once. */
export class Rng {
  private a: number
  private b: number
  private c: number
  private d: number

  constructor(...seedParts: ReadonlyArray<string | number | bigint>) {
    const h = derive32("rng", ...seedParts)
    this.a = h.readUInt32LE(0)
    this.b = h.readUInt32LE(4)
    this.c = h.readUInt32LE(8)
    this.d = h.readUInt32LE(12)
    for (let i = 0; i < 12; i++) this.next()
  }

  /** Uniform in [0, 2^32). */
  next(): number {
    const t = (((this.a + this.b) | 0) + this.d) | 0
    this.d = (this.d + 1) | 0
    this.a = this.b ^ (this.b >>> 9)
    this.b = (this.c + (this.c << 3)) | 0
    this.c = (this.c << 21) | (this.c >>> 11)
    this.c = (this.c + t) | 0
    return t >>> 0
  }

  /** Uniform integer in [lo, hi]. */
  int(lo: number, hi: number): number {
    return lo + (this.next() % (hi - lo + 1))
  }

  chance(p: number): boolean {
    return this.next() / 0x1_0000_0000 < p
  }

  pick<T>(items: ReadonlyArray<T>): T {
    if (items.length === 0) throw new Error("pick from an empty list")
    return items[this.next() % items.length]!
  }

  /** Index chosen with the given non-negative weights. */
  weighted(weights: ReadonlyArray<number>): number {
    const total = weights.reduce((s, w) => s + w, 0)
    let x = (this.next() / 0x1_0000_0000) * total
    for (let i = 0; i < weights.length; i++) {
      x -= weights[i]!
      if (x < 0) return i
    }
    return weights.length - 1
  }
}
