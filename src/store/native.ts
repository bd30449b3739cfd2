/**
 * Reads the engine's Native output of statements whose columns are all `String`: per block the column and row counts,
 * then per column its name, its type and its values (each a LEB128 length and the bytes), column after column.
 * Invariant: every value comes back exactly as the engine holds it (decoded as UTF-8); a column of another type, or
 * output cut short, is an error, never a guess.
 */

/** LEB128 unsigned integer at `at`: its value and the offset after it. */
const varUInt = (b: Buffer, at: number): [number, number] => {
  let value = 0
  let shift = 0
  for (;;) {
    if (at >= b.length) throw new Error("Native output cut short in a length")
    const byte = b[at++]!
    value += (byte & 0x7f) * 2 ** shift
    if ((byte & 0x80) === 0) return [value, at]
    shift += 7
    if (shift > 49) throw new Error("Native output: a length beyond 2^53")
  }
}

/** The blocks' rows of a Native answer of `columns` String columns, as one array of values per column. */
export const nativeStringColumns = (b: Buffer, columns: number): Array<Array<string>> => {
  const out = Array.from({ length: columns }, () => [] as Array<string>)
  let at = 0
  const bytes = (): [number, number] => {
    const [n, next] = varUInt(b, at)
    if (next + n > b.length) throw new Error("Native output cut short in a value")
    at = next + n
    return [next, next + n]
  }
  while (at < b.length) {
    let n: number
    ;[n, at] = varUInt(b, at)
    if (n !== columns) throw new Error(`Native output: a block of ${n} columns, ${columns} expected`)
    let rows: number
    ;[rows, at] = varUInt(b, at)
    for (let c = 0; c < columns; c++) {
      bytes() // the column's name
      const [ts, te] = bytes()
      const type = b.toString("latin1", ts, te)
      if (type !== "String") throw new Error(`Native output: a column of type ${type}, String expected`)
      const values = out[c]!
      for (let r = 0; r < rows; r++) {
        const [s, e] = bytes()
        values.push(b.toString("utf8", s, e))
      }
    }
  }
  return out
}
