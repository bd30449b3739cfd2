/**
 * The node's bag-of-cells writer (crypto/vm/boc.cpp, mode WithCRC32C) over a CellStore subtree: the same import,
 * weighting and three-pass `revisit` ordering as src/ton/boc.ts's serializeBoc, on cell indices instead of Cells,
 * in flat scratch arrays reused call after call and written straight into one scratch buffer (no object per cell).
 * The node deduplicates cells by hash; here a store index stands for its hash, which holds because the store refuses
 * a BOC with two cells of one hash (CellStore.hashAll), and a cut-out cell is never in its own subtree.
 * Invariant: for any subtree, the bytes equal serializeBoc of the @ton/core cell with the same content.
 */
import { crc32cRange } from "../fastHash.js"
import type { CellStore } from "./cells.js"

const MAX_CELL_WHS = 64

// Per imported cell (import index, children first): its store index, children (import indices), weight, position.
let cellOf = new Int32Array(256)
let refsOf = new Int32Array(256 * 4)
let nRefsOf = new Uint8Array(256)
let wt = new Int32Array(256)
let newIdx = new Int32Array(256)
let order = new Int32Array(256)
// Store index -> import index, valid where `stampOf` holds the current call's stamp.
let importOf = new Int32Array(256)
let stampOf = new Int32Array(256)
let stamp = 0
let count = 0
let allocated = 0
let out = Buffer.allocUnsafe(1 << 16)

const ensureStore = (n: number): void => {
  if (n <= importOf.length) return
  const cap = Math.max(n, importOf.length * 2)
  const imp = new Int32Array(cap)
  imp.set(importOf)
  importOf = imp
  const st = new Int32Array(cap)
  st.set(stampOf)
  stampOf = st
}

const ensureImport = (n: number): void => {
  if (n <= cellOf.length) return
  const cap = Math.max(n, cellOf.length * 2)
  const grow = <T extends Int32Array | Uint8Array>(old: T, make: (k: number) => T, k: number): T => {
    const next = make(cap * k)
    next.set(old)
    return next
  }
  cellOf = grow(cellOf, (k) => new Int32Array(k), 1)
  refsOf = grow(refsOf, (k) => new Int32Array(k), 4)
  nRefsOf = grow(nRefsOf, (k) => new Uint8Array(k), 1)
  wt = grow(wt, (k) => new Int32Array(k), 1)
  newIdx = grow(newIdx, (k) => new Int32Array(k), 1)
  order = grow(order, (k) => new Int32Array(k), 1)
}

/** Imports cell c and its subtree depth-first, children first, each cell once; returns c's import index. */
const importCell = (store: CellStore, c: number): number => {
  if (stampOf[c] === stamp) return importOf[c]!
  const n = store.refCount[c]!
  const refs = store.refs
  let sum = 1
  // The children's import indices are known only after their import: kept on the stack of this call.
  let r0 = 0
  let r1 = 0
  let r2 = 0
  let r3 = 0
  if (n > 0) sum += wt[(r0 = importCell(store, refs[c * 4]!))]!
  if (n > 1) sum += wt[(r1 = importCell(store, refs[c * 4 + 1]!))]!
  if (n > 2) sum += wt[(r2 = importCell(store, refs[c * 4 + 2]!))]!
  if (n > 3) sum += wt[(r3 = importCell(store, refs[c * 4 + 3]!))]!
  const idx = count++
  if (idx >= cellOf.length) ensureImport(idx + 1)
  cellOf[idx] = c
  nRefsOf[idx] = n
  refsOf[idx * 4] = r0
  refsOf[idx * 4 + 1] = r1
  refsOf[idx * 4 + 2] = r2
  refsOf[idx * 4 + 3] = r3
  wt[idx] = sum < 0xff ? sum : 0xff
  newIdx[idx] = -1
  stampOf[c] = stamp
  importOf[c] = idx
  return idx
}

// newIdx: -1 untouched, -2 previsited, -3 visited, >= 0 allocated
const revisit = (idx: number, force: number): void => {
  if (newIdx[idx]! >= 0) return
  const s = nRefsOf[idx]!
  const at = idx * 4
  if (force === 0) {
    if (newIdx[idx] !== -1) return
    for (let j = s - 1; j >= 0; --j) {
      const r = refsOf[at + j]!
      revisit(r, wt[r] === 0 ? 1 : 0)
    }
    newIdx[idx] = -2
    return
  }
  if (force === 2) {
    newIdx[idx] = allocated
    order[allocated++] = idx
    return
  }
  if (newIdx[idx] === -3) return
  if (wt[idx] === 0) revisit(idx, 0)
  for (let j = s - 1; j >= 0; --j) revisit(refsOf[at + j]!, 1)
  for (let j = s - 1; j >= 0; --j) revisit(refsOf[at + j]!, 2)
  newIdx[idx] = -3
}

/** Serializes the subtree under cell `root` of `store` as a single-root BOC with CRC32C, as standard base64. */
export const serializeSubtreeBase64 = (store: CellStore, root: number): string => {
  const end = serializeInto(store, root)
  return out.toString("base64", 0, end)
}

/** The same bag as bytes (a copy). */
export const serializeSubtree = (store: CellStore, root: number): Buffer => {
  const end = serializeInto(store, root)
  return Buffer.from(out.subarray(0, end))
}

