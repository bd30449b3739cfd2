/**
 * Table rows -> JSONCompactEachRow, TabSeparated or RowBinary bytes for one INSERT per table, encoded as the rows are made so
 * that a batch's row objects never all exist at once. Invariant: every row of a table comes from one row function (the same keys in the
 * same order), so the table's columns are its first row's keys and each line holds exactly those values, which
 * ClickHouse reads as it would read the same row as a JSONEachRow object.
 */
import { UnstorableRecordError } from "../flatten/messages.js"
import { BINARY_COLUMN_TYPES } from "./columnTypes.js"
import type { BodySpill } from "../clickhouse/spool.js"

export interface EncodedRows {
  readonly columns: ReadonlyArray<string>
  readonly body: Buffer
  readonly rows: number
}

/** The encoded rows as the chunks they were written into, in order: the body is their concatenation. */
export interface EncodedChunks {
  readonly columns: ReadonlyArray<string>
  readonly chunks: ReadonlyArray<Buffer>
  /** Bytes of all chunks together. */
  readonly bytes: number
  readonly rows: number
}

/**
 * Size of each chunk an encoder writes into: a table's body is a list of such chunks, each filled and never copied or
 * grown, handed to the insert as it is. One buffer grown by half again held up to a third of slack plus the copies
 * of its growth (a 16 MiB batch of records: ~48 MB of encoder buffers at the consumer's peak, BENCHMARKS.md); chunks
 * leave at most a value's bytes unused at each chunk's end and the last chunk's unused tail.
 */
export const CHUNK_BYTES = 1 << 18
/** Strings at least this long are checked for characters to escape in their bytes (memchr) instead of by a regex. */
const BYTE_SCAN_CHARS = 256

const NEWLINE = 0x0a
const TAB = 0x09
const CR = 0x0d
const BACKSLASH = 0x5c
const QUOTE = 0x27
const COMMA = 0x2c
const OPEN = 0x5b
const CLOSE = 0x5d
const DQUOTE = 0x22

const NO_BYTES = Buffer.alloc(0)
const UTF8 = new TextEncoder()

/**
 * What both formats share: one line per row written as UTF-8 straight into fixed-size chunks (no line strings, no
 * joined slices, no concatenation at the end), the table's columns its first row's keys. A format says only how a
 * row's values are written. Each value is written whole into one chunk (a value that does not fit in what is left of
 * the current chunk starts the next), so a value's bytes can be scanned and rewritten in place. A value larger than a
 * chunk gets a buffer of its own, and the values after it go on in the room the chunk it left still has: the body is
 * a list of slices, several of them of one chunk, in the order they were written (a table whose every row carries
 * one such value, a page's text, would otherwise leave nearly a whole chunk unused per row; with BinaryRowEncoder's
 * strings counted when their 3x bound does not fit, a 16 MiB batch's buffers went 46-54 -> 37-39 MB, BENCHMARKS.md). A row that cannot be written leaves nothing behind (the slices, buffers
 * and positions are put back as they were at its start).
 */
abstract class ByteRowEncoder {
  private columns: ReadonlyArray<string> | undefined
  /** The body's slices written before the current one, in order. */
  private full: Array<Buffer> = []
  private fullBytes = 0
  /** The buffer being written (none until the first byte: a table without rows holds no memory). */
  protected buf: Buffer = NO_BYTES
  protected len = 0
  /** Where the current slice starts in `buf`. */
  private from = 0
  /** The chunk a value larger than a chunk left, and where its room starts: the next values go on there. */
  private spare: Buffer = NO_BYTES
  private spareAt = 0
  private count = 0
  /** Where finished slices go once they reach its `afterBytes` (none: the body stays in memory). */
  private spill: BodySpill | undefined
  /** Chunks whose bytes went to the spill, written over by the next chunks this encoder takes. */
  private free: Array<Buffer> = []

  constructor(
    protected readonly table: string,
    protected readonly chunkBytes: number = CHUNK_BYTES
  ) {}

  get rows(): number {
    return this.count
  }

  /** Bytes the encoder's chunks hold room for (what it costs in memory, used or not). */
  get capacity(): number {
    const held = new Set<ArrayBufferLike>([this.buf.buffer, this.spare.buffer])
    for (const c of this.full) held.add(c.buffer)
    for (const c of this.free) held.add(c.buffer)
    let n = 0
    for (const b of held) n += b.byteLength
    return n
  }

