/**
 * Bags of cells as the TON node writes them (crypto/vm/boc.cpp `BagOfCells`, mode WithCRC32C): toncenter serves
 * BOCs produced by that serializer, so ours must place cells in the same order to be byte-identical.
 * Invariant: serializeBoc(parseBoc(x)) === x for any single-root BOC the node produced; cells come from @ton/core.
 */
import { Cell } from "@ton/core"
import { Either } from "effect"
import { DecodeError } from "./errors.js"
import { crc32c, writePaddedBits } from "./fastHash.js"

export { crc32c }

/** The node's limit on the cumulative weight of a cell's subtree; heavier subtrees are "special" and placed early. */
const MAX_CELL_WHS = 64

interface CellInfo {
  readonly cell: Cell
  readonly refs: Array<number>
  wt: number
  newIdx: number
}

/**
 * Serializes one root cell with CRC32C, no index and no cache bits, in the node's cell order: cells are imported
 * depth-first with hash deduplication, weighted, then allocated by the node's three-pass `revisit` walk.
 */
export const serializeBoc = (root: Cell): Buffer => {
  const list: Array<CellInfo> = []
  // Cells are found by the first 48 bits of their hash (a number key, no string per cell), confirmed on the whole
  // hash; distinct hashes sharing those 48 bits fall back to a map by the whole hash.
  const byPrefix = new Map<number, number>()
  let byHash: Map<string, number> | null = null
  const lookup = (hash: Buffer): number | undefined => {
    const idx = byPrefix.get(hash.readUIntBE(0, 6))
    if (idx === undefined || list[idx]!.cell.hash().equals(hash)) return idx
    return byHash?.get(hash.toString("latin1"))
  }
  const remember = (hash: Buffer, idx: number): void => {
    const prefix = hash.readUIntBE(0, 6)
    if (!byPrefix.has(prefix)) byPrefix.set(prefix, idx)
    else (byHash ??= new Map()).set(hash.toString("latin1"), idx)
  }

  const importCell = (cell: Cell): number => {
    const hash = cell.hash()
    const known = lookup(hash)
    if (known !== undefined) return known
    const refs: Array<number> = []
    let sum = 1
    for (const ref of cell.refs) {
      const idx = importCell(ref)
      refs.push(idx)
      sum += list[idx]!.wt
    }
    list.push({ cell, refs, wt: Math.min(0xff, sum), newIdx: -1 })
    remember(hash, list.length - 1)
    return list.length - 1
  }
  const rootIdx = importCell(root)
  const count = list.length

  // Cap children weights top-down, then recompute bottom-up; a zero weight marks a cell whose subtree is too heavy.
  for (let i = count - 1; i >= 0; --i) {
    const info = list[i]!
    const s = info.refs.length
    let c = s
    let sum = MAX_CELL_WHS - 1
    let mask = 0
    for (let j = 0; j < s; ++j) {
      const child = list[info.refs[j]!]!
      const limit = Math.floor((MAX_CELL_WHS - 1 + j) / s)
      if (child.wt <= limit) {
        sum -= child.wt
        --c
        mask |= 1 << j
      }
    }
    if (c > 0) {
      for (let j = 0; j < s; ++j) {
        if ((mask & (1 << j)) === 0) {
          const child = list[info.refs[j]!]!
          const limit = Math.floor(sum++ / c)
          if (child.wt > limit) child.wt = limit
        }
      }
    }
  }
  for (let i = 0; i < count; ++i) {
    const info = list[i]!
    let sum = 1
    for (const r of info.refs) sum += list[r]!.wt
    info.wt = sum <= info.wt ? sum : 0
  }

  const order: Array<CellInfo> = []
  // newIdx: -1 untouched, -2 previsited, -3 visited, >= 0 allocated
  const revisit = (idx: number, force: 0 | 1 | 2): void => {
    const info = list[idx]!
    if (info.newIdx >= 0) return
    if (force === 0) {
      if (info.newIdx !== -1) return
      for (let j = info.refs.length - 1; j >= 0; --j) {
        const child = info.refs[j]!
        revisit(child, list[child]!.wt === 0 ? 1 : 0)
      }
      info.newIdx = -2
      return
    }
    if (force === 2) {
      info.newIdx = order.length
      order.push(info)
      return
    }
    if (info.newIdx === -3) return
    if (info.wt === 0) revisit(idx, 0)
    for (let j = info.refs.length - 1; j >= 0; --j) revisit(info.refs[j]!, 1)
    for (let j = info.refs.length - 1; j >= 0; --j) revisit(info.refs[j]!, 2)
    info.newIdx = -3
  }
  revisit(rootIdx, 0)
  revisit(rootIdx, 1)
  revisit(rootIdx, 2)

  let refByteSize = 0
  while (count >= 2 ** (refByteSize * 8)) refByteSize++
  let totalRefs = 0
  let dataBytes = 0
  for (const info of order) {
    totalRefs += info.refs.length
    dataBytes += 2 + ((info.cell.bits.length + 7) >> 3)
  }
  const cellsSize = dataBytes + totalRefs * refByteSize
  let offsetByteSize = 0
  while (cellsSize >= 2 ** (offsetByteSize * 8)) offsetByteSize++

  const headerSize = 4 + 1 + 1 + 3 * refByteSize + offsetByteSize + refByteSize
  // every byte is written below
  const out = Buffer.allocUnsafe(headerSize + cellsSize + 4)
  let pos = 0
  out.writeUInt32BE(0xb5ee9c72, pos)
  pos += 4
  out[pos++] = 0x40 | refByteSize
  out[pos++] = offsetByteSize
  pos = out.writeUIntBE(count, pos, refByteSize)
  pos = out.writeUIntBE(1, pos, refByteSize)
  pos = out.writeUIntBE(0, pos, refByteSize)
  pos = writeUIntBig(out, cellsSize, pos, offsetByteSize)
  pos = out.writeUIntBE(count - 1 - list[rootIdx]!.newIdx, pos, refByteSize)
  for (let i = count - 1; i >= 0; --i) {
    const info = order[i]!
    const cell = info.cell
    const bitLen = cell.bits.length
    out[pos++] = info.refs.length + (cell.isExotic ? 8 : 0) + cell.mask.value * 32
    out[pos++] = (bitLen >> 3) + ((bitLen + 7) >> 3)
    pos = writePaddedBits(out, pos, cell.bits)
    for (const r of info.refs) pos = out.writeUIntBE(count - 1 - list[r]!.newIdx, pos, refByteSize)
  }
  out.writeUInt32LE(crc32c(out.subarray(0, pos)), pos)
  return out
}

