/**
 * Text comments in message bodies, read the two ways toncenter's servers read them: tonlib's strict
 * `vm::CellString::load` (v2 `msg.dataText`) and tonutils-go's lenient `LoadStringSnake` (v3 `decoded.comment`).
 * Invariant: both readers work on @ton/core cells and return raw bytes; v3 text is converted like Go's string/JSON.
 */
import { BitBuilder, Cell } from "@ton/core"
import { CellStore, OutsideFastPath } from "./fast/cells.js"

/** tonlib's CellString limit: a snake string spans at most this many cells. */
const MAX_CHAIN_LENGTH = 16

/**
 * tonlib semantics: the bits after `skipBits` in the first cell, then whole cells along a chain of single refs;
 * a cell with two or more refs, a chain longer than 16 cells or a bit length not divisible by 8 is "not a string".
 */
export const loadCellStringStrict = (body: Cell, skipBits: number): Buffer | null => {
  const parts: Array<{ cell: Cell; from: number }> = []
  let total = 0
  let cell = body
  let from = skipBits
  for (let i = 0; ; i++) {
    if (i >= MAX_CHAIN_LENGTH || cell.isExotic) return null
    parts.push({ cell, from })
    total += cell.bits.length - from
    if (cell.refs.length === 0) break
    if (cell.refs.length !== 1) return null
    cell = cell.refs[0]!
    from = 0
  }
  if (total % 8 !== 0) return null
  const bb = new BitBuilder(total)
  for (const p of parts) bb.writeBits(p.cell.bits.substring(p.from, p.cell.bits.length - p.from))
  return bb.buffer()
}

// One store for every call: parsing resets it, and a call never yields before it is done with it.
const store = new CellStore()

/**
 * `loadCellStringStrict(Cell.fromBase64(boc), skipBits)` read straight from the BOC's bytes: no Cell objects and no
 * cell hashes, which the string does not need (building the cells hashed every one of them, most of the cost of a v2
 * text comment). A BOC outside the plain form the fast reader takes, or a first cell shorter than `skipBits`, goes to
 * the reference reader, so its result (or its error) is the library's own.
 */
export const cellStringStrictOfBoc = (boc: string, skipBits: number): Buffer | null => {
  const bytes = Buffer.from(boc, "base64")
  try {
    store.parse(bytes)
  } catch (e) {
    if (e instanceof OutsideFastPath) return loadCellStringStrict(Cell.fromBase64(boc), skipBits)
    throw e
  }
  const { bits, refCount, refs, exotic } = store
  if (bits[store.root]! < skipBits) return loadCellStringStrict(Cell.fromBase64(boc), skipBits)
  const chain: Array<number> = []
  let total = 0
  let cell = store.root
  let from = skipBits
  for (let i = 0; ; i++) {
    if (i >= MAX_CHAIN_LENGTH || exotic[cell] === 1) return null
    chain.push(cell)
    total += bits[cell]! - from
    if (refCount[cell] === 0) break
    if (refCount[cell] !== 1) return null
    cell = refs[cell * 4]!
    from = 0
  }
  if (total % 8 !== 0) return null
  const out = Buffer.alloc(total >> 3)
  let pos = 0
  from = skipBits
  for (const c of chain) {
    const src = store.src[c]!
    const data = store.off[c]! + 2
    const end = bits[c]!
    let b = from
    if ((pos & 7) === 0 && (b & 7) === 0) {
      // byte-aligned on both sides: whole bytes at once
      const whole = (end - b) >> 3
      out.set(src.subarray(data + (b >> 3), data + (b >> 3) + whole), pos >> 3)
      pos += whole * 8
      b += whole * 8
    }
    for (; b < end; b++, pos++) {
      if ((src[data + (b >> 3)]! >> (7 - (b & 7))) & 1) out[pos >> 3] = out[pos >> 3]! | (0x80 >> (pos & 7))
    }
    from = 0
  }
  return out
}

/**
 * tonutils-go semantics: every cell contributes its bits rounded up to whole bytes (padding zeros), following the
 * single ref; more than one ref ends the read with an error, which the indexer turns into an empty comment.
 */
export const loadSnakeLenient = (body: Cell, skipBits: number): Buffer | null => {
  const chunks: Array<Buffer> = []
  let cell: Cell | undefined = body
  let from = skipBits
  while (cell !== undefined) {
    const n = cell.bits.length - from
    const bb = new BitBuilder(Math.ceil(n / 8) * 8)
    bb.writeBits(cell.bits.substring(from, n))
    while (bb.length % 8 !== 0) bb.writeBit(false)
    chunks.push(bb.buffer())
    if (cell.refs.length > 1) return null
    cell = cell.refs[0]
    from = 0
  }
  return Buffer.concat(chunks)
}

/**
 * Bytes to a JS string the way Go's encoding/json prints a Go string: valid UTF-8 sequences decode, and every byte
 * that does not start a valid sequence becomes one U+FFFD (TextDecoder would merge some of them).
 */
export const goString = (bytes: Uint8Array): string => {
  let out = ""
  let i = 0
  const n = bytes.length
  while (i < n) {
    const b0 = bytes[i]!
    if (b0 < 0x80) {
      out += String.fromCharCode(b0)
      i++
      continue
    }
    let need = 0
    let cp = 0
    let min = 0
    if (b0 >= 0xc2 && b0 <= 0xdf) {
      need = 1
      cp = b0 & 0x1f
      min = 0x80
    } else if (b0 >= 0xe0 && b0 <= 0xef) {
      need = 2
      cp = b0 & 0x0f
      min = 0x800
    } else if (b0 >= 0xf0 && b0 <= 0xf4) {
      need = 3
      cp = b0 & 0x07
      min = 0x10000
    } else {
      out += "\ufffd"
      i++
      continue
    }
    let ok = i + need <= n - 1
    if (ok) {
      for (let k = 1; k <= need; k++) {
        const b = bytes[i + k]!
        if ((b & 0xc0) !== 0x80) {
          ok = false
          break
        }
        cp = (cp << 6) | (b & 0x3f)
      }
    }
    if (!ok || cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) {
      out += "\ufffd"
      i++
      continue
    }
    out += String.fromCodePoint(cp)
    i += need + 1
  }
  return out
}
