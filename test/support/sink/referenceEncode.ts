/**
 * The sink's row encoders as they were before they wrote bytes straight into one buffer (src/sink/encode.ts, commit
 * 0947490): lines made as strings, joined in slices of about a million characters, each slice turned into bytes,
 * the slices concatenated at the end; escaping by regular expressions. Kept as the reference the differential test
 * (test/unit/sink/encode-reference.test.ts) holds the faster encoders to, byte for byte.
 */
import { UnstorableRecordError } from "../../../src/flatten/messages.js"
import type { EncodedRows } from "../../../src/sink/encode.js"

// Lines are turned into bytes in slices of about this many characters: few Buffer copies, a bounded string array.
const SLICE_CHARS = 1 << 20

/**
 * The buffering both formats share: one line per row, the table's columns its first row's keys, lines turned into
 * bytes in slices. A format says only how a row becomes its line.
 */
abstract class LineRowEncoder {
  private columns: ReadonlyArray<string> | undefined
  private readonly chunks: Array<Buffer> = []
  private lines: Array<string> = []
  private chars = 0
  private count = 0

  constructor(protected readonly table: string) {}

  get rows(): number {
    return this.count
  }

  /** The row's line: its values of `columns`, in that order. */
  protected abstract line(r: Record<string, unknown>, columns: ReadonlyArray<string>): string

  add(row: object): void {
    const r = row as Record<string, unknown>
    const line = this.line(r, (this.columns ??= Object.keys(r)))
    this.lines.push(line)
    this.chars += line.length + 1
    this.count++
    if (this.chars >= SLICE_CHARS) this.slice()
  }

  /** The encoded rows; the encoder is empty afterwards. */
  finish(): EncodedRows {
    this.slice()
    const body = this.chunks.length === 1 ? this.chunks[0]! : Buffer.concat(this.chunks)
    const out = { columns: this.columns ?? [], body, rows: this.count }
    this.chunks.length = 0
    this.count = 0
    return out
  }

  private slice(): void {
    if (this.lines.length === 0) return
    this.lines.push("")
    this.chunks.push(Buffer.from(this.lines.join("\n"), "utf8"))
    this.lines = []
    this.chars = 0
  }
}

export class ReferenceCompactRowEncoder extends LineRowEncoder {
  readonly format = "JSONCompactEachRow" as const

  protected line(r: Record<string, unknown>, columns: ReadonlyArray<string>): string {
    const values = new Array<unknown>(columns.length)
    for (let i = 0; i < columns.length; i++) {
      const v = r[columns[i]!]
      // JSONEachRow would leave the column to its default, a positional line would say null: never guess.
      if (v === undefined) throw new UnstorableRecordError(`${this.table} row without ${columns[i]}`)
      values[i] = v
    }
    return JSON.stringify(values)
  }
}

/** Raw tab, newline, carriage return or backslash: what TabSeparated must escape inside a value. */
const TSV_SPECIAL = /[\\\t\n\r]/
const TSV_ESCAPES: Readonly<Record<string, string>> = {
  "\\": "\\\\",
  "\t": "\\t",
  "\n": "\\n",
  "\r": "\\r",
  "'": "\\'"
}
const tsvString = (s: string): string => (TSV_SPECIAL.test(s) ? s.replace(/[\\\t\n\r]/g, (c) => TSV_ESCAPES[c]!) : s)
/**
 * An element of Array(String) as TabSeparated writes it: `'a'` with quote, backslash, tab and line breaks escaped
 * (the array's text is read as it is, without a second TabSeparated escaping on top).
 */
const tsvQuoted = (s: string): string => `'${s.replace(/[\\'\t\n\r]/g, (c) => TSV_ESCAPES[c]!)}'`

/**
 * Table rows -> TabSeparated bytes, for tables whose values are numbers, strings and arrays of strings or numbers only
 * (tx_pages: most of its bytes are pre-rendered JSON texts, which JSONCompactEachRow would escape quote by quote and
 * the engine unescape again; TabSeparated escapes only backslashes, tabs and line breaks). The same invariant as
 * CompactRowEncoder: the columns are the first row's keys, each line holds exactly those values; any other kind of
 * value (null, boolean, object) is refused rather than written in a form the column might read differently.
 */
export class ReferenceTsvRowEncoder extends LineRowEncoder {
  readonly format = "TabSeparated" as const

  protected line(r: Record<string, unknown>, columns: ReadonlyArray<string>): string {
    let line = ""
    for (let i = 0; i < columns.length; i++) {
      const v = r[columns[i]!]
      let text: string
      if (typeof v === "string") text = tsvString(v)
      else if (typeof v === "number" && Number.isFinite(v)) text = String(v)
      else if (typeof v === "bigint") text = v.toString()
      else if (Array.isArray(v) && v.every((e) => typeof e === "string")) text = `[${v.map(tsvQuoted).join(",")}]`
      else if (Array.isArray(v) && v.every((e) => typeof e === "number" && Number.isFinite(e))) text = `[${v.join(",")}]`
      else {
        throw new UnstorableRecordError(`${this.table} row: ${columns[i]} is not a number, string, string or number array`)
      }
      line = i === 0 ? text : `${line}\t${text}`
    }
    return line
  }
}