  /**
   * From now on, the slices written before the current one go to `spill` at the end of a row once they hold its
   * `afterBytes`: the encoder then holds at most that, the chunk being written and a value larger than a chunk.
   * `finishChunks` gives only what is still in memory (what follows the spilled bytes).
   */
  spillTo(spill: BodySpill): void {
    this.spill = spill
  }

  /** Writes the row's values of `columns`, in that order, without the line's end. */
  protected abstract writeValues(r: Record<string, unknown>, columns: ReadonlyArray<string>): void

  add(row: object): void {
    const r = row as Record<string, unknown>
    const fullCount = this.full.length
    const fullBytes = this.fullBytes
    const buf = this.buf
    const start = this.len
    const from = this.from
    const spare = this.spare
    const spareAt = this.spareAt
    try {
      this.writeValues(r, (this.columns ??= Object.keys(r)))
    } catch (e) {
      this.full.length = fullCount
      this.fullBytes = fullBytes
      this.buf = buf
      this.len = start
      this.from = from
      this.spare = spare
      this.spareAt = spareAt
      throw e
    }
    this.endRow()
    this.count++
    // Only between rows: a row that fails is put back from the slices it found, which must still be here.
    if (this.spill !== undefined && this.fullBytes >= this.spill.afterBytes) this.spillFull(this.spill)
  }

  /**
   * The finished slices into the spill (its write is synchronous: their bytes are copied when it returns), and their
   * chunks, other than those still being written into, taken again for the next chunks: an encoder that spills holds
   * a few chunks for the whole batch instead of leaving each to the collector (and the allocator's freed pages).
   */
  private spillFull(spill: BodySpill): void {
    spill.write(this.full)
    const inUse = new Set<ArrayBufferLike>([this.buf.buffer, this.spare.buffer])
    for (const slice of this.full) {
      const chunk = slice.buffer
      if (chunk.byteLength !== this.chunkBytes || inUse.has(chunk)) continue
      inUse.add(chunk)
      this.free.push(Buffer.from(chunk, 0, chunk.byteLength))
    }
    this.full = []
    this.fullBytes = 0
  }

  /** What follows each row's values: a line's end. */
  protected endRow(): void {
    this.byte(NEWLINE)
  }

  /**
   * The encoded rows as their chunks (after `spillTo`, those not spilled: the body is the spill's bytes followed by
   * them); the encoder is empty afterwards, holds none of them and spills no more.
   */
  finishChunks(): EncodedChunks {
    const chunks = this.full
    if (this.len > this.from) chunks.push(this.buf.subarray(this.from, this.len))
    const out = { columns: this.columns ?? [], chunks, bytes: this.fullBytes + this.len - this.from, rows: this.count }
    this.full = []
    this.fullBytes = 0
    this.buf = NO_BYTES
    this.len = 0
    this.from = 0
    this.spare = NO_BYTES
    this.spareAt = 0
    this.count = 0
    this.spill = undefined
    this.free = []
    return out
  }

