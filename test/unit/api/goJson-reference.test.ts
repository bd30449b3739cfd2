// goJson and goJsonStringify skip the escaping replace when `includes` finds none of Go's five escaped characters;
// held here to the plain regex replace they were before (the reference), on values made of those characters,
// their neighbours and non-ASCII text, and on the v3 rendering of the real fixture transactions.
import { describe, expect, it } from "vitest"
import { goJson } from "../../../src/api/json.js"
import { goJsonStringify, renderV3Transaction } from "../../../src/ton/v3.js"
import { realBundle } from "../store/records.js"

const goEscapes: Record<string, string> = {
  "<": "\\u003c",
  ">": "\\u003e",
  "&": "\\u0026",
  "\u2028": "\\u2028",
  "\u2029": "\\u2029"
}
const referenceGoJson = (value: unknown): string =>
  JSON.stringify(value).replace(/[<>&\u2028\u2029]/g, (c) => goEscapes[c]!)
const referenceGoJsonStringify = (value: unknown): string =>
  JSON.stringify(value).replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`)

const values = (): Array<unknown> => {
  const parts = ["<", ">", "&", "\u2028", "\u2029", "\u2027", "\u202a", "=", "?", "%", "é", "😀", "\ud800", "\\", '"', "a", "\n"]
  let x = 7
  const next = () => (x = (Math.imul(x, 1103515245) + 12345) >>> 0)
  const out: Array<unknown> = []
  for (let i = 0; i < 500; i++) {
    let s = ""
    const n = next() % 40
    for (let k = 0; k < n; k++) s += next() % 4 === 0 ? parts[next() % parts.length]! : "x"
    out.push(s, { comment: s, n: i, list: [s, null, true] })
  }
  return out
}

describe("goJson and goJsonStringify against the regex replace", () => {
  it("write the same text for strings of the escaped characters and their neighbours", () => {
    for (const v of values()) {
      expect(goJson(v)).toBe(referenceGoJson(v))
      expect(goJsonStringify(v)).toBe(referenceGoJsonStringify(v))
    }
  })

  it("write the same text for the v3 rendering of the real fixture transactions", () => {
    const txs = realBundle().transactions
    expect(txs.length).toBeGreaterThan(0)
    for (const tx of txs) {
      const rendered = renderV3Transaction(tx, new Map())
      expect(goJson(rendered)).toBe(referenceGoJson(rendered))
    }
  })
})