/** Writes the bag of the subtree under `root` at the start of `out`; returns its length. */
const serializeInto = (store: CellStore, root: number): number => {
  if (store.refCount[root] === 0) return serializeLeaf(store, root)
  ensureStore(store.count)
  if (++stamp === 0x7fffffff) {
    stampOf.fill(0)
    stamp = 1
  }
  count = 0
  const rootIdx = importCell(store, root)

  for (let i = count - 1; i >= 0; --i) {
    const s = nRefsOf[i]!
    const at = i * 4
    let c = s
    let sum = MAX_CELL_WHS - 1
    let mask = 0
    for (let j = 0; j < s; ++j) {
      const limit = Math.floor((MAX_CELL_WHS - 1 + j) / s)
      const w = wt[refsOf[at + j]!]!
      if (w <= limit) {
        sum -= w
        --c
        mask |= 1 << j
      }
    }
    if (c > 0) {
      for (let j = 0; j < s; ++j) {
        if ((mask & (1 << j)) === 0) {
          const limit = Math.floor(sum++ / c)
          const r = refsOf[at + j]!
          if (wt[r]! > limit) wt[r] = limit
        }
      }
    }
  }
  let totalRefs = 0
  let dataBytes = 0
  const bits = store.bits
  for (let i = 0; i < count; ++i) {
    const s = nRefsOf[i]!
    let sum = 1
    for (let j = 0; j < s; ++j) sum += wt[refsOf[i * 4 + j]!]!
    wt[i] = sum <= wt[i]! ? sum : 0
    totalRefs += s
    dataBytes += 2 + ((bits[cellOf[i]!]! + 7) >> 3)
  }

  allocated = 0
  revisit(rootIdx, 0)
  revisit(rootIdx, 1)
  revisit(rootIdx, 2)

  let refByteSize = 0
  while (count >= 2 ** (refByteSize * 8)) refByteSize++
  const cellsSize = dataBytes + totalRefs * refByteSize
  let offsetByteSize = 0
  while (cellsSize >= 2 ** (offsetByteSize * 8)) offsetByteSize++

  const total = 6 + 3 * refByteSize + offsetByteSize + refByteSize + cellsSize + 4
  if (total > out.length) out = Buffer.allocUnsafe(Math.max(total, out.length * 2))
  const o = out
  let pos = writeHeader(o, refByteSize, offsetByteSize, count, cellsSize, count - 1 - newIdx[rootIdx]!)
  const last = count - 1
  for (let i = last; i >= 0; --i) {
    const idx = order[i]!
    pos = writeCell(store, cellOf[idx]!, o, pos)
    const s = nRefsOf[idx]!
    for (let j = 0; j < s; j++) {
      const v = last - newIdx[refsOf[idx * 4 + j]!]!
      for (let k = refByteSize - 1; k >= 0; k--) o[pos + k] = (v >> (8 * (refByteSize - 1 - k))) & 0xff
      pos += refByteSize
    }
  }
  writeCrc(o, pos)
  return pos + 4
}

/** A cell without refs is the whole bag: one cell, root 0 (what the general walk yields for it). */
const serializeLeaf = (store: CellStore, c: number): number => {
  const cellsSize = 2 + ((store.bits[c]! + 7) >> 3)
  const offsetByteSize = cellsSize < 256 ? 1 : 2
  const o = out
  let pos = writeHeader(o, 1, offsetByteSize, 1, cellsSize, 0)
  pos = writeCell(store, c, o, pos)
  writeCrc(o, pos)
  return pos + 4
}

const writeCrc = (o: Buffer, pos: number): void => {
  const crc = crc32cRange(o, 0, pos)
  o[pos] = crc & 0xff
  o[pos + 1] = (crc >>> 8) & 0xff
  o[pos + 2] = (crc >>> 16) & 0xff
  o[pos + 3] = crc >>> 24
}

/** Big-endian `n`-byte unsigned integer (n <= 4, v < 2^32) at `pos`; returns the end. */
const writeN = (o: Buffer, v: number, pos: number, n: number): number => {
  for (let k = n - 1; k >= 0; k--) {
    o[pos + k] = v & 0xff
    v = Math.floor(v / 256)
  }
  return pos + n
}

const writeHeader = (
  o: Buffer,
  refByteSize: number,
  offsetByteSize: number,
  count: number,
  cellsSize: number,
  rootPos: number
): number => {
  o[0] = 0xb5
  o[1] = 0xee
  o[2] = 0x9c
  o[3] = 0x72
  o[4] = 0x40 | refByteSize
  o[5] = offsetByteSize
  let pos = writeN(o, count, 6, refByteSize)
  pos = writeN(o, 1, pos, refByteSize)
  pos = writeN(o, 0, pos, refByteSize)
  pos = writeN(o, cellsSize, pos, offsetByteSize)
  return writeN(o, rootPos, pos, refByteSize)
}

/** d1 (refs, exotic flag; level 0), d2 and the padded data: the bytes the store already keeps for the cell. */
const writeCell = (store: CellStore, c: number, o: Buffer, pos: number): number => {
  const src = store.src[c]!
  const off = store.off[c]!
  const bytes = (store.bits[c]! + 7) >> 3
  o[pos] = store.refCount[c]! + (store.exotic[c] === 1 ? 8 : 0)
  o[pos + 1] = src[off + 1]!
  const from = off + 2
  const at = pos + 2
  for (let k = 0; k < bytes; k++) o[at + k] = src[from + k]!
  return at + bytes
}
