/**
 * The node's bag-of-cells writer (crypto/vm/boc.cpp, mode WithCRC32C) over a CellStore subtree: the same import,
 * weighting and three-pass `revisit` ordering as src/ton/boc.ts's serializeBoc, on cell indices instead of Cells.
 * Invariant: for any subtree, the bytes equal serializeBoc of the @ton/core cell with the same content.
 */
import { crc32c } from "../fastHash.js"
import type { CellStore } from "./cells.js"

const MAX_CELL_WHS = 64

/** Serializes the subtree under cell `root` of `store` as a single-root BOC with CRC32C, in the node's cell order. */
export const serializeSubtree = (store: CellStore, root: number): Buffer => {
  if (store.refCount[root] === 0) return serializeLeaf(store, root)
  // Per imported cell: its store index, its children (import indices), weight and final position.
  const cellOf: Array<number> = []
  const refsOf: Array<Array<number>> = []
  const wt: Array<number> = []
  const newIdx: Array<number> = []
  // Cells are deduplicated by hash, as the node does: the first 48 bits as a number key, confirmed on all 32 bytes.
  const byPrefix = new Map<number, number>()
  let byHash: Map<string, number> | null = null
  const hashes = store.hashes
  const lookup = (c: number): number | undefined => {
    const idx = byPrefix.get(hashes.readUIntBE(c * 32, 6))
    if (idx === undefined || hashes.compare(hashes, cellOf[idx]! * 32, cellOf[idx]! * 32 + 32, c * 32, c * 32 + 32) === 0)
      return idx
    return byHash?.get(hashes.toString("latin1", c * 32, c * 32 + 32))
  }
  const remember = (c: number, idx: number): void => {
    const prefix = hashes.readUIntBE(c * 32, 6)
    if (!byPrefix.has(prefix)) byPrefix.set(prefix, idx)
    else (byHash ??= new Map()).set(hashes.toString("latin1", c * 32, c * 32 + 32), idx)
  }
  const importCell = (c: number): number => {
    const known = lookup(c)
    if (known !== undefined) return known
    const refs: Array<number> = []
    let sum = 1
    const n = store.refCount[c]!
    for (let r = 0; r < n; r++) {
      const idx = importCell(store.refs[c * 4 + r]!)
      refs.push(idx)
      sum += wt[idx]!
    }
    cellOf.push(c)
    refsOf.push(refs)
    wt.push(Math.min(0xff, sum))
    newIdx.push(-1)
    remember(c, cellOf.length - 1)
    return cellOf.length - 1
  }
  const rootIdx = importCell(root)
  const count = cellOf.length

  for (let i = count - 1; i >= 0; --i) {
    const refs = refsOf[i]!
    const s = refs.length
    let c = s
    let sum = MAX_CELL_WHS - 1
    let mask = 0
    for (let j = 0; j < s; ++j) {
      const limit = Math.floor((MAX_CELL_WHS - 1 + j) / s)
      if (wt[refs[j]!]! <= limit) {
        sum -= wt[refs[j]!]!
        --c
        mask |= 1 << j
      }
    }
    if (c > 0) {
      for (let j = 0; j < s; ++j) {
        if ((mask & (1 << j)) === 0) {
          const limit = Math.floor(sum++ / c)
          if (wt[refs[j]!]! > limit) wt[refs[j]!] = limit
        }
      }
    }
  }
  for (let i = 0; i < count; ++i) {
    let sum = 1
    for (const r of refsOf[i]!) sum += wt[r]!
    wt[i] = sum <= wt[i]! ? sum : 0
  }

  const order: Array<number> = []
  // newIdx: -1 untouched, -2 previsited, -3 visited, >= 0 allocated
  const revisit = (idx: number, force: 0 | 1 | 2): void => {
    if (newIdx[idx]! >= 0) return
    const refs = refsOf[idx]!
    if (force === 0) {
      if (newIdx[idx] !== -1) return
      for (let j = refs.length - 1; j >= 0; --j) revisit(refs[j]!, wt[refs[j]!] === 0 ? 1 : 0)
      newIdx[idx] = -2
      return
    }
    if (force === 2) {
      newIdx[idx] = order.length
      order.push(idx)
      return
    }
    if (newIdx[idx] === -3) return
    if (wt[idx] === 0) revisit(idx, 0)
    for (let j = refs.length - 1; j >= 0; --j) revisit(refs[j]!, 1)
    for (let j = refs.length - 1; j >= 0; --j) revisit(refs[j]!, 2)
    newIdx[idx] = -3
  }
  revisit(rootIdx, 0)
  revisit(rootIdx, 1)
  revisit(rootIdx, 2)

  let refByteSize = 0
  while (count >= 2 ** (refByteSize * 8)) refByteSize++
  let totalRefs = 0
  let dataBytes = 0
  for (const idx of order) {
    totalRefs += refsOf[idx]!.length
    dataBytes += 2 + ((store.bits[cellOf[idx]!]! + 7) >> 3)
  }
  const cellsSize = dataBytes + totalRefs * refByteSize
  let offsetByteSize = 0
  while (cellsSize >= 2 ** (offsetByteSize * 8)) offsetByteSize++

  const out = Buffer.allocUnsafe(6 + 3 * refByteSize + offsetByteSize + refByteSize + cellsSize + 4)
  let pos = writeHeader(out, refByteSize, offsetByteSize, count, cellsSize, count - 1 - newIdx[rootIdx]!)
  for (let i = count - 1; i >= 0; --i) {
    const idx = order[i]!
    pos = writeCell(store, cellOf[idx]!, out, pos)
    for (const r of refsOf[idx]!) pos = out.writeUIntBE(count - 1 - newIdx[r]!, pos, refByteSize)
  }
  out.writeUInt32LE(crc32c(out.subarray(0, pos)), pos)
  return out
}