  /** The encoded rows in one buffer (their chunks concatenated); the encoder is empty afterwards. */
  finish(): EncodedRows {
    const { columns, chunks, bytes, rows } = this.finishChunks()
    return { columns, body: chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, bytes), rows }
  }

  /**
   * Room for `n` more bytes in the current buffer: else the current slice ends and the next one starts in a buffer of
   * its own for a value larger than a chunk, in the room a chunk left to such a value when it has enough, or in a new
   * chunk.
   */
  protected reserve(n: number): void {
    if (this.len + n <= this.buf.length) return
    if (this.len > this.from) {
      this.full.push(this.buf.subarray(this.from, this.len))
      this.fullBytes += this.len - this.from
    }
    if (n > this.chunkBytes) {
      // The chunk keeps its room for the values after this one (one spare at a time: the first one left is kept).
      if (this.spare === NO_BYTES && this.buf.length - this.len > 0 && this.buf.length <= this.chunkBytes) {
        this.spare = this.buf
        this.spareAt = this.len
      }
      this.take(n)
      return
    }
    if (this.spareAt + n <= this.spare.length) {
      this.buf = this.spare
      this.len = this.from = this.spareAt
    } else {
      this.take(this.chunkBytes)
    }
    this.spare = NO_BYTES
    this.spareAt = 0
  }

  /**
   * A buffer of its own (never a slice of Node's shared pool, so what the encoder holds is what it took): a chunk
   * whose bytes were spilled, when there is one and a chunk is asked for.
   */
  private take(size: number): void {
    this.buf = (size === this.chunkBytes ? this.free.pop() : undefined) ?? Buffer.allocUnsafeSlow(size)
    this.len = this.from = 0
  }

  protected byte(b: number): void {
    if (this.len === this.buf.length) this.reserve(1)
    this.buf[this.len++] = b
  }

  /** `s`, known to be ASCII, byte by byte (a short text: cheaper than a native write's call). */
  protected ascii(s: string): void {
    const n = s.length
    this.reserve(n)
    const buf = this.buf
    let p = this.len
    for (let k = 0; k < n; k++) buf[p++] = s.charCodeAt(k)
    this.len = p
  }

  /**
   * `s` as UTF-8 in as many chunks as it takes, each filled before the next is taken: for a value larger than a chunk
   * whose bytes are never rewritten (RowBinary's strings), so that it needs no buffer of its own and an encoder that
   * spills writes it over the chunks it already has. The bytes are those of `Buffer.write` (a lone surrogate as
   * U+FFFD, as there).
   */
  protected textAcrossChunks(s: string): void {
    let read = 0
    while (read < s.length) {
      // a character is at most 4 bytes: a chunk with less room left is ended first
      if (this.buf.length - this.len < 4) this.reserve(this.chunkBytes)
      const r = UTF8.encodeInto(read === 0 ? s : s.substring(read), this.buf.subarray(this.len))
      read += r.read
      this.len += r.written
    }
  }

  /** `s` as UTF-8, whole in one chunk; returns where its bytes start. */
  protected text(s: string): number {
    // At most 3 bytes per UTF-16 unit; counted exactly only when that bound does not fit, so a chunk is left with
    // less unused than the string's own bytes.
    const most = s.length * 3
    this.reserve(this.len + most <= this.buf.length ? most : Buffer.byteLength(s, "utf8"))
    const start = this.len
    this.len += this.buf.write(s, start, "utf8")
    return start
  }
}

