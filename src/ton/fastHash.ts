/**
 * Speeds up @ton/core where decoding and cell building spend their time, by replacing a few of its internal functions
 * at run time: SHA-256 (node:crypto instead of the pure-JS fallback), padded cell data (byte copies instead of one
 * BitBuilder bit at a time), cell hashing of ordinary level-0 cells (one buffer and one hash per cell), CRC32C (a
 * table) and the reading of a bag of cells (byte offsets instead of a BitReader). Invariant: every cell, hash and BOC
 * is bit-identical to what the unpatched library produces: each replacement is checked against the library's own
 * function on sample cells when installed and is left out if it ever disagreed; inputs the fast BOC reader does not
 * expect (legacy magics, malformed bags) go to the library's reader, so errors stay the library's own.
 */
import { beginCell, BitString, Cell, CellType } from "@ton/core"
import crypto from "node:crypto"
import { createRequire } from "node:module"

const require = createRequire(import.meta.url)

interface LevelMaskLike {
  readonly value: number
}
interface Wonders {
  readonly mask: LevelMaskLike
  readonly hashes: Array<Buffer>
  readonly depths: Array<number>
}
type WonderCalculator = (type: CellType, bits: BitString, refs: ReadonlyArray<Cell>) => Wonders

// crypto.hash (Node >= 20.12) skips the Hash object that createHash allocates for every cell.
const oneShot = (crypto as { hash?: (algorithm: string, data: Buffer | string, encoding: "buffer") => Buffer }).hash
const sha256: (data: Buffer | string) => Buffer =
  typeof oneShot === "function"
    ? (data) => oneShot("sha256", data, "buffer")
    : (data) => crypto.createHash("sha256").update(data).digest()

/** Writes `bits` completed to whole bytes with the TVM padding (a 1 bit, then zeros) at `pos`; returns the end. */
export const writePaddedBits = (out: Uint8Array, pos: number, bits: BitString): number => {
  const len = bits.length
  const whole = len >> 3
  if (whole > 0) {
    const aligned = bits.subbuffer(0, whole * 8)
    if (aligned !== null) out.set(aligned, pos)
    else for (let b = 0; b < whole; b++) out[pos + b] = readByte(bits, b * 8, 8)
  }
  pos += whole
  const rest = len & 7
  if (rest > 0) out[pos++] = readByte(bits, whole * 8, rest) | (1 << (7 - rest))
  return pos
}

const readByte = (bits: BitString, offset: number, n: number): number => {
  let v = 0
  for (let i = 0; i < n; i++) if (bits.at(offset + i)) v |= 0x80 >> i
  return v
}

/** Same result as @ton/core's `bitsToPaddedBuffer`. */
export const fastBitsToPaddedBuffer = (bits: BitString): Buffer => {
  const out = Buffer.allocUnsafe((bits.length + 7) >> 3)
  writePaddedBits(out, 0, bits)
  return out
}

// Slicing-by-8 tables: T[k][n] is the CRC of byte n followed by k zero bytes, so eight bytes fold in one step.
const CRC32C_TABLES = (() => {
  const t = new Int32Array(8 * 256)
  for (let n = 0; n < 256; n++) {
    let c = n
    for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ 0x82f63b78 : c >>> 1
    t[n] = c
  }
  for (let n = 0; n < 256; n++) {
    for (let k = 1; k < 8; k++) t[k * 256 + n] = (t[(k - 1) * 256 + n]! >>> 8) ^ t[t[(k - 1) * 256 + n]! & 0xff]!
  }
  return t
})()

/** CRC32C (Castagnoli) of data[start, end), as the unsigned number a bag of cells stores little-endian. */
export const crc32cRange = (data: Uint8Array, start: number, end: number): number => {
  const t = CRC32C_TABLES
  let crc = -1
  let i = start
  for (; i + 8 <= end; i += 8) {
    const lo = crc ^ (data[i]! | (data[i + 1]! << 8) | (data[i + 2]! << 16) | (data[i + 3]! << 24))
    crc =
      t[7 * 256 + (lo & 0xff)]! ^
      t[6 * 256 + ((lo >>> 8) & 0xff)]! ^
      t[5 * 256 + ((lo >>> 16) & 0xff)]! ^
      t[4 * 256 + (lo >>> 24)]! ^
      t[3 * 256 + data[i + 4]!]! ^
      t[2 * 256 + data[i + 5]!]! ^
      t[256 + data[i + 6]!]! ^
      t[data[i + 7]!]!
  }
  for (; i < end; i++) crc = t[(crc ^ data[i]!) & 0xff]! ^ (crc >>> 8)
  return (crc ^ -1) >>> 0
}

