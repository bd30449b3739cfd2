/**
 * The body scheme's syntax tree, stored as data. Parsing the scheme's text (@ton-community/tlb-parser, an ohm-js
 * grammar) costs 1-2 s of CPU per process, paid by every decode worker and consumer at start; the tree it gives is
 * the same every time, so it is kept in the repository as JSON (schemes.ast.ts, written by
 * `npm run gen:body-scheme`) and rebuilt here into the parser's own node classes, which the interpreter tests with
 * `instanceof`. The parser stays the reference: a unit test parses the text and compares the two trees field by
 * field, so a scheme edited without regenerating fails the suite.
 * Invariant: `fromPlain(toPlain(tree))` has the classes, fields and parent links of `tree` (source locations,
 * which nothing reads, are left out).
 */
import * as nodes from "@ton-community/tlb-parser/dist/ast/nodes.js"

/** A node as data: its class name under "$", its fields (nodes, arrays of nodes, strings, numbers, null). */
export type PlainNode = { readonly $: string; readonly [field: string]: PlainValue }
export type PlainValue = string | number | boolean | null | PlainNode | ReadonlyArray<PlainValue>

/**
 * The parser's concrete node classes by name (abstract bases are never instantiated). Named here, not by the classes'
 * own `name`: a bundler may rename a class (the decode workers run a bundle when started from the sources).
 */
const CLASSES: ReadonlyMap<string, { prototype: object }> = new Map<string, { prototype: object }>([
  ["Program", nodes.Program],
  ["Declaration", nodes.Declaration],
  ["Constructor", nodes.Constructor],
  ["FieldBuiltinDef", nodes.FieldBuiltinDef],
  ["FieldCurlyExprDef", nodes.FieldCurlyExprDef],
  ["FieldAnonymousDef", nodes.FieldAnonymousDef],
  ["FieldNamedDef", nodes.FieldNamedDef],
  ["FieldExprDef", nodes.FieldExprDef],
  ["Combinator", nodes.Combinator],
  ["CondExpr", nodes.CondExpr],
  ["CompareExpr", nodes.CompareExpr],
  ["CellRefExpr", nodes.CellRefExpr],
  ["BuiltinOneArgExpr", nodes.BuiltinOneArgExpr],
  ["BuiltinZeroArgs", nodes.BuiltinZeroArgs],
  ["CombinatorExpr", nodes.CombinatorExpr],
  ["MathExpr", nodes.MathExpr],
  ["NegateExpr", nodes.NegateExpr],
  ["NameExpr", nodes.NameExpr],
  ["NumberExpr", nodes.NumberExpr]
])
const NAMES: ReadonlyMap<object, string> = new Map([...CLASSES].map(([name, cls]) => [cls.prototype, name]))

/** Fields that link back up or point into the source text: rebuilt (parent) or dropped (locations). */
const SKIPPED = new Set(["parent", "locations"])

export const toPlain = (value: unknown): PlainValue => {
  if (value === null || typeof value === "string" || typeof value === "number" || typeof value === "boolean") {
    return value
  }
  if (Array.isArray(value)) return value.map(toPlain)
  if (typeof value === "object") {
    const name = NAMES.get(Object.getPrototypeOf(value) as object)
    if (name === undefined) throw new Error(`scheme tree: a node of unknown class ${(value as object).constructor.name}`)
    const out: Record<string, PlainValue> = { $: name }
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) if (!SKIPPED.has(k)) out[k] = toPlain(v)
    return out as PlainNode
  }
  throw new Error(`scheme tree: a value of type ${typeof value}`)
}

/** The tree back in the parser's classes, each node's `parent` set as the parser sets it (the root's null). */
export const fromPlain = (value: PlainValue, parent: object | null = null): unknown => {
  if (value === null || typeof value !== "object") return value
  if (Array.isArray(value)) return value.map((v) => fromPlain(v as PlainValue, parent))
  const plain = value as PlainNode
  const cls = CLASSES.get(plain.$)
  if (cls === undefined) throw new Error(`scheme tree: unknown node class ${plain.$}`)
  const node = Object.create(cls.prototype) as Record<string, unknown>
  for (const [k, v] of Object.entries(plain)) if (k !== "$") node[k] = fromPlain(v, node)
  node.parent = parent
  return node
}
