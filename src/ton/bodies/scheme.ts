/**
 * The body scheme as the product loads it: the stored tree of ./schemes.ast.ts rebuilt into the parser's classes
 * (milliseconds), instead of parsing ./schemes.tlb.ts (1-2 s of CPU per process). test/unit/ton/bodyScheme.test.ts
 * holds the stored tree to the parser's tree of the text.
 */
import type { Program } from "@ton-community/tlb-parser/dist/ast/nodes.js"
import type { ParsedScheme } from "./interpret.js"
import { fromPlain, type PlainValue } from "./schemeAst.js"
import { BODY_SCHEME_AST } from "./schemes.ast.js"

/** The stored form: the tree as data and the listed constructor names (see ParsedScheme). */
export interface StoredScheme {
  readonly program: PlainValue
  readonly listed: ReadonlyArray<readonly [string, string]>
}

export const storedBodyScheme = (): ParsedScheme => {
  const stored = JSON.parse(BODY_SCHEME_AST) as StoredScheme
  return { program: fromPlain(stored.program) as Program, listed: new Map(stored.listed) }
}