/** Characters JSON.stringify writes other than as they are: quote, backslash, controls, surrogates (lone ones). */
const JSON_SPECIAL = /["\\\x00-\x1f\ud800-\udfff]/

/**
 * Table rows -> JSONCompactEachRow bytes: each row `[v1,v2,...]`, each value written into the chunk as
 * `JSON.stringify` of the row's value array writes it (no array, no line string): null, booleans and finite numbers
 * as their text (`String` of a finite number is its JSON), a non-finite number as null, a string of printable ASCII
 * without quote or backslash byte by byte between quotes, a long one without a character JSON escapes as UTF-8 between
 * quotes, any other string and any other value (objects, arrays) as its own `JSON.stringify`.
 */
export class CompactRowEncoder extends ByteRowEncoder {
  readonly format = "JSONCompactEachRow" as const

  protected writeValues(r: Record<string, unknown>, columns: ReadonlyArray<string>): void {
    this.byte(OPEN)
    for (let i = 0; i < columns.length; i++) {
      const v = r[columns[i]!]
      // JSONEachRow would leave the column to its default, a positional line would say null: never guess.
      if (v === undefined) throw new UnstorableRecordError(`${this.table} row without ${columns[i]}`)
      if (i > 0) this.byte(COMMA)
      if (typeof v === "string") this.jsonString(v)
      else if (v === null) this.ascii("null")
      else if (typeof v === "number") this.ascii(Number.isFinite(v) ? String(v) : "null")
      else if (typeof v === "boolean") this.ascii(v ? "true" : "false")
      // inside an array JSON.stringify writes a value it cannot serialize (a function, a symbol) as null
      else this.text(JSON.stringify(v) ?? "null")
    }
    this.byte(CLOSE)
  }

  /** `s` as a JSON string. */
  private jsonString(s: string): void {
    const n = s.length
    if (n < BYTE_SCAN_CHARS) {
      this.reserve(n + 2)
      const buf = this.buf
      let p = this.len
      buf[p++] = DQUOTE
      for (let k = 0; k < n; k++) {
        const c = s.charCodeAt(k)
        if (c < 0x20 || c > 0x7e || c === DQUOTE || c === BACKSLASH) {
          this.text(JSON.stringify(s))
          return
        }
        buf[p++] = c
      }
      buf[p++] = DQUOTE
      this.len = p
      return
    }
    if (JSON_SPECIAL.test(s)) {
      this.text(JSON.stringify(s))
      return
    }
    this.byte(DQUOTE)
    this.text(s)
    this.byte(DQUOTE)
  }
}

/** Raw tab, newline, carriage return or backslash: what TabSeparated must escape inside a value. */
const TSV_SPECIAL = /[\\\t\n\r]/
const TSV_SPECIAL_BYTES = [BACKSLASH, TAB, NEWLINE, CR]
/** The same plus the single quote: what an element of Array(String) must escape. */
const QUOTED_SPECIAL = /[\\'\t\n\r]/
const QUOTED_SPECIAL_BYTES = [BACKSLASH, QUOTE, TAB, NEWLINE, CR]
/** The letter after the backslash of each escaped byte (TabSeparated and quoted alike). */
const ESCAPED_AS = new Uint8Array(128)
ESCAPED_AS[BACKSLASH] = BACKSLASH
ESCAPED_AS[QUOTE] = QUOTE
ESCAPED_AS[TAB] = 0x74
ESCAPED_AS[NEWLINE] = 0x6e
ESCAPED_AS[CR] = 0x72
/** Most escaped bytes in one value that escapeInPlace orders by insertion. */
const INSERTION_SORT_MAX = 32
const ascending = (a: number, b: number): number => a - b
const tsvEscaped = (s: string): string =>
  s.replaceAll("\\", "\\\\").replaceAll("\t", "\\t").replaceAll("\n", "\\n").replaceAll("\r", "\\r")
const quotedEscaped = (s: string): string =>
  s
    .replaceAll("\\", "\\\\")
    .replaceAll("'", "\\'")
    .replaceAll("\t", "\\t")
    .replaceAll("\n", "\\n")
    .replaceAll("\r", "\\r")

/**
 * Table rows -> TabSeparated bytes, for tables whose values are numbers, strings and arrays of strings or numbers only
 * (tx_pages: most of its bytes are pre-rendered JSON texts, which JSONCompactEachRow would escape quote by quote and
 * the engine unescape again; TabSeparated escapes only backslashes, tabs and line breaks). A string is written as
 * UTF-8 first and escaped only when its bytes hold a character to escape (every such character is ASCII, and UTF-8
 * never uses an ASCII byte inside a longer character, so escaping the bytes is escaping the text); an element of
 * Array(String) is written `'a'` with quote, backslash, tab and line breaks escaped (the array's text is read as it
 * is, without a second TabSeparated escaping on top). The same invariant as CompactRowEncoder: the columns are the
 * first row's keys, each line holds exactly those values; any other kind of value (null, boolean, object) is refused
 * rather than written in a form the column might read differently.
 */
export class TsvRowEncoder extends ByteRowEncoder {
  readonly format = "TabSeparated" as const

  protected writeValues(r: Record<string, unknown>, columns: ReadonlyArray<string>): void {
    for (let i = 0; i < columns.length; i++) {
      if (i > 0) this.byte(TAB)
      const v = r[columns[i]!]
      if (typeof v === "string") this.escapedText(v, TSV_SPECIAL, TSV_SPECIAL_BYTES, tsvEscaped)
      else if (typeof v === "number" && Number.isFinite(v)) this.text(String(v))
      else if (typeof v === "bigint") this.text(v.toString())
      else if (Array.isArray(v) && v.every((e) => typeof e === "string")) {
        this.byte(OPEN)
        for (let k = 0; k < v.length; k++) {
          if (k > 0) this.byte(COMMA)
          this.byte(QUOTE)
          this.escapedText(v[k] as string, QUOTED_SPECIAL, QUOTED_SPECIAL_BYTES, quotedEscaped)
          this.byte(QUOTE)
        }
        this.byte(CLOSE)
      } else if (Array.isArray(v) && v.every((e) => typeof e === "number" && Number.isFinite(e))) {
        this.byte(OPEN)
        this.text(v.join(","))
        this.byte(CLOSE)
      } else {
        throw new UnstorableRecordError(`${this.table} row: ${columns[i]} is not a number, string, string or number array`)
      }
    }
  }

  /**
   * `s` with the characters of `special` escaped: short strings checked by the regex, long ones in their bytes, where
   * they are escaped in place (each escaped byte's backslash inserted, the bytes after it moved up) when the chunk has
   * room for the backslashes, else written again escaped.
   */
  private escapedText(
    s: string,
    special: RegExp,
    specialBytes: ReadonlyArray<number>,
    escape: (s: string) => string
  ): void {
    if (s.length < BYTE_SCAN_CHARS) {
      this.text(special.test(s) ? escape(s) : s)
      return
    }
    const start = this.text(s)
    if (!this.escapeInPlace(start, specialBytes)) {
      this.len = start
      this.text(escape(s))
    }
  }

  /**
   * The bytes from `start` to the end with each of `specialBytes` escaped in place; false (nothing changed) when the
   * chunk has no room for the backslashes.
   */
  private escapeInPlace(start: number, specialBytes: ReadonlyArray<number>): boolean {
    const written = this.buf.subarray(start, this.len)
    let at: Array<number> | undefined
    for (const b of specialBytes) {
      for (let i = written.indexOf(b); i >= 0; i = written.indexOf(b, i + 1)) (at ??= []).push(i)
    }
    if (at === undefined) return true
    if (this.len + at.length > this.buf.length) return false
    // positions in order: a few (most values) by insertion sort, no comparator calls; more by the engine's sort,
    // since the lists of the different bytes interleave (a page's lines: tabs, then a newline) and insertion would
    // be quadratic (10,000 such lines took ~0.4 s)
    if (at.length > INSERTION_SORT_MAX) at.sort(ascending)
    else {
      for (let k = 1; k < at.length; k++) {
        const x = at[k]!
        let j = k - 1
        for (; j >= 0 && at[j]! > x; j--) at[j + 1] = at[j]!
        at[j + 1] = x
      }
    }
    const buf = this.buf
    let end = this.len
    // from the last escaped byte back: the bytes after the k-th (0-based) move up by k + 1, it becomes two bytes
    for (let k = at.length - 1; k >= 0; k--) {
      const i = start + at[k]!
      const c = buf[i]!
      buf.copyWithin(i + k + 2, i + 1, end)
      buf[i + k] = BACKSLASH
      buf[i + k + 1] = ESCAPED_AS[c]!
      end = i
    }
    this.len += at.length
    return true
  }
}

/** Writes one value of a column's type (a value that does not fit the type throws). */
type BinaryWriter = (e: BinaryRowEncoder, v: unknown) => void
interface BinaryType {
  readonly write: BinaryWriter
  /** The type's default, written for a null in a column that is not Nullable (as the text formats read it). */
  readonly zero: unknown
  readonly nullable: boolean
}

const TWO_32 = 4294967296
/** Decimal strings of at most this many characters are below 2^53: read as a number, not a BigInt. */
const SAFE_DIGITS = 15

/** Decimal integer text: what an integer column's text formats read, at every length. */
const DECIMAL = /^-?[0-9]+$/

/**
 * `v` as an integer: a number, a decimal string, a boolean; a BigInt when it is beyond 2^53. A string must be decimal
 * digits with an optional minus at any length (not "1e5", "0x10", "" or " 1", which Number() would read).
 */
const integer = (v: unknown): number | bigint => {
  if (typeof v === "number") {
    if (Number.isSafeInteger(v)) return v
  } else if (typeof v === "string") {
    if (DECIMAL.test(v)) return v.length <= SAFE_DIGITS ? Number(v) : BigInt(v)
  } else if (typeof v === "boolean") return v ? 1 : 0
  else if (typeof v === "bigint") return v
  throw new UnstorableRecordError(`not an integer: ${String(v)}`)
}

/** Splits a type's arguments at its top-level commas. */
const typeArgs = (s: string): Array<string> => {
  const out: Array<string> = []
  let depth = 0
  let quoted = false
  let from = 0
  for (let i = 0; i < s.length; i++) {
    const c = s[i]
    if (quoted) {
      if (c === "\\") i++
      else if (c === "'") quoted = false
    } else if (c === "'") quoted = true
    else if (c === "(") depth++
    else if (c === ")") depth--
    else if (c === "," && depth === 0) {
      out.push(s.slice(from, i).trim())
      from = i + 1
    }
  }
  out.push(s.slice(from).trim())
  return out
}

const integerType = (bytes: number, signed: boolean): BinaryType => {
  const bits = BigInt(bytes * 8)
  const min = signed ? -(1n << (bits - 1n)) : 0n
  const max = signed ? (1n << (bits - 1n)) - 1n : (1n << bits) - 1n
  const small = bytes <= 4
  const nmin = Number(min)
  const nmax = Number(max)
  return {
    zero: 0,
    nullable: false,
    write: (e, v) => {
      const x = integer(v)
      if (typeof x === "number") {
        if (x < nmin || x > nmax) throw new UnstorableRecordError(`${x} out of range of a ${bytes}-byte integer`)
        if (small) e.smallInt(x, bytes)
        else e.safeInt(x, bytes)
        return
      }
      if (x < min || x > max) throw new UnstorableRecordError(`${x} out of range of a ${bytes}-byte integer`)
      e.bigInt(x, bytes)
    }
  }
}

/** A writer for a column type as `system.columns` spells it. */
export const binaryType = (type: string): BinaryType => {
  const open = type.indexOf("(")
  const name = open < 0 ? type : type.slice(0, open)
  const args = open < 0 ? [] : typeArgs(type.slice(open + 1, type.lastIndexOf(")")))
  switch (name) {
    case "UInt8":
    case "UInt16":
    case "UInt32":
    case "UInt64":
    case "UInt128":
    case "UInt256":
      return integerType(Number(name.slice(4)) / 8, false)
    case "Int8":
    case "Int16":
    case "Int32":
    case "Int64":
    case "Int128":
    case "Int256":
      return integerType(Number(name.slice(3)) / 8, true)
    case "Bool":
      return {
        zero: false,
        nullable: false,
        write: (e, v) => {
          if (typeof v === "boolean") e.byte(v ? 1 : 0)
          else if (v === 0 || v === 1) e.byte(v)
          else throw new UnstorableRecordError(`not a boolean: ${String(v)}`)
        }
      }
    case "String":
      return {
        zero: "",
        nullable: false,
        write: (e, v) => {
          if (typeof v !== "string") throw new UnstorableRecordError(`not a string: ${String(v)}`)
          e.string(v)
        }
      }
    case "FixedString": {
      const n = Number(args[0])
      return {
        zero: "",
        nullable: false,
        write: (e, v) => {
          if (typeof v !== "string") throw new UnstorableRecordError(`not a string: ${String(v)}`)
          e.fixedString(v, n)
        }
      }
    }
    case "Enum8":
    case "Enum16": {
      const values = new Map<string, number>()
      for (const a of args) {
        const m = /^'((?:[^'\\]|\\.)*)'\s*=\s*(-?[0-9]+)$/.exec(a)
        if (m === null) throw new Error(`cannot read the enum value ${a}`)
        values.set(m[1]!.replace(/\\(.)/g, "$1"), Number(m[2]))
      }
      const bytes = name === "Enum8" ? 1 : 2
      const known = new Set(values.values())
      return {
        zero: [...values.keys()][0],
        nullable: false,
        write: (e, v) => {
          const x = typeof v === "string" ? values.get(v) : typeof v === "number" && known.has(v) ? v : undefined
          if (x === undefined) throw new UnstorableRecordError(`not a value of ${type}: ${String(v)}`)
          e.smallInt(x, bytes)
        }
      }
    }
    case "Nullable": {
      const inner = binaryType(args[0]!)
      return {
        zero: null,
        nullable: true,
        write: (e, v) => {
          if (v === null) e.byte(1)
          else {
            e.byte(0)
            inner.write(e, v)
          }
        }
      }
    }
    // RowBinary writes a LowCardinality value as the value itself
    case "LowCardinality":
      return binaryType(args[0]!)
    case "Array": {
      const element = binaryType(args[0]!)
      return {
        zero: [],
        nullable: false,
        write: (e, v) => {
          if (!Array.isArray(v)) throw new UnstorableRecordError(`not an array: ${String(v)}`)
          e.varUInt(v.length)
          for (let i = 0; i < v.length; i++) element.write(e, v[i])
        }
      }
    }
    case "Map": {
      const key = binaryType(args[0]!)
      const value = binaryType(args[1]!)
      return {
        zero: {},
        nullable: false,
        write: (e, v) => {
          if (typeof v !== "object" || v === null || Array.isArray(v)) {
            throw new UnstorableRecordError(`not a map: ${String(v)}`)
          }
          const entries = Object.entries(v)
          e.varUInt(entries.length)
          for (const [k, x] of entries) {
            key.write(e, k)
            value.write(e, x)
          }
        }
      }
    }
    default:
      throw new Error(`no binary writer for the column type ${type}`)
  }
}