/** CRC32C (Castagnoli) of the bytes, as the unsigned number a bag of cells stores little-endian. */
export const crc32c = (data: Uint8Array): number => crc32cRange(data, 0, data.length)

/** Same result as @ton/core's `crc32c` (4 bytes, little-endian). */
export const fastCrc32cBuffer = (data: Uint8Array): Buffer => {
  const out = Buffer.alloc(4)
  out.writeUInt32LE(crc32c(data))
  return out
}

// One scratch buffer for cell representations (at most 2 + 128 data bytes + 4 refs x 34), with a view per length:
// each representation is hashed as soon as it is written, so none outlives the next.
const reprScratch = Buffer.alloc(2 + 128 + 4 * 34)
const reprViews: Array<Buffer | undefined> = []
const reprBuffer = (length: number): Buffer => (reprViews[length] ??= reprScratch.subarray(0, length))

// Cells made while this is above 0 (withLazyCellHashes) get their level-0 hash when it is first asked for.
let lazyHashes = 0

/**
 * `f` with the ordinary level-0 cells it makes (a parsed bag's, typically) hashed only when their hash is first asked
 * for (`cell.hash()`, a parent's hash, a serializer): a reader that never needs most hashes, as the body interpreter
 * reading a body's cells, does not pay for them. Depths, levels and every hash asked for are the eager ones. Without
 * the replaced wonderCalculator (installFastCellHash), cells are hashed as they are made.
 */
export const withLazyCellHashes = <A>(f: () => A): A => {
  lazyHashes++
  try {
    return f()
  } finally {
    lazyHashes--
  }
}

/**
 * The hashes of an ordinary cell with level-0 children, standing for @ton/core's frozen array of them: a length of 1
 * (the cell reads `_hashes[min(length - 1, level)]`, the level-0 hash at every level) and an element 0 computed on
 * first access. The cache is a holder of its own, since the cell freezes this object.
 */
class LazyHashes {
  readonly length = 1
  private readonly memo: { hash: Buffer | undefined } = { hash: undefined }
  constructor(
    private readonly bits: BitString,
    private readonly refs: ReadonlyArray<Cell>
  ) {}

  get 0(): Buffer {
    return (this.memo.hash ??= levelZeroHash(this.bits, this.refs))
  }
}

/** The representation hash of an ordinary cell whose children are all of level 0. */
const levelZeroHash = (bits: BitString, refs: ReadonlyArray<Cell>): Buffer => {
  const n = refs.length
  // the children's hashes first: a lazy child computes its own in the same scratch buffer, and keeps it, so asking
  // again below (once this cell's representation is being written there) only reads it
  for (let i = 0; i < n; i++) refs[i]!.hash(0)
  const len = bits.length
  const dataBytes = (len + 7) >> 3
  const repr = reprBuffer(2 + dataBytes + 34 * n)
  repr[0] = n
  repr[1] = dataBytes + (len >> 3)
  let pos = writePaddedBits(repr, 2, bits)
  for (let i = 0; i < n; i++) {
    const d = refs[i]!.depth(0)
    repr[pos++] = (d >> 8) & 0xff
    repr[pos++] = d & 0xff
  }
  for (let i = 0; i < n; i++) {
    refs[i]!.hash(0).copy(repr, pos)
    pos += 32
  }
  return sha256(repr)
}

/**
 * @ton/core's `wonderCalculator` (levels, depths and hashes of a new cell) with a direct path for the case nearly
 * every cell is in: ordinary, with only level-0 children, so one representation and one hash cover all four levels
 * (inside withLazyCellHashes, that hash is computed when first asked for).
 */
