/**
 * A bag of cells read straight from its bytes into flat typed arrays (no Cell object per cell), with cell hashes and
 * depths computed over the bytes the BOC already holds (SHA-256 in WebAssembly, or the JS reference where it is
 * unavailable; no allocation per cell), and room for the few cells a decoder cuts out of others.
 * Invariant: it accepts only the plain form the TON node writes (one root, level-0 cells, library cells as the only
 * exotic ones, exact length, valid CRC32C) and throws OutsideFastPath for anything else, so the caller can hand such
 * input to the reference decoder; every hash it computes equals @ton/core's representation hash of the same cell.
 */
import { crc32cRange } from "../fastHash.js"
import { sha256Into, sha256Scratch } from "./sha256.js"
import { makeSha256Batch, type Sha256Batch } from "./sha256Wasm.js"

/** Which SHA-256 hashes the cells: the WebAssembly one (where it loads) or the JS reference. */
export type CellHasher = "wasm" | "js"

/** Input the fast reader does not take on: the caller decodes it with the reference path instead. */
export class OutsideFastPath extends Error {
  constructor(readonly why: string) {
    super(why)
  }
}

export const outside = (why: string): never => {
  throw new OutsideFastPath(why)
}

const MAGIC = 0xb5ee9c72

/**
 * The cells of one transaction BOC. Cell i's descriptor bytes (d1, d2) and padded data live in `src[i]` at `off[i]`:
 * for cells of the BOC that is the BOC buffer itself, for cut-out cells a small buffer of their own. Refs point to
 * higher indices for BOC cells (the BOC's own order), so hashing from the last cell to the first sees children first.
 */
export class CellStore {
  count = 0
  bocCells = 0
  root = 0
  private cap = 0
  src: Array<Uint8Array> = []
  off = new Int32Array(0)
  bits = new Int32Array(0)
  refCount = new Uint8Array(0)
  refs = new Int32Array(0)
  exotic = new Uint8Array(0)
  depth = new Int32Array(0)
  hashes = Buffer.alloc(0)
  // Instantiated on the first cell hashed (null until then): a store that only reads cells (a header scan, a text
  // comment) never makes one.
  private wasm: Sha256Batch | undefined | null

  constructor(hasher: CellHasher = "wasm") {
    this.wasm = hasher === "wasm" ? null : undefined
  }

  private hasherBatch(): Sha256Batch | undefined {
    if (this.wasm === null) this.wasm = makeSha256Batch()
    return this.wasm
  }

  /** The hasher in use: "js" where WebAssembly is unavailable. */
  get hasher(): CellHasher {
    return this.hasherBatch() === undefined ? "js" : "wasm"
  }

  private ensure(n: number): void {
    if (n <= this.cap) return
    const cap = Math.max(n, this.cap * 2, 64)
    const grow = <T extends Int32Array | Uint8Array>(old: T, make: (k: number) => T, k: number): T => {
      const next = make(cap * k)
      next.set(old.subarray(0, this.count * k))
      return next
    }
    this.off = grow(this.off, (k) => new Int32Array(k), 1)
    this.bits = grow(this.bits, (k) => new Int32Array(k), 1)
    this.refCount = grow(this.refCount, (k) => new Uint8Array(k), 1)
    this.refs = grow(this.refs, (k) => new Int32Array(k), 4)
    this.exotic = grow(this.exotic, (k) => new Uint8Array(k), 1)
    this.depth = grow(this.depth, (k) => new Int32Array(k), 1)
    const hashes = Buffer.allocUnsafe(cap * 32)
    this.hashes.copy(hashes, 0, 0, this.count * 32)
    this.hashes = hashes
    this.cap = cap
  }