/**
 * Table rows -> RowBinary bytes: each value in its column's type (BINARY_COLUMN_TYPES): integers little-endian of
 * their width, strings as their UTF-8 length (LEB128) and bytes with nothing escaped, FixedString padded with zeros,
 * an enum's name as its number, Nullable a byte (1: null) before the value, arrays and maps their length before their
 * elements. No text for the engine to parse or unescape: its insert CPU per transaction is lower than for the text
 * formats (BENCHMARKS.md, "Ingest: the consumer's largest tables inserted as RowBinary"). The same invariant as the text encoders: the
 * columns are the first row's keys; a value its column's type cannot hold is refused (the row leaves nothing behind),
 * a null in a column that is not Nullable is written as the type's default, as the text formats read it.
 */
export class BinaryRowEncoder extends ByteRowEncoder {
  readonly format = "RowBinary" as const
  private writers: ReadonlyArray<BinaryType> | undefined

  constructor(
    table: string,
    private readonly types: Readonly<Record<string, string>>,
    chunkBytes?: number
  ) {
    super(table, chunkBytes)
  }

  protected override endRow(): void {}

  protected writeValues(r: Record<string, unknown>, columns: ReadonlyArray<string>): void {
    const writers = (this.writers ??= columns.map((c) => {
      const type = this.types[c]
      if (type === undefined) throw new UnstorableRecordError(`${this.table} has no column ${c}`)
      return binaryType(type)
    }))
    for (let i = 0; i < columns.length; i++) {
      const v = r[columns[i]!]
      if (v === undefined) throw new UnstorableRecordError(`${this.table} row without ${columns[i]}`)
      const w = writers[i]!
      try {
        w.write(this, v === null && !w.nullable ? w.zero : v)
      } catch (e) {
        if (e instanceof UnstorableRecordError) throw new UnstorableRecordError(`${this.table}.${columns[i]}: ${e.message}`)
        throw e
      }
    }
  }

