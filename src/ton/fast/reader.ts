/**
 * A TL-B cursor over one cell of a CellStore: bits and refs read in order, numbers as JS numbers or decimal strings,
 * 256-bit fields as base64 or hex without a bigint. One cursor is reused cell after cell (open), so reading a
 * transaction allocates no object per cell. Invariant: reading past a cell's bits or refs, or opening an exotic cell,
 * throws OutsideFastPath (the reference decoder then reports the error in its own words).
 */
import { outside, type CellStore } from "./cells.js"

// Upper-case hex digits of each byte value (two character codes), and the buffer raw addresses are written in.
const HEX_PAIRS = (() => {
  const digits = "0123456789ABCDEF"
  const t = new Uint8Array(512)
  for (let b = 0; b < 256; b++) {
    t[2 * b] = digits.charCodeAt(b >> 4)
    t[2 * b + 1] = digits.charCodeAt(b & 15)
  }
  return t
})()
const rawOut = Buffer.alloc(4 + 1 + 64)

/**
 * "<workchain>:<64 upper-case hex digits>" of the 32 bytes at `at` (what src/ton/address.ts's rawFromHash gives),
 * written into one buffer and read out as one flat string rather than concatenated digit by digit.
 */
export const rawAddress = (workchain: number, bytes: Uint8Array, at: number): string => {
  // A workchain id is an int8 in a message address and an int32 in a block id: wide or odd ones take the long way.
  if (!(workchain >= -999 && workchain <= 999) || !Number.isInteger(workchain)) {
    return `${workchain}:${rawAddress(0, bytes, at).slice(2)}`
  }
  const o = rawOut
  let p = 0
  let w = workchain
  if (w < 0) {
    o[p++] = 45
    w = -w
  }
  if (w >= 100) o[p++] = 48 + Math.floor(w / 100)
  if (w >= 10) o[p++] = 48 + (Math.floor(w / 10) % 10)
  o[p++] = 48 + (w % 10)
  o[p++] = 58
  for (let k = 0; k < 32; k++) {
    const b = bytes[at + k]! * 2
    o[p++] = HEX_PAIRS[b]!
    o[p++] = HEX_PAIRS[b + 1]!
  }
  return o.toString("latin1", 0, p)
}
const TWO32 = 4294967296

export class Cursor {
  cell = 0
  private buf: Uint8Array = new Uint8Array(0)
  /** Bit position of the cell's data in `buf`. */
  private base = 0
  /** Bits read so far, and the cell's bit length. */
  pos = 0
  end = 0
  refPos = 0
  private refEnd = 0
  private readonly tmp = Buffer.alloc(32)

  constructor(readonly store: CellStore) {}

  /** Points the cursor at cell `c` (an ordinary cell; exotic ones are not read as structures). */
  open(c: number): this {
    const s = this.store
    const kind = s.exotic[c]!
    if (kind === 1 || kind === 2) outside("exotic cell read as a structure")
    this.cell = c
    this.buf = s.src[c]!
    this.base = (s.off[c]! + 2) * 8
    this.pos = 0
    this.end = s.bits[c]!
    this.refPos = 0
    this.refEnd = s.refCount[c]!
    return this
  }

  get remainingBits(): number {
    return this.end - this.pos
  }

  get remainingRefs(): number {
    return this.refEnd - this.refPos
  }

  private need(n: number): number {
    const at = this.pos
    if (at + n > this.end) outside("read past the end of a cell")
    this.pos = at + n
    return this.base + at
  }

  bit(): boolean {
    const p = this.need(1)
    return ((this.buf[p >> 3]! >> (7 - (p & 7))) & 1) === 1
  }

  /** Unsigned integer of up to 32 bits. */
  uint(n: number): number {
    if (n === 0) return 0
    return readUint(this.buf, this.need(n), n)
  }

  /** Signed integer of up to 32 bits. */
  int(n: number): number {
    const v = this.uint(n)
    return (v << (32 - n)) >> (32 - n)
  }

  /** Unsigned integer of `n` bits (any width) as a decimal string. */
  uintString(n: number): string {
    if (n <= 32) return String(this.uint(n))
    if (n <= 64) {
      const hi = this.uint(n - 32)
      const lo = this.uint(32)
      // Exact as a double below 2^53; wider values go through a bigint.
      return hi < 0x200000 ? String(hi * TWO32 + lo) : ((BigInt(hi) << 32n) | BigInt(lo)).toString()
    }
    let v = 0n
    let left = n
    while (left > 0) {
      const k = left >= 32 ? 32 : left
      v = (v << BigInt(k)) | BigInt(this.uint(k))
      left -= k
    }
    return v.toString()
  }

  /** VarUInteger with a `lenBits`-bit byte count (coins: 4), as a decimal string. */
  varUint(lenBits: number): string {
    return this.uintString(this.uint(lenBits) * 8)
  }

  skip(n: number): void {
    this.need(n)
  }

  ref(): number {
    if (this.refPos >= this.refEnd) outside("no more references")
    return this.store.refs[this.cell * 4 + this.refPos++]!
  }

  /** 32 bytes copied into a scratch buffer (valid until the next call). */
  private bytes32(): Buffer {
    const p = this.need(256)
    const shift = p & 7
    let byte = p >> 3
    const b = this.buf
    const t = this.tmp
    if (shift === 0) for (let k = 0; k < 32; k++) t[k] = b[byte + k]!
    else for (let k = 0; k < 32; k++, byte++) t[k] = ((b[byte]! << shift) | (b[byte + 1]! >> (8 - shift))) & 0xff
    return t
  }

  /** 256 bits as standard base64 (a hash field). */
  hash256(): string {
    return this.bytes32().toString("base64")
  }

  /** 256 bits as a raw address "<workchain>:<upper-case hex>". */
  rawAddress(workchain: number): string {
    return rawAddress(workchain, this.bytes32(), 0)
  }

  /** 256 bits written into `out` at `at` (for addresses rewritten by an anycast prefix). */
  copy256(out: Uint8Array, at: number): void {
    out.set(this.bytes32(), at)
  }
}

/** Big-endian unsigned integer of n <= 32 bits at bit position p. */
export const readUint = (buf: Uint8Array, p: number, n: number): number => {
  let byte = p >> 3
  const skip = p & 7
  // First byte, masked to the bits after `skip`.
  let v = buf[byte++]! & (0xff >> skip)
  let have = 8 - skip
  while (have < n) {
    v = v * 256 + buf[byte++]!
    have += 8
  }
  // Up to 31 bits gathered: a shift; wider (a 32-bit field off a byte boundary) goes through a double.
  return have <= 31 ? v >>> (have - n) : Math.floor(v / POW2[have - n]!)
}

const POW2 = Float64Array.from({ length: 8 }, (_, k) => 2 ** k)
