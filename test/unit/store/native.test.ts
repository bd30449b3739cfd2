// The engine's Native output of String columns read back: blocks built here byte by byte as the engine writes them
// (column and row counts, then per column its name, type and length-prefixed values), values of every length class
// of the LEB128 prefix and of multi-byte UTF-8, several blocks, and output that is not what the reader expects.
import { describe, expect, it } from "vitest"
import { nativeStringColumns } from "../../../src/store/native.js"

const leb = (n: number): Array<number> => {
  const out: Array<number> = []
  do {
    const low = n % 128
    n = Math.floor(n / 128)
    out.push(n > 0 ? low | 0x80 : low)
  } while (n > 0)
  return out
}
const str = (s: string): Array<number> => {
  const b = Buffer.from(s, "utf8")
  return [...leb(b.length), ...b]
}
const block = (
  columns: ReadonlyArray<{ name: string; type: string; values: ReadonlyArray<string> }>
): Array<number> => [
  ...leb(columns.length),
  ...leb(columns[0]?.values.length ?? 0),
  ...columns.flatMap((c) => [...str(c.name), ...str(c.type), ...c.values.flatMap(str)])
]

describe("nativeStringColumns", () => {
  it("reads every value of every block, column by column", () => {
    const long = "x".repeat(200) // a two-byte length
    const longer = "é".repeat(9000) // 18,000 bytes: a three-byte length
    const b = Buffer.from([
      ...block([
        { name: "key", type: "String", values: ["a", "", long] },
        { name: "value", type: "String", values: ['{"v":"\\t"}', "é", longer] }
      ]),
      ...block([
        { name: "key", type: "String", values: ["z"] },
        { name: "value", type: "String", values: ["tab\tand\nnewline"] }
      ])
    ])
    expect(nativeStringColumns(b, 2)).toEqual([
      ["a", "", long, "z"],
      ['{"v":"\\t"}', "é", longer, "tab\tand\nnewline"]
    ])
  })

  it("reads no output and a block of no rows as no values", () => {
    expect(nativeStringColumns(Buffer.alloc(0), 2)).toEqual([[], []])
    const empty = Buffer.from(
      block([
        { name: "key", type: "String", values: [] },
        { name: "value", type: "String", values: [] }
      ])
    )
    expect(nativeStringColumns(empty, 2)).toEqual([[], []])
  })

  it("refuses another column count, another type, and output cut short", () => {
    const one = Buffer.from(block([{ name: "key", type: "String", values: ["a"] }]))
    expect(() => nativeStringColumns(one, 2)).toThrow(/1 columns, 2 expected/)
    const typed = Buffer.from(
      block([
        { name: "key", type: "String", values: ["a"] },
        { name: "n", type: "UInt32", values: ["abcd"] }
      ])
    )
    expect(() => nativeStringColumns(typed, 2)).toThrow(/UInt32/)
    const whole = Buffer.from(
      block([
        { name: "key", type: "String", values: ["abc"] },
        { name: "value", type: "String", values: ["defgh"] }
      ])
    )
    for (let cut = 1; cut < whole.length; cut++) expect(() => nativeStringColumns(whole.subarray(0, cut), 2)).toThrow()
  })
})