export const makeFastWonderCalculator = (
  slow: WonderCalculator,
  LevelMask: new (mask?: number) => LevelMaskLike
): WonderCalculator => {
  return (type, bits, refs) => {
    if (type !== CellType.Ordinary) return slow(type, bits, refs)
    const n = refs.length
    for (let i = 0; i < n; i++) if (refs[i]!.mask.value !== 0) return slow(type, bits, refs)
    let depth = 0
    for (let i = 0; i < n; i++) {
      const d = refs[i]!.depth(0)
      if (d > depth) depth = d
    }
    if (n > 0) depth++
    if (lazyHashes > 0) {
      const hashes = new LazyHashes(bits, refs) as unknown as Array<Buffer>
      return { mask: new LevelMask(0), hashes, depths: [depth] }
    }
    // One path for both: a child made lazily (a body's cell under a cell built afterwards) hashes itself in the
    // shared scratch buffer, so the children's hashes are taken before this cell's representation is written there.
    const hash = levelZeroHash(bits, refs)
    return { mask: new LevelMask(0), hashes: [hash, hash, hash, hash], depths: [depth, depth, depth, depth] }
  }
}

/**
 * What a cell's constructor makes as arrow functions for every cell (beginParse, hash, depth, level, equals and the
 * inspector's hook), as methods of one prototype under Cell.prototype: `instanceof Cell` holds and every method reads
 * the same fields, but a cell costs no closures (six functions and their context per cell, most of a body cell's
 * garbage, and each cell's own copies of the functions, compiled again and again).
 */
const lightCellPrototype: object = (() => {
  const { Slice } = require("@ton/core/dist/boc/Slice.js") as { Slice: new (reader: unknown, refs: ReadonlyArray<Cell>) => unknown }
  const { BitReader } = require("@ton/core/dist/boc/BitReader.js") as { BitReader: new (bits: BitString) => unknown }
  type Fields = { readonly isExotic: boolean; readonly bits: BitString; readonly refs: ReadonlyArray<Cell>; readonly _hashes: ReadonlyArray<Buffer>; readonly _depths: ReadonlyArray<number>; readonly mask: { readonly level: number } }
  const method = (value: Function) => ({ value, writable: true, enumerable: false, configurable: true })
  return Object.create(Cell.prototype, {
    beginParse: method(function (this: Fields, allowExotic = false) {
      if (this.isExotic && !allowExotic) throw new Error("Exotic cells cannot be parsed")
      return new Slice(new BitReader(this.bits), this.refs)
    }),
    hash: method(function (this: Fields, level = 3) {
      return this._hashes[Math.min(this._hashes.length - 1, level)]
    }),
    depth: method(function (this: Fields, level = 3) {
      return this._depths[Math.min(this._depths.length - 1, level)]
    }),
    level: method(function (this: Fields) {
      return this.mask.level
    }),
    equals: method(function (this: Cell, other: Cell) {
      return this.hash().equals(other.hash())
    }),
    [Symbol.for("nodejs.util.inspect.custom")]: method(function (this: Cell) {
      return this.toString()
    })
  }) as object
})()

// Set by installFastCellHash once light cells are found to read, hash and print as the library's own.
let lightCells = false
let levelZeroMask: LevelMaskLike | undefined

/**
 * An ordinary cell with level-0 children made while hashes are lazy (withLazyCellHashes), as the library's
 * constructor with the replaced wonderCalculator makes it (the same fields, frozen alike), on the light prototype;
 * null when the cell is not one (a child of another level: the library's constructor decides).
 */
const lightCell = (bits: BitString, refs: Array<Cell>): Cell | null => {
  const n = refs.length
  let depth = 0
  for (let i = 0; i < n; i++) {
    const r = refs[i]!
    if (r.mask.value !== 0) return null
    const d = r.depth(0)
    if (d > depth) depth = d
  }
  if (n > 0) depth++
  if (n > 4 || bits.length > 1023) return null
  const cell = Object.create(lightCellPrototype) as {
    -readonly [K in "type" | "bits" | "refs" | "mask" | "_depths" | "_hashes"]: unknown
  }
  const hashes = new LazyHashes(bits, refs)
  const depths = [depth]
  cell.type = CellType.Ordinary
  cell.bits = bits
  cell.refs = refs
  cell.mask = levelZeroMask
  cell._depths = depths
  cell._hashes = hashes
  Object.freeze(cell)
  Object.freeze(refs)
  Object.freeze(bits)
  Object.freeze(depths)
  Object.freeze(hashes)
  return cell as unknown as Cell
}

