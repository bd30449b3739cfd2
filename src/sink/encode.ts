/**
 * Table rows -> JSONCompactEachRow (or TabSeparated) bytes for one INSERT per table, encoded as the rows are made so
 * that a batch's row objects never all exist at once. Invariant: every row of a table comes from one row function (the same keys in the
 * same order), so the table's columns are its first row's keys and each line holds exactly those values, which
 * ClickHouse reads as it would read the same row as a JSONEachRow object.
 */
import { UnstorableRecordError } from "../flatten/messages.js"

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

/**
 * What both formats share: one line per row written as UTF-8 straight into fixed-size chunks (no line strings, no
 * joined slices, no concatenation at the end), the table's columns its first row's keys. A format says only how a
 * row's values are written. Each value is written whole into one chunk (a value that does not fit in what is left of
 * the current chunk starts the next, one larger than a chunk when it must), so a value's bytes can be scanned and
 * rewritten in place. A row that cannot be written leaves nothing behind (the chunks are cut back to its start).
 */
abstract class ByteRowEncoder {
  private columns: ReadonlyArray<string> | undefined
  /** Chunks filled before the current one, and how many bytes of each were written. */
  private full: Array<Buffer> = []
  private used: Array<number> = []
  private fullBytes = 0
  /** The chunk being written (none until the first byte: a table without rows holds no memory). */
  protected buf: Buffer = NO_BYTES
  protected len = 0
  private count = 0

  constructor(
    protected readonly table: string,
    private readonly chunkBytes: number = CHUNK_BYTES
  ) {}

  get rows(): number {
    return this.count
  }

  /** Bytes the encoder's chunks hold room for (what it costs in memory, used or not). */
  get capacity(): number {
    let n = this.buf.length
    for (const c of this.full) n += c.length
    return n
  }

  /** Writes the row's values of `columns`, in that order, without the line's end. */
  protected abstract writeValues(r: Record<string, unknown>, columns: ReadonlyArray<string>): void

  add(row: object): void {
    const r = row as Record<string, unknown>
    const fullCount = this.full.length
    const fullBytes = this.fullBytes
    const buf = this.buf
    const start = this.len
    try {
      this.writeValues(r, (this.columns ??= Object.keys(r)))
    } catch (e) {
      this.full.length = fullCount
      this.used.length = fullCount
      this.fullBytes = fullBytes
      this.buf = buf
      this.len = start
      throw e
    }
    this.byte(NEWLINE)
    this.count++
  }

  /** The encoded rows as their chunks; the encoder is empty afterwards and holds none of them. */
  finishChunks(): EncodedChunks {
    const chunks = this.full.map((c, i) => c.subarray(0, this.used[i]))
    if (this.len > 0) chunks.push(this.buf.subarray(0, this.len))
    const out = { columns: this.columns ?? [], chunks, bytes: this.fullBytes + this.len, rows: this.count }
    this.full = []
    this.used = []
    this.fullBytes = 0
    this.buf = NO_BYTES
    this.len = 0
    this.count = 0
    return out
  }

  /** The encoded rows in one buffer (their chunks concatenated); the encoder is empty afterwards. */
  finish(): EncodedRows {
    const { columns, chunks, bytes, rows } = this.finishChunks()
    return { columns, body: chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, bytes), rows }
  }

  /** Room for `n` more bytes in the current chunk: the next chunk when this one has less. */
  protected reserve(n: number): void {
    if (this.len + n <= this.buf.length) return
    if (this.len > 0) {
      this.full.push(this.buf)
      this.used.push(this.len)
      this.fullBytes += this.len
    }
    this.buf = Buffer.allocUnsafe(Math.max(this.chunkBytes, n))
    this.len = 0
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

export type RowEncoder = CompactRowEncoder | TsvRowEncoder

/** Tables whose rows go as TabSeparated: numbers, strings and arrays only, most bytes in JSON texts. */
const TSV_TABLES: ReadonlySet<string> = new Set(["tx_pages", "v3_pages", "v2_pages", "mc_shards_kv"])

/** The encoder the sink uses for a table's insert. */
export const encoderFor = (table: string, chunkBytes?: number): RowEncoder =>
  TSV_TABLES.has(table) ? new TsvRowEncoder(table, chunkBytes) : new CompactRowEncoder(table, chunkBytes)