  /**
   * Reads the cells of a BOC (no hashing yet); throws OutsideFastPath for anything but the node's plain form.
   * `anyCells` also takes exotic cells of every kind and level (a whole block: its state update is a Merkle update
   * over pruned branches), cells written with their hashes (kept as if written without) and skips the CRC, for a
   * reader of bytes already checked by their sha256. `exotic` then marks an exotic cell other than a library 2
   * (Cursor.open refuses to read it) and an ordinary cell with level bits 3 (readable); hashSubtrees refuses both.
   */
  parse(buf: Uint8Array, anyCells = false): void {
    this.count = 0
    const len = buf.length
    if (len < 6) outside("short")
    if (((buf[0]! << 24) | (buf[1]! << 16) | (buf[2]! << 8) | buf[3]!) >>> 0 !== MAGIC) outside("magic")
    const flags = buf[4]!
    const size = flags & 7
    const offSize = buf[5]!
    // cache bits (0x20) only mark index entries, which a reader that scans every cell never uses
    if ((flags & (anyCells ? 0x18 : 0x38)) !== 0 || size < 1 || size > 4 || offSize < 1 || offSize > 8) outside("flags")
    const hasIdx = (flags & 0x80) !== 0
    const hasCrc = (flags & 0x40) !== 0
    let p = 6
    const fixed = 6 + 4 * size + offSize
    if (len < fixed) outside("header")
    const cells = readN(buf, p, size)
    const roots = readN(buf, p + size, size)
    p += 3 * size
    const totalCellsSize = readN(buf, p, offSize)
    p += offSize
    if (roots !== 1) outside("roots")
    const root = readN(buf, p, size)
    p += size
    if (hasIdx) p += cells * offSize
    const dataStart = p
    const dataEnd = p + totalCellsSize
    if (dataEnd + (hasCrc ? 4 : 0) !== len) outside("length")
    if (hasCrc && !anyCells) {
      const stored = (buf[len - 4]! | (buf[len - 3]! << 8) | (buf[len - 2]! << 16) | (buf[len - 1]! << 24)) >>> 0
      if (crc32cRange(buf, 0, len - 4) !== stored) outside("crc")
    }
    if (root >= cells || cells * 2 > totalCellsSize) outside("counts")
    this.ensure(cells + 16)
    const { off, bits, refCount, refs, exotic, src } = this
    p = dataStart
    for (let i = 0; i < cells; i++) {
      if (p + 2 > dataEnd) outside("cell data")
      const d1 = buf[p]!
      const d2 = buf[p + 1]!
      const nRefs = d1 & 7
      // Level bits, stored hashes and more than four refs are not what the node writes for a transaction.
      if ((anyCells ? 0 : d1 > 15) || nRefs > 4) outside("descriptor")
      // A cell written with its hashes and depths (one of each per level of its mask, and the representation's; the
      // node stores them for the cells that head heavy subtrees) keeps its data after them.
      const stored = (d1 & 16) !== 0 ? hashesOf(d1 >> 5) * 34 : 0
      const bytes = (d2 + 1) >> 1
      const end = p + 2 + stored + bytes
      if (end + nRefs * size > dataEnd) outside("cell data")
      let nBits = bytes * 8
      if ((d2 & 1) !== 0) {
        const last = buf[end - 1]!
        // 0x80 alone would be a whole-byte cell written with an odd d2: not the canonical form the hash is taken
        // over (the node and @ton/core rebuild the cell from its bits), so such a BOC goes to the reference.
        if (last === 0 || last === 0x80) outside("padding")
        nBits -= 1 + ctz8(last)
      }
      if (stored === 0) {
        off[i] = p
        src[i] = buf
      } else {
        // descriptor and data of their own, as the cell would be written without its hashes: hashed, read and
        // written again as any other cell
        const own = new Uint8Array(2 + bytes)
        own[0] = d1 & ~16
        own[1] = d2
        own.set(buf.subarray(p + 2 + stored, end), 2)
        off[i] = 0
        src[i] = own
      }
      bits[i] = nBits
      refCount[i] = nRefs
      let q = end
      for (let r = 0; r < nRefs; r++) {
        const ref = readN(buf, q, size)
        if (ref <= i || ref >= cells) outside("ref order")
        refs[i * 4 + r] = ref
        q += size
      }
      const dataAt = end - bytes
      if (anyCells && (d1 & 8) !== 0) exotic[i] = (d1 & 0xe0) === 0 && nBits === 264 && nRefs === 0 && buf[dataAt] === 2 ? 1 : 2
      else if (anyCells && (d1 & 0xe0) !== 0) exotic[i] = 3
      else if ((d1 & 8) !== 0) {
        // Library cells (state inits of library-backed contracts) are the one exotic kind taken here.
        if (nBits !== 264 || nRefs !== 0 || buf[p + 2] !== 2) outside("exotic cell")
        exotic[i] = 1
      } else exotic[i] = 0
      p = q
    }
    this.count = cells
    this.bocCells = cells
    this.root = root
  }