/** Serializes and encodes as standard base64, the form toncenter's JSON carries. */
export const serializeBocBase64 = (root: Cell): string => serializeBoc(root).toString("base64")

const writeUIntBig = (out: Buffer, value: number, pos: number, size: number): number => {
  for (let i = size - 1; i >= 0; --i) out[pos + i] = Math.floor(value / 2 ** (8 * (size - 1 - i))) & 0xff
  return pos + size
}

// Per ASCII code: 1 = standard-only (+ /), 2 = url-safe-only (- _), 3 = both alphabets (A-Z a-z 0-9), 0 = neither.
const BASE64_CHARS = (() => {
  const t = new Uint8Array(128)
  for (const c of "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789") t[c.charCodeAt(0)] = 3
  t[43] = t[47] = 1
  t[45] = t[95] = 2
  return t
})()

/**
 * Whether `s` is base64 in one alphabet, standard or url-safe, not mixed: groups of four, then optionally two or
 * three characters, padded with "==" / "=" or not. A loop over char codes rather than a regular expression on the
 * hot path of every transaction.
 */
export const isBase64 = (s: string): boolean => {
  const n = s.length
  let pad = 0
  while (pad < n && pad < 3 && s.charCodeAt(n - 1 - pad) === 61) pad++
  if (pad === 3) return false
  const m = n - pad
  const rest = m & 3
  if (pad === 0 ? rest === 1 : rest !== 4 - pad) return false
  let alphabets = 3
  for (let i = 0; i < m; i++) {
    const c = s.charCodeAt(i)
    alphabets &= c < 128 ? BASE64_CHARS[c]! : 0
    if (alphabets === 0) return false
  }
  return true
}

