/**
 * A TL-B scheme's text -> its parsed form, by @ton-community/tlb-parser: the reference for the stored tree
 * (./schemes.ast.ts), and the way to read a scheme the repository does not store. Costs 1-2 s of CPU for the body
 * scheme (the parser's ohm-js grammar), so the product's processes load the stored tree instead (./scheme.ts).
 */
import { ast } from "@ton-community/tlb-parser"
import type { ParsedScheme } from "./interpret.js"

export const parseScheme = (text: string): ParsedScheme => {
  const listed = new Map<string, string>()
  const parsable = text.replace(/^([a-z][A-Za-z0-9_]*(?:,[a-z][A-Za-z0-9_]*)+)(?=[#$])/gm, (names) => {
    const standIn = `listed_names_${listed.size}`
    listed.set(standIn, names)
    return standIn
  })
  return { program: ast(parsable), listed }
}