/** A cell without refs is the whole bag: one cell, root 0 (what the general walk yields for it). */
const serializeLeaf = (store: CellStore, c: number): Buffer => {
  const cellsSize = 2 + ((store.bits[c]! + 7) >> 3)
  const offsetByteSize = cellsSize < 256 ? 1 : 2
  const out = Buffer.allocUnsafe(6 + 3 + offsetByteSize + 1 + cellsSize + 4)
  let pos = writeHeader(out, 1, offsetByteSize, 1, cellsSize, 0)
  pos = writeCell(store, c, out, pos)
  out.writeUInt32LE(crc32c(out.subarray(0, pos)), pos)
  return out
}

const writeHeader = (
  out: Buffer,
  refByteSize: number,
  offsetByteSize: number,
  count: number,
  cellsSize: number,
  rootPos: number
): number => {
  out.writeUInt32BE(0xb5ee9c72, 0)
  out[4] = 0x40 | refByteSize
  out[5] = offsetByteSize
  let pos = out.writeUIntBE(count, 6, refByteSize)
  pos = out.writeUIntBE(1, pos, refByteSize)
  pos = out.writeUIntBE(0, pos, refByteSize)
  for (let i = offsetByteSize - 1; i >= 0; --i) out[pos + i] = Math.floor(cellsSize / 2 ** (8 * (offsetByteSize - 1 - i))) & 0xff
  pos += offsetByteSize
  return out.writeUIntBE(rootPos, pos, refByteSize)
}

/** d1 (refs, exotic flag; level 0), d2 and the padded data: the bytes the store already keeps for the cell. */
const writeCell = (store: CellStore, c: number, out: Buffer, pos: number): number => {
  const src = store.src[c]!
  const o = store.off[c]!
  const bytes = (store.bits[c]! + 7) >> 3
  out[pos] = store.refCount[c]! + (store.exotic[c] === 1 ? 8 : 0)
  out[pos + 1] = src[o + 1]!
  out.set(src.subarray(o + 2, o + 2 + bytes), pos + 2)
  return pos + 2 + bytes
}
