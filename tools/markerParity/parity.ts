/**
 * Our body decoder against outputs recorded from toncenter's ton-marker (its CLI, `ton-marker-cli -o 0x<op> -b <boc>`,
 * which runs the same `decode_boc_recursive` and `decode_opcode` as the library the v3 API links).
 *
 * The marker prints one line per request: a JSON object, or a line starting with "unknown" when it does not decode.
 * The API (ton-index-go's detect/marker.go) serves an "unknown…" line, and one that is not JSON, as null, a top-level
 * text comment as {"@type":"text_comment","comment":…,"type":"text_comment"} (Go's map marshalling, keys sorted), and
 * every other object as the marker printed it, field order kept. `markerAsServed` applies those rules, so a recorded line and
 * our `decodeBody` are compared exactly as the API would serve them: same keys, same order, same strings.
 */
import { Cell, loadTransaction } from "@ton/core"
import fs from "node:fs"
import path from "node:path"
import { decodeBody, opcodeName } from "../../src/ton/bodies/decode.js"
import { serializeBoc } from "../../src/ton/boc.js"

/** One recorded case: the body, and what the marker printed for its opcode and for the body. */
export interface MarkerCase {
  /** Where the body comes from (fixture file and transaction, generated chain, or a constructed body). */
  readonly source: string
  /** The body as a base64 BOC. */
  readonly boc: string
  /** First 32 bits as 0x%08x, null for a body shorter than 32 bits. */
  readonly opcode: string | null
  /** The marker's `-o` line for that opcode (a name, or "unknown"), null without an opcode. */
  readonly markerOpcode: string | null
  /** The marker's `-b` line for the body, verbatim. */
  readonly marker: string
}

export interface MarkerFixture {
  readonly provenance: Record<string, string>
  readonly cases: ReadonlyArray<MarkerCase>
}

type Json = null | string | number | boolean | ReadonlyArray<Json> | { readonly [k: string]: Json }

/** The `decoded` value the API serves for a marker line (detect/marker.go's rules). */
export const markerAsServed = (line: string): Json => {
  if (line.startsWith("unknown")) return null
  let v: Json
  try {
    v = JSON.parse(line) as Json
  } catch {
    // A line that is not JSON (a v5 request its parser failed half-way) is logged and left null by marker.go.
    return null
  }
  if (v !== null && typeof v === "object" && !Array.isArray(v)) {
    const o = v as { readonly [k: string]: Json }
    if (o["@type"] === "text_comment" && typeof o["text"] === "string") {
      return { "@type": "text_comment", comment: o["text"], type: "text_comment" }
    }
  }
  return v
}

/** The `decoded_opcode` the API serves for a marker `-o` line. */
export const markerOpcodeAsServed = (line: string | null): string | null =>
  line === null || line.startsWith("unknown") ? null : line

export interface Difference {
  readonly source: string
  readonly boc: string
  readonly what: "decoded" | "decoded_opcode"
  readonly ours: string
  readonly marker: string
}

const opcodeOf = (cell: Cell): number | null => (cell.bits.length >= 32 ? cell.beginParse(true).preloadUint(32) : null)

/** Compares one case; the JSON texts are compared, so key order counts as it does for the API's bytes. */
export const compareCase = (c: MarkerCase): Array<Difference> => {
  const cell = Cell.fromBase64(c.boc)
  const out: Array<Difference> = []
  const ours = JSON.stringify(decodeBody(cell))
  const theirs = JSON.stringify(markerAsServed(c.marker))
  if (ours !== theirs) out.push({ source: c.source, boc: c.boc, what: "decoded", ours, marker: theirs })
  const op = opcodeOf(cell)
  if (op !== null) {
    const oursOp = JSON.stringify(opcodeName(op))
    const theirsOp = JSON.stringify(markerOpcodeAsServed(c.markerOpcode))
    if (oursOp !== theirsOp) out.push({ source: c.source, boc: c.boc, what: "decoded_opcode", ours: oursOp, marker: theirsOp })
  }
  return out
}

export const opcodeHex = (cell: Cell): string | null => {
  const op = opcodeOf(cell)
  return op === null ? null : "0x" + op.toString(16).padStart(8, "0")
}

/** A body as the base64 BOC the records carry (CRC32C, node cell order). */
export const bodyBoc = (cell: Cell): string => serializeBoc(cell).toString("base64")

/** Every message body of the real block fixtures (`<dir>/blocks/*.txs.json`), first occurrence of each. */
export const fixtureBodies = (realDir: string): Array<{ source: string; cell: Cell }> => {
  const out: Array<{ source: string; cell: Cell }> = []
  const seen = new Set<string>()
  const dir = path.join(realDir, "blocks")
  for (const f of fs.readdirSync(dir).filter((x) => x.endsWith(".txs.json")).sort()) {
    const j = JSON.parse(fs.readFileSync(path.join(dir, f), "utf8")) as { transactions: Array<{ hash_b64: string; boc_b64: string }> }
    for (const t of j.transactions) {
      const tx = loadTransaction(Cell.fromBase64(t.boc_b64).beginParse())
      const msgs = [tx.inMessage, ...tx.outMessages.values()]
      for (const m of msgs) {
        if (!m) continue
        const h = m.body.hash().toString("hex")
        if (seen.has(h)) continue
        seen.add(h)
        out.push({ source: `blocks/${f} tx ${t.hash_b64}`, cell: m.body })
      }
    }
  }
  return out
}

/** Every message body of a generated chain's bundles (`npm run generate`), first occurrence of each. */
export const generatedBodies = (genDir: string): Array<{ source: string; cell: Cell }> => {
  const out: Array<{ source: string; cell: Cell }> = []
  const seen = new Set<string>()
  for (const f of fs.readdirSync(genDir).filter((x) => x.startsWith("bundles-") && x.endsWith(".jsonl")).sort()) {
    for (const line of fs.readFileSync(path.join(genDir, f), "utf8").split("\n")) {
      if (line.trim() === "") continue
      const bundle = JSON.parse(line) as { transactions: Array<{ hash: string; boc: string }> }
      for (const t of bundle.transactions) {
        const tx = loadTransaction(Cell.fromBase64(t.boc).beginParse())
        for (const m of [tx.inMessage, ...tx.outMessages.values()]) {
          if (!m) continue
          const h = m.body.hash().toString("hex")
          if (seen.has(h)) continue
          seen.add(h)
          out.push({ source: `generated ${path.basename(genDir)} tx ${t.hash}`, cell: m.body })
        }
      }
    }
  }
  return out
}