  /**
   * Hashes every cell of the BOC, children before parents. A BOC holding two cells of one hash (the node writes each
   * cell once) goes to the reference: the serializer takes a cell's index for its hash.
   */
  hashAll(): void {
    for (let i = this.bocCells - 1; i >= 0; i--) this.hashCell(i)
    if (this.hasDuplicateHash()) outside("duplicate cells")
  }

  private mark = new Int32Array(0)
  private markStamp = 0

  /**
   * Hashes every cell under the given roots (a block's transactions, parsed with `anyCells`), each once, children
   * before parents; throws OutsideFastPath when one of them is not a plain cell (exotic 2) or two have one hash.
   */
  hashSubtrees(roots: ArrayLike<number>, n: number): void {
    if (this.mark.length < this.bocCells) {
      this.mark = new Int32Array(Math.max(this.bocCells, this.mark.length * 2))
      this.markStamp = 0
    }
    if (++this.markStamp === 0x7fffffff) {
      this.mark.fill(0)
      this.markStamp = 1
    }
    const { mark, markStamp: stamp, refs, refCount, exotic } = this
    const cells: Array<number> = []
    const stack: Array<number> = []
    for (let r = 0; r < n; r++) {
      const root = roots[r]!
      if (mark[root] === stamp) continue
      mark[root] = stamp
      stack.push(root)
      while (stack.length > 0) {
        const c = stack.pop()!
        if (exotic[c]! >= 2) outside("exotic or higher-level cell in a transaction")
        cells.push(c)
        for (let k = 0; k < refCount[c]!; k++) {
          const child = refs[c * 4 + k]!
          if (mark[child] !== stamp) {
            mark[child] = stamp
            stack.push(child)
          }
        }
      }
    }
    // refs point to higher indices in a BOC: from the highest down, children come first
    cells.sort(descending)
    for (const c of cells) this.hashCell(c)
    if (this.hasDuplicateHash(cells)) outside("duplicate cells")
  }

  // Open addressing by the first 32 bits of the hash: slot -> cell index + 1, valid where `slotStamp` is current.
  private slots = new Int32Array(0)
  private slotStamp = new Int32Array(0)
  private stamp = 0

  private hasDuplicateHash(among?: ReadonlyArray<number>): boolean {
    const n = among === undefined ? this.bocCells : among.length
    if (n < 2) return false
    let size = 64
    while (size < n * 2) size *= 2
    if (this.slots.length < size) {
      this.slots = new Int32Array(size)
      this.slotStamp = new Int32Array(size)
      this.stamp = 0
    }
    if (++this.stamp === 0x7fffffff) {
      this.slotStamp.fill(0)
      this.stamp = 1
    }
    const { slots, slotStamp, stamp, hashes } = this
    const mask = size - 1
    for (let j = 0; j < n; j++) {
      const i = among === undefined ? j : among[j]!
      const h = i * 32
      let s = ((hashes[h]! << 24) | (hashes[h + 1]! << 16) | (hashes[h + 2]! << 8) | hashes[h + 3]!) & mask
      while (slotStamp[s] === stamp) {
        const o = (slots[s]! - 1) * 32
        let k = 0
        while (k < 32 && hashes[o + k] === hashes[h + k]) k++
        if (k === 32) return true
        s = (s + 1) & mask
      }
      slotStamp[s] = stamp
      slots[s] = i + 1
    }
    return false
  }