  override byte(b: number): void {
    super.byte(b)
  }

  /** An integer of at most 4 bytes (range checked by the caller), little-endian. */
  smallInt(x: number, bytes: number): void {
    this.reserve(bytes)
    const buf = this.buf
    let p = this.len
    buf[p++] = x & 0xff
    if (bytes > 1) buf[p++] = (x >> 8) & 0xff
    if (bytes > 2) {
      buf[p++] = (x >> 16) & 0xff
      buf[p++] = (x >> 24) & 0xff
    }
    this.len = p
  }

  /** A safe integer as `bytes` (8 or more) little-endian bytes, sign-extended. */
  safeInt(x: number, bytes: number): void {
    this.reserve(bytes)
    const hi = Math.floor(x / TWO_32)
    const lo = x - hi * TWO_32
    const buf = this.buf
    let p = this.len
    buf[p++] = lo & 0xff
    buf[p++] = (lo >>> 8) & 0xff
    buf[p++] = (lo >>> 16) & 0xff
    buf[p++] = (lo >>> 24) & 0xff
    buf[p++] = hi & 0xff
    buf[p++] = (hi >> 8) & 0xff
    buf[p++] = (hi >> 16) & 0xff
    buf[p++] = (hi >> 24) & 0xff
    const fill = x < 0 ? 0xff : 0
    for (let k = 8; k < bytes; k++) buf[p++] = fill
    this.len = p
  }