const GENERIC_MAGIC = 0xb5ee9c72

/**
 * @ton/core's `deserializeBoc` for the generic bag-of-cells format, reading with byte offsets. Anything it does not
 * expect goes to `slow`, the library's reader, so a malformed bag fails with the library's own error.
 */
export const makeFastDeserializeBoc = (slow: (src: Buffer) => Array<Cell>) => {
  return (src: Buffer): Array<Cell> => {
    const cells = readGenericBoc(src)
    return cells === null ? slow(src) : cells
  }
}

const readN = (buf: Uint8Array, at: number, n: number): number => {
  let v = 0
  for (let i = 0; i < n; i++) v = v * 256 + buf[at + i]!
  return v
}

/** The cells of a well-formed generic BOC, or null for anything else (left to the library). */
const readGenericBoc = (src: Buffer): Array<Cell> | null => {
  const end = src.length
  if (end < 6 || src.readUInt32BE(0) !== GENERIC_MAGIC) return null
  const flags = src[4]!
  const hasIdx = (flags & 0x80) !== 0
  const hasCrc = (flags & 0x40) !== 0
  const size = flags & 7
  const offBytes = src[5]!
  if (size < 1 || size > 4 || offBytes < 1 || offBytes > 6) return null
  let pos = 6
  if (pos + 3 * size + offBytes > end) return null
  const count = readN(src, pos, size)
  const rootCount = readN(src, pos + size, size)
  pos += 3 * size
  const totalCellSize = readN(src, pos, offBytes)
  pos += offBytes
  if (pos + rootCount * size > end) return null
  const roots: Array<number> = []
  for (let i = 0; i < rootCount; i++, pos += size) roots.push(readN(src, pos, size))
  if (hasIdx) pos += count * offBytes
  const dataStart = pos
  const dataEnd = dataStart + totalCellSize
  if (dataEnd + (hasCrc ? 4 : 0) > end) return null
  if (hasCrc && crc32c(src.subarray(0, end - 4)) !== src.readUInt32LE(dataEnd)) return null
  const data = src.subarray(dataStart, dataEnd)

  const bitsOf: Array<BitString> = new Array(count)
  const refsOf: Array<Array<number>> = new Array(count)
  const exoticOf: Array<boolean> = new Array(count)
  let p = 0
  for (let i = 0; i < count; i++) {
    if (p + 2 > totalCellSize) return null
    const d1 = data[p]!
    const d2 = data[p + 1]!
    p += 2
    const refCount = d1 & 7
    if ((d1 & 16) !== 0) {
      const m = (d1 >> 5) & 7
      p += (1 + (m & 1) + ((m >> 1) & 1) + ((m >> 2) & 1)) * 34
    }
    const dataBytes = (d2 + 1) >> 1
    if (p + dataBytes + refCount * size > totalCellSize) return null
    if (dataBytes === 0) bitsOf[i] = BitString.EMPTY
    else if ((d2 & 1) === 0) bitsOf[i] = new BitString(data, p * 8, dataBytes * 8)
    else {
      const last = data[p + dataBytes - 1]!
      // a padded last byte without its 1 bit is malformed; the library decides what that means
      if (last === 0) return null
      bitsOf[i] = new BitString(data, p * 8, dataBytes * 8 - 1 - trailingZeros(last))
    }
    p += dataBytes
    const refs: Array<number> = []
    for (let r = 0; r < refCount; r++, p += size) {
      const idx = readN(data, p, size)
      if (idx <= i || idx >= count) return null
      refs.push(idx)
    }
    refsOf[i] = refs
    exoticOf[i] = (d1 & 8) !== 0
  }
  for (const r of roots) if (r >= count) return null

  const built: Array<Cell> = new Array(count)
  for (let i = count - 1; i >= 0; i--) {
    const refIdx = refsOf[i]!
    const refs: Array<Cell> = new Array(refIdx.length)
    for (let r = 0; r < refIdx.length; r++) refs[r] = built[refIdx[r]!]!
    built[i] =
      (lightCells && lazyHashes > 0 && !exoticOf[i] ? lightCell(bitsOf[i]!, refs) : null) ??
      new Cell({ bits: bitsOf[i]!, refs, exotic: exoticOf[i]! })
  }
  return roots.map((r) => built[r]!)
}

