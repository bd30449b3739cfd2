/**
 * Table rows -> JSONCompactEachRow bytes for one INSERT per table, encoded as the rows are made so that a batch's row
 * objects never all exist at once. Invariant: every row of a table comes from one row function (the same keys in the
 * same order), so the table's columns are its first row's keys and each line holds exactly those values, which
 * ClickHouse reads as it would read the same row as a JSONEachRow object.
 */
import { UnstorableRecordError } from "../flatten/messages.js"

export interface EncodedRows {
  readonly columns: ReadonlyArray<string>
  readonly body: Buffer
  readonly rows: number
}

// Lines are turned into bytes in slices of about this many characters: few Buffer copies, a bounded string array.
const SLICE_CHARS = 1 << 20

export class CompactRowEncoder {
  private columns: ReadonlyArray<string> | undefined
  private readonly chunks: Array<Buffer> = []
  private lines: Array<string> = []
  private chars = 0
  private count = 0

  constructor(private readonly table: string) {}

  get rows(): number {
    return this.count
  }

  add(row: object): void {
    const r = row as Record<string, unknown>
    const columns = (this.columns ??= Object.keys(r))
    const values = new Array<unknown>(columns.length)
    for (let i = 0; i < columns.length; i++) {
      const v = r[columns[i]!]
      // JSONEachRow would leave the column to its default, a positional line would say null: never guess.
      if (v === undefined) throw new UnstorableRecordError(`${this.table} row without ${columns[i]}`)
      values[i] = v
    }
    const line = JSON.stringify(values)
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