  /** A BigInt (range checked by the caller) as `bytes` little-endian bytes, two's complement. */
  bigInt(x: bigint, bytes: number): void {
    this.reserve(bytes)
    let u = BigInt.asUintN(bytes * 8, x)
    for (let k = 0; k < bytes; k += 8) {
      this.buf.writeBigUInt64LE(u & 0xffffffffffffffffn, this.len + k)
      u >>= 64n
    }
    this.len += bytes
  }

  /** An unsigned LEB128 number (a length). */
  varUInt(n: number): void {
    this.reserve(10)
    this.len = this.putVarUInt(this.len, n)
  }

  /** `n` as unsigned LEB128 at `p` of the current chunk (room known); returns where it ends. */
  private putVarUInt(p: number, n: number): number {
    const buf = this.buf
    while (n >= 0x80) {
      buf[p++] = (n % 0x80) | 0x80
      n = Math.floor(n / 0x80)
    }
    buf[p++] = n
    return p
  }

  /** `s` as its UTF-8 length and bytes. */
  string(s: string): void {
    const n = s.length
    if (n < 0x80) {
      // short ASCII (most values) byte by byte behind its one-byte length
      this.reserve(n + 1)
      const buf = this.buf
      let p = this.len + 1
      let k = 0
      for (; k < n; k++) {
        const c = s.charCodeAt(k)
        if (c > 0x7f) break
        buf[p++] = c
      }
      if (k === n) {
        buf[this.len] = n
        this.len = p
        return
      }
    }
    // the length's own size is known before the bytes when n and 3n (the most UTF-8 bytes) need as many; the bytes
    // are counted first when that bound does not fit in the current buffer (a page's text: a buffer of three times
    // its size would hold two thirds unused)
    const most = n * 3
    const size = varUIntSize(n)
    if (size === varUIntSize(most) && this.len + size + most <= this.buf.length) {
      const bytes = this.buf.write(s, this.len + size, "utf8")
      this.putVarUInt(this.len, bytes)
      this.len += size + bytes
      return
    }
    const bytes = Buffer.byteLength(s, "utf8")
    this.varUInt(bytes)
    if (bytes > this.chunkBytes) {
      // a page's text: across chunks, nothing in it is written over
      this.textAcrossChunks(s)
      return
    }
    this.reserve(bytes)
    this.len += this.buf.write(s, this.len, "utf8")
  }