const trailingZeros = (byte: number): number => 31 - Math.clz32(byte & -byte)

/** Cells that exercise every replaced path: odd bit lengths, 0-4 refs, shared subtrees, a chain of refs, a library cell. */
export const sampleCells = (): Array<Cell> => {
  const leaf = beginCell().storeUint(0x5a5, 11).endCell()
  const empty = beginCell().endCell()
  const wide = beginCell().storeBuffer(Buffer.alloc(127, 0xa7)).storeUint(5, 7).endCell()
  let chain = beginCell().storeUint(1, 1).endCell()
  for (let i = 0; i < 40; i++) chain = beginCell().storeUint(i, 9).storeRef(chain).endCell()
  const library = new Cell({
    exotic: true,
    bits: beginCell().storeUint(2, 8).storeBuffer(leaf.hash()).endCell().bits
  })
  const shifted = beginCell().storeBit(1).storeBuffer(Buffer.from("bag of cells")).endCell().beginParse()
  shifted.skip(1)
  const unaligned = beginCell().storeBits(shifted.loadBits(shifted.remainingBits)).storeRef(leaf).endCell()
  const root = beginCell()
    .storeUint(7, 3)
    .storeRef(leaf)
    .storeRef(beginCell().storeRef(leaf).storeRef(empty).storeRef(wide).storeRef(chain).endCell())
    .storeRef(library)
    .storeRef(unaligned)
    .endCell()
  return [root, leaf, empty, wide, chain, library, unaligned]
}

const sameCell = (a: Cell, b: Cell): boolean =>
  a.hash().equals(b.hash()) && a.depth() === b.depth() && a.type === b.type && a.bits.equals(b.bits)

/** Two cells alike all the way down: hashes, depths and levels at every level, type, bits, and their refs so. */
const sameTree = (a: Cell, b: Cell): boolean =>
  [0, 1, 2, 3].every((l) => a.hash(l).equals(b.hash(l)) && a.depth(l) === b.depth(l)) &&
  a.level() === b.level() &&
  a.isExotic === b.isExotic &&
  a.type === b.type &&
  a.bits.equals(b.bits) &&
  a.equals(b) &&
  a.beginParse(true).remainingBits === b.bits.length &&
  a.refs.length === b.refs.length &&
  a.refs.every((r, i) => sameTree(r, b.refs[i]!))

interface ReaderLike {
  readonly _bits: BitString
}

/** The bytes under a BitString and its bit offset in them, or null if the library's layout is not the one known. */
const rawBits = (bits: BitString): { data: Uint8Array; base: number } | null => {
  const raw = bits as unknown as { _data?: unknown; _offset?: unknown }
  return raw._data instanceof Uint8Array && typeof raw._offset === "number"
    ? { data: raw._data, base: raw._offset }
    : null
}

type PreloadUint = (this: ReaderLike, bits: number, offset: number) => bigint
type PreloadBuffer = (this: ReaderLike, bytes: number, offset: number) => Buffer

/**
 * @ton/core's `BitReader._preloadUint`, reading bits from the underlying bytes and collecting up to 48 of them in a
 * number before each BigInt step (the library adds one BigInt power of two per set bit). Out of range: the library's.
 */
export const makeFastPreloadUint = (slow: PreloadUint): PreloadUint =>
  function (bits, offset) {
    const src = this._bits
    const raw = rawBits(src)
    if (raw === null || offset < 0 || bits <= 0 || offset + bits > src.length) return slow.call(this, bits, offset)
    const { data } = raw
    let p = raw.base + offset
    let res = 0n
    let v = 0
    let n = 0
    for (let i = 0; i < bits; i++, p++) {
      v = v * 2 + ((data[p >> 3]! >> (7 - (p & 7))) & 1)
      if (++n === 48) {
        res = (res << 48n) | BigInt(v)
        v = 0
        n = 0
      }
    }
    return n === 0 ? res : (res << BigInt(n)) | BigInt(v)
  }

