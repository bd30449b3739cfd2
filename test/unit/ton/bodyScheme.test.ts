import { describe, expect, it } from "vitest"
import { moduleText, storedForm } from "../../../scripts/gen-body-scheme.js"
import { Scheme } from "../../../src/ton/bodies/interpret.js"
import { parseScheme } from "../../../src/ton/bodies/parseScheme.js"
import { storedBodyScheme } from "../../../src/ton/bodies/scheme.js"
import { fromPlain, toPlain } from "../../../src/ton/bodies/schemeAst.js"
import { BODY_SCHEME_AST } from "../../../src/ton/bodies/schemes.ast.js"
import { BODY_SCHEME } from "../../../src/ton/bodies/schemes.tlb.js"

/** Every node of a tree with the class of its parent, in walk order. */
const nodesOf = (root: unknown): Array<{ cls: string; parent: string | null }> => {
  const out: Array<{ cls: string; parent: string | null }> = []
  const walk = (v: unknown): void => {
    if (v === null || typeof v !== "object") return
    if (Array.isArray(v)) return v.forEach(walk)
    const node = v as Record<string, unknown>
    const parent = node.parent as object | null
    out.push({ cls: v.constructor.name, parent: parent === null ? null : parent.constructor.name })
    for (const [k, child] of Object.entries(node)) if (k !== "parent" && k !== "locations") walk(child)
  }
  walk(root)
  return out
}

describe("the body scheme's stored syntax tree", () => {
  // The parser is the reference: slow (an ohm-js grammar), so parse once.
  const parsed = parseScheme(BODY_SCHEME)

  it("is the parser's tree of schemes.tlb.ts (run `npm run gen:body-scheme` after editing the scheme)", () => {
    expect(JSON.parse(BODY_SCHEME_AST)).toEqual(storedForm(BODY_SCHEME))
    expect(moduleText(storedForm(BODY_SCHEME))).toContain(BODY_SCHEME_AST)
  })

  it("rebuilds into the parser's classes, fields and parent links", () => {
    const stored = storedBodyScheme()
    expect(toPlain(stored.program)).toEqual(toPlain(parsed.program))
    expect(nodesOf(stored.program)).toEqual(nodesOf(parsed.program))
    expect(nodesOf(stored.program).length).toBeGreaterThan(1000)
    expect([...stored.listed]).toEqual([...parsed.listed])
    expect(stored.listed.size).toBeGreaterThan(0)
  })

  it("indexes the same constructors as the parsed text", () => {
    const summary = (s: Scheme) =>
      [...s.types].map(([type, list]) => [type, list.map((c) => [c.name, c.tagBits, c.hasFields])])
    const a = new Scheme(storedBodyScheme())
    const b = new Scheme(parsed)
    expect(summary(a)).toEqual(summary(b))
    for (const type of ["InternalMsgBody", "Bool", "MsgAddress"]) expect(a.isOneBit(type)).toBe(b.isOneBit(type))
  })

  it("differs when the scheme's text does", () => {
    const edited = BODY_SCHEME.replace("true$1 = Bool;", "true$1 flag:(## 1) = Bool;")
    expect(edited).not.toBe(BODY_SCHEME)
    expect(storedForm(edited)).not.toEqual(storedForm(BODY_SCHEME))
  })

  it("refuses values that are not the parser's nodes", () => {
    expect(() => toPlain({ a: 1 })).toThrow(/unknown class Object/)
    expect(() => fromPlain({ $: "Nope" })).toThrow(/unknown node class Nope/)
  })
})