  /**
   * Representation hash and depth of cell i (level 0): d1 d2 data, then the children's depths and hashes. The
   * message is built where the hasher reads it (the wasm memory, or the JS scratch buffer); a call per cell costs
   * little next to the hashing (the JS<->wasm crossing is tens of ns), so no batching across cells.
   */
  private hashCell(i: number): void {
    const w = this.wasm === null ? this.hasherBatch() : this.wasm
    const o = this.off[i]!
    const src = this.src[i]!
    const head = 2 + ((src[o + 1]! + 1) >> 1)
    const n = this.refCount[i]!
    const len = head + n * 34
    const s = w === undefined ? sha256Scratch() : w.mem
    const base = w === undefined ? 0 : w.message(len)
    for (let k = 0; k < head; k++) s[base + k] = src[o + k]!
    let p = base + head
    const refs = this.refs
    const depths = this.depth
    let depth = 0
    for (let r = 0; r < n; r++) {
      const d = depths[refs[i * 4 + r]!]!
      if (d >= depth) depth = d + 1
      s[p++] = d >> 8
      s[p++] = d & 0xff
    }
    const hashes = this.hashes
    for (let r = 0; r < n; r++) {
      const h = refs[i * 4 + r]! * 32
      for (let k = 0; k < 32; k++) s[p + k] = hashes[h + k]!
      p += 32
    }
    depths[i] = depth
    if (w === undefined) return sha256Into(s, len, hashes, i * 32)
    w.run()
    const at = w.outAt
    const to = i * 32
    for (let k = 0; k < 32; k++) hashes[to + k] = s[at + k]!
  }

  /**
   * Adds an ordinary cell made of `nBits` bits of cell `from` starting at bit `bitStart`, and its refs
   * `refStart`..`refEnd`-1; hashes it at once (its children are already hashed). Returns its index.
   */
  cut(from: number, bitStart: number, nBits: number, refStart: number, refEnd: number): number {
    const data = this.src[from]!
    const base = (this.off[from]! + 2) * 8
    return this.add(data, base + bitStart, nBits, this.refs, from * 4 + refStart, refEnd - refStart)
  }

  /** Adds an ordinary cell from `nBits` bits of `data` at bit `bitPos` and `nRefs` refs listed in `refList`. */
  add(data: Uint8Array, bitPos: number, nBits: number, refList: Int32Array, refAt: number, nRefs: number): number {
    if (nBits > 1023 || nRefs > 4) outside("cut cell too big")
    const i = this.count
    this.ensure(i + 1)
    const bytes = (nBits + 7) >> 3
    const out = new Uint8Array(2 + bytes)
    out[0] = nRefs
    out[1] = (nBits >> 3) + bytes
    copyBits(data, bitPos, nBits, out, 2)
    this.src[i] = out
    this.off[i] = 0
    this.bits[i] = nBits
    this.refCount[i] = nRefs
    this.exotic[i] = 0
    for (let r = 0; r < nRefs; r++) this.refs[i * 4 + r] = refList[refAt + r]!
    this.count = i + 1
    this.hashCell(i)
    return i
  }

  hashB64(i: number): string {
    return this.hashes.toString("base64", i * 32, i * 32 + 32)
  }
}

/** Numbers from the highest down: a function of the module, not a comparator closure made per call (V8 keeps a
 * closure's optimized code only while a closure made at that site lives). */
export const descending = (a: number, b: number): number => b - a

const hashesOf = (levelMask: number): number =>
  1 + (levelMask & 1) + ((levelMask >> 1) & 1) + ((levelMask >> 2) & 1)

const readN = (buf: Uint8Array, at: number, n: number): number => {
  let v = 0
  for (let i = 0; i < n; i++) v = v * 256 + buf[at + i]!
  return v
}

/** Trailing zero bits of a non-zero byte. */
const ctz8 = (b: number): number => 31 - Math.clz32(b & -b)

/** Copies `n` bits starting at bit `from` of `src` to byte `at` of `out`, then the completion tag if not whole. */
export const copyBits = (src: Uint8Array, from: number, n: number, out: Uint8Array, at: number): void => {
  const whole = n >> 3
  const shift = from & 7
  let byte = from >> 3
  if (shift === 0) {
    out.set(src.subarray(byte, byte + whole), at)
    byte += whole
  } else {
    for (let k = 0; k < whole; k++, byte++) out[at + k] = ((src[byte]! << shift) | (src[byte + 1]! >> (8 - shift))) & 0xff
  }
  const rest = n & 7
  if (rest > 0) {
    // The last partial byte: its `rest` bits, a 1, then zeros.
    const hi = shift === 0 ? src[byte]! : ((src[byte]! << shift) | ((src[byte + 1] ?? 0) >> (8 - shift))) & 0xff
    const keep = (0xff << (8 - rest)) & 0xff
    out[at + whole] = (hi & keep) | (0x80 >> rest)
  }
}