/**
 * @ton/core's `BitReader._preloadBuffer`: a view when byte-aligned (as the library), otherwise bytes shifted out of
 * the underlying buffer rather than one `_preloadUint(8)` per byte.
 */
export const makeFastPreloadBuffer = (slow: PreloadBuffer): PreloadBuffer =>
  function (bytes, offset) {
    const src = this._bits
    // throws the library's out-of-range errors, and is the library's own fast path
    const aligned = src.subbuffer(offset, bytes * 8)
    if (aligned !== null) return aligned
    const raw = rawBits(src)
    if (raw === null) return slow.call(this, bytes, offset)
    const { data } = raw
    const start = raw.base + offset
    const shift = start & 7
    const out = Buffer.alloc(bytes)
    let q = start >> 3
    for (let i = 0; i < bytes; i++, q++) out[i] = ((data[q]! << shift) | (data[q + 1]! >> (8 - shift))) & 0xff
    return out
  }

/** Marks a replaced library function with the one it replaced (tests compare the two; installing twice is a no-op). */
export const LIBRARY_ORIGINAL = Symbol.for("ton-exporter.fastHash.libraryOriginal")

type AnyFunction = (...args: Array<any>) => any

/** Every library function installFastCellHash may replace, as holder object and property name. */
export const replaceableFunctions = (): Array<{ readonly holder: Record<string, unknown>; readonly name: string }> => [
  { holder: require("@ton/crypto/dist/primitives/sha256.js"), name: "sha256_sync" },
  { holder: require("@ton/core/dist/boc/utils/paddedBits.js"), name: "bitsToPaddedBuffer" },
  { holder: require("@ton/core/dist/utils/crc32c.js"), name: "crc32c" },
  { holder: require("@ton/core/dist/boc/cell/wonderCalculator.js"), name: "wonderCalculator" },
  { holder: require("@ton/core/dist/boc/cell/serialization.js"), name: "deserializeBoc" },
  { holder: require("@ton/core/dist/boc/BitReader.js").BitReader.prototype, name: "_preloadUint" },
  { holder: require("@ton/core/dist/boc/BitReader.js").BitReader.prototype, name: "_preloadBuffer" }
]

/** Replaces holder[name] by make(original) if the two agree on the samples; a different library layout only costs speed. */
const replace = <F extends AnyFunction>(
  holder: () => Record<string, unknown>,
  name: string,
  make: (slow: F) => F,
  agrees: (slow: F, fast: F) => boolean
): void => {
  try {
    const target = holder()
    const slow = target[name]
    if (typeof slow !== "function" || LIBRARY_ORIGINAL in slow) return
    const fast = make(slow as F)
    if (agrees(slow as F, fast)) target[name] = Object.assign(fast, { [LIBRARY_ORIGINAL]: slow })
  } catch {
    // keep the library's implementation
  }
}

const sameWonders = (a: Wonders, b: Wonders): boolean =>
  a.mask.value === b.mask.value &&
  a.hashes.length === b.hashes.length &&
  a.hashes.every((h, i) => h.equals(b.hashes[i]!)) &&
  a.depths.length === b.depths.length &&
  a.depths.every((d, i) => d === b.depths[i])

let installed = false