  /** `s` in exactly `n` bytes: its UTF-8 padded with zeros (longer is refused). */
  fixedString(s: string, n: number): void {
    this.reserve(n)
    const buf = this.buf
    const start = this.len
    let p = start
    if (s.length <= n) {
      let k = 0
      for (; k < s.length; k++) {
        const c = s.charCodeAt(k)
        if (c > 0x7f) break
        buf[p++] = c
      }
      if (k < s.length) {
        const b = Buffer.from(s, "utf8")
        if (b.length > n) throw new UnstorableRecordError(`longer than FixedString(${n}): ${s}`)
        p = start + b.copy(buf, start)
      }
    } else throw new UnstorableRecordError(`longer than FixedString(${n}): ${s}`)
    buf.fill(0, p, start + n)
    this.len = start + n
  }
}

const varUIntSize = (n: number): number => {
  let size = 1
  while (n >= 0x80) {
    n = Math.floor(n / 0x80)
    size++
  }
  return size
}

export type RowEncoder = CompactRowEncoder | TsvRowEncoder | BinaryRowEncoder

/** Tables whose rows go as TabSeparated: numbers, strings and arrays only, most bytes in JSON texts. */
const TSV_TABLES: ReadonlySet<string> = new Set(["tx_pages", "mc_shards_kv"])

/** Tables whose text was TabSeparated before they went as RowBinary. */
const TSV_BEFORE_BINARY: ReadonlySet<string> = new Set(["v3_pages", "v2_pages"])

/**
 * A table's rows as text, one line per row (what the text path of an insert takes): TabSeparated or
 * JSONCompactEachRow as each table went before RowBinary, for the tables that go as RowBinary too.
 */
export const textEncoderFor = (table: string, chunkBytes?: number): CompactRowEncoder | TsvRowEncoder =>
  TSV_TABLES.has(table) || TSV_BEFORE_BINARY.has(table)
    ? new TsvRowEncoder(table, chunkBytes)
    : new CompactRowEncoder(table, chunkBytes)

/** The encoder the sink uses for a table's insert: RowBinary for the tables of BINARY_COLUMN_TYPES. */
export const encoderFor = (table: string, chunkBytes?: number): RowEncoder => {
  const types = BINARY_COLUMN_TYPES[table]
  return types === undefined ? textEncoderFor(table, chunkBytes) : new BinaryRowEncoder(table, types, chunkBytes)
}