/** Decodes standard or url-safe base64, rejecting anything else (Buffer.from would silently skip bad characters). */
export const decodeBase64 = (b64: string): Either.Either<Buffer, DecodeError> => {
  if (b64.length === 0 || !isBase64(b64)) {
    const bad = b64.search(/[^A-Za-z0-9+/=_-]/)
    return Either.left(
      new DecodeError({
        reason: "not_base64",
        message: b64.length === 0 ? "empty BOC string" : "BOC is not base64",
        position: `char ${bad >= 0 ? bad : b64.length}`
      })
    )
  }
  return Either.right(Buffer.from(b64, "base64"))
}

const MAGIC_GENERIC = 0xb5ee9c72
const MAGIC_LEGACY = [0x68ff65f3, 0xacc3a728]

/**
 * Checks the header of a generic BOC against the buffer length so a cut-off download is reported as "truncated"
 * with the offset where the bytes stop, rather than whatever the cell reader happens to throw.
 */
const checkHeader = (buf: Uint8Array): DecodeError | null => {
  const cut = (message: string) => new DecodeError({ reason: "truncated", message, position: `byte ${buf.length}` })
  if (buf.length < 4) return cut("BOC shorter than its magic")
  const magic = ((buf[0]! << 24) | (buf[1]! << 16) | (buf[2]! << 8) | buf[3]!) >>> 0
  if (MAGIC_LEGACY.includes(magic)) return null
  if (magic !== MAGIC_GENERIC) {
    return new DecodeError({ reason: "bad_boc", message: "not a bag of cells (bad magic)", position: "byte 0" })
  }
  if (buf.length < 6) return cut("BOC header cut off")
  const flags = buf[4]!
  const size = flags & 7
  const offSize = buf[5]!
  if (size < 1 || size > 4 || offSize < 1 || offSize > 8) {
    return new DecodeError({ reason: "bad_boc", message: "invalid BOC size fields", position: "byte 4" })
  }
  const fixed = 6 + 3 * size + offSize
  if (buf.length < fixed) return cut("BOC header cut off")
  const readN = (at: number, n: number) => {
    let v = 0
    for (let i = 0; i < n; i++) v = v * 256 + buf[at + i]!
    return v
  }
  const cells = readN(6, size)
  const roots = readN(6 + size, size)
  const totalCellsSize = readN(6 + 3 * size, offSize)
  const hasIdx = (flags & 0x80) !== 0
  const hasCrc = (flags & 0x40) !== 0
  const expected = fixed + roots * size + (hasIdx ? cells * offSize : 0) + totalCellsSize + (hasCrc ? 4 : 0)
  if (buf.length < expected) {
    return new DecodeError({
      reason: "truncated",
      message: `BOC declares ${expected} bytes but has ${buf.length}`,
      position: `byte ${buf.length}`
    })
  }
  if (hasCrc && buf.length === expected) {
    const stored = Buffer.from(buf.buffer, buf.byteOffset, buf.byteLength).readUInt32LE(expected - 4)
    if (crc32c(buf.subarray(0, expected - 4)) !== stored) {
      return new DecodeError({ reason: "bad_boc", message: "CRC32C mismatch", position: `byte ${expected - 4}` })
    }
  }
  return null
}

/** Parses a single-root BOC from bytes; every failure is a DecodeError, never an exception. */
export const parseBocBytes = (buf: Uint8Array): Either.Either<Cell, DecodeError> => {
  const headerError = checkHeader(buf)
  if (headerError !== null) return Either.left(headerError)
  let cells: Array<Cell>
  try {
    cells = Cell.fromBoc(Buffer.from(buf.buffer, buf.byteOffset, buf.byteLength))
  } catch (e) {
    return Either.left(new DecodeError({ reason: "bad_boc", message: `invalid bag of cells: ${errorText(e)}` }))
  }
  if (cells.length !== 1) {
    return Either.left(new DecodeError({ reason: "bad_boc", message: `expected 1 root cell, found ${cells.length}` }))
  }
  return Either.right(cells[0]!)
}

/** Parses a single-root BOC given as base64 (standard or url-safe). */
export const parseBoc = (b64: string): Either.Either<Cell, DecodeError> =>
  Either.flatMap(decodeBase64(b64), parseBocBytes)

export const errorText = (e: unknown): string => (e instanceof Error ? e.message : String(e))