export const installFastCellHash = (): void => {
  if (installed) return
  installed = true
  const samples = sampleCells()
  const { BitReader } = require("@ton/core/dist/boc/BitReader.js") as {
    BitReader: new (bits: BitString) => ReaderLike
  }
  const lib = replaceableFunctions
  const holder = (name: string) => () => lib().find((f) => f.name === name)!.holder
  replace<(source: Buffer | string) => Buffer>(
    holder("sha256_sync"),
    "sha256_sync",
    () => (source) => sha256(source),
    (slow, fast) => ["ton", Buffer.alloc(200, 7)].every((x) => fast(x).equals(slow(x)))
  )
  replace<(bits: BitString) => Buffer>(
    holder("bitsToPaddedBuffer"),
    "bitsToPaddedBuffer",
    () => fastBitsToPaddedBuffer,
    (slow, fast) =>
      samples.every((c) => {
        const s = c.beginParse(true)
        const parts = [c.bits, s.loadBits(Math.min(5, s.remainingBits)), s.loadBits(s.remainingBits)]
        return parts.every((bits) => fast(bits).equals(slow(bits)))
      })
  )
  replace<(source: Buffer) => Buffer>(
    holder("crc32c"),
    "crc32c",
    () => fastCrc32cBuffer,
    (slow, fast) =>
      [Buffer.alloc(0), Buffer.from("123456789"), samples[0]!.toBoc()].every((b) => fast(b).equals(slow(b)))
  )
  replace<WonderCalculator>(
    holder("wonderCalculator"),
    "wonderCalculator",
    (slow) => {
      const { LevelMask } = require("@ton/core/dist/boc/cell/LevelMask.js")
      return makeFastWonderCalculator(slow, LevelMask)
    },
    (slow, fast) => samples.every((c) => sameWonders(slow(c.type, c.bits, c.refs), fast(c.type, c.bits, c.refs)))
  )
  replace<(src: Buffer) => Array<Cell>>(
    holder("deserializeBoc"),
    "deserializeBoc",
    makeFastDeserializeBoc,
    (slow, fast) =>
      samples.every((c) =>
        [c.toBoc(), c.toBoc({ idx: true, crc32: false })].every((boc) => {
          const a = slow(boc)
          const b = fast(boc)
          return a.length === b.length && a.every((cell, i) => sameCell(cell, b[i]!))
        })
      )
  )
  // light cells, where the two replacements they stand for are in: each sample's bag read lazily, as light cells
  // wherever they apply, against the library's cells, over the whole tree (hashes, depths, levels, bits, refs, BOCs)
  const deserialize = lib().find((f) => f.name === "deserializeBoc")!.holder.deserializeBoc as Function
  const wonders = lib().find((f) => f.name === "wonderCalculator")!.holder.wonderCalculator as Function
  if (LIBRARY_ORIGINAL in deserialize && LIBRARY_ORIGINAL in wonders) {
    const { LevelMask } = require("@ton/core/dist/boc/cell/LevelMask.js") as { LevelMask: new (m: number) => LevelMaskLike }
    levelZeroMask = Object.freeze(new LevelMask(0))
    lightCells = true
    try {
      lightCells = samples.every((c) => {
        const [light] = withLazyCellHashes(() => Cell.fromBoc(c.toBoc()))
        return light !== undefined && sameTree(light, c) && light.toBoc().equals(c.toBoc())
      })
    } catch {
      lightCells = false
    }
  }
  // every bit length and offset over a few cells whose data starts at different bit offsets of their buffers
  const readers = samples.flatMap((c) => {
    const s = c.beginParse(true)
    return [new BitReader(c.bits), new BitReader(s.skip(Math.min(3, s.remainingBits)).loadBits(s.remainingBits))]
  })
  replace<PreloadUint>(holder("_preloadUint"), "_preloadUint", makeFastPreloadUint, (slow, fast) =>
    readers.every((r) => {
      for (let offset = 0; offset < Math.min(r._bits.length, 9); offset++) {
        for (const bits of [0, 1, 2, 7, 8, 9, 31, 32, 33, 47, 48, 49, 63, 64, 65, 96, 256, 257, 267]) {
          if (offset + bits > r._bits.length) continue
          if (slow.call(r, bits, offset) !== fast.call(r, bits, offset)) return false
        }
      }
      return true
    })
  )
  replace<PreloadBuffer>(holder("_preloadBuffer"), "_preloadBuffer", makeFastPreloadBuffer, (slow, fast) =>
    readers.every((r) => {
      for (let offset = 0; offset < Math.min(r._bits.length, 9); offset++) {
        for (const bytes of [0, 1, 2, 4, 8, 32, 33]) {
          if (offset + bytes * 8 > r._bits.length) continue
          if (!slow.call(r, bytes, offset).equals(fast.call(r, bytes, offset))) return false
        }
      }
      return true
    })
  )
}
