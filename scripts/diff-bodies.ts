// Our message-body decoder against toncenter's ton-marker, body by body.
//
//   npm run diff:bodies                                  compare with the recorded fixture (no C++ needed)
//   npm run diff:bodies -- --fixture FILE                the same with another recording
//   npm run diff:bodies -- --cli PATH [--gen DIR]        run a built ton-marker-cli over every body of the block
//                                                        fixtures, the bodies of tools/markerParity/constructed.ts
//                                                        (and of a generated chain's bundles) and compare
//   npm run diff:bodies -- --cli PATH --fuzz N [--seed S]   the same with N random bodies of tools/markerParity/fuzzed.ts
//   npm run diff:bodies -- --cli PATH --mutate N [--seed S] the same with N damaged copies of those bodies
//   npm run diff:bodies -- --fixture FILE --save-cases /dev/null     (--save-cases writes every case it compared)
//   npm run diff:bodies -- --cli PATH [--gen DIR] --record FILE [--per-kind N] [--provenance JSON]
//                                                        the same, then write the N smallest cases of each
//                                                        (opcode, outcome) kind and every constructed body as a
//                                                        fixture for the unit test
// Prints the tallies and every disagreement; exits 1 if there is any.
import { execFileSync } from "node:child_process"
import fs from "node:fs"
import path from "node:path"
import { fileURLToPath } from "node:url"
import { parseArgs } from "node:util"
import type { Cell } from "@ton/core"
import {
  bodyBoc,
  compareCase,
  type Difference,
  fixtureBodies,
  generatedBodies,
  type MarkerCase,
  type MarkerFixture,
  markerAsServed,
  opcodeHex
} from "../tools/markerParity/parity.js"
import { constructedBodies } from "../tools/markerParity/constructed.js"
import { fuzzedBodies, mutatedBodies } from "../tools/markerParity/fuzzed.js"

const here = path.dirname(fileURLToPath(import.meta.url))
const DEFAULT_FIXTURE = path.join(here, "../test/fixtures/ton/marker/marker-outputs.json")
const { values } = parseArgs({
  options: {
    fixture: { type: "string", default: DEFAULT_FIXTURE },
    cli: { type: "string" },
    gen: { type: "string", multiple: true, default: [] },
    fuzz: { type: "string", default: "0" },
    mutate: { type: "string", default: "0" },
    seed: { type: "string", default: "1" },
    record: { type: "string" },
    "per-kind": { type: "string", default: "3" },
    provenance: { type: "string" },
    "save-cases": { type: "string" }
  }
})

/** Runs the CLI over the bodies in batches; one output line per request, in request order. */
const runCli = (cli: string, bodies: ReadonlyArray<{ source: string; cell: Cell }>): Array<MarkerCase> => {
  const out: Array<MarkerCase> = []
  const BATCH = 200
  for (let i = 0; i < bodies.length; i += BATCH) {
    const chunk = bodies.slice(i, i + BATCH)
    const args: Array<string> = []
    const bocs = chunk.map((b) => bodyBoc(b.cell))
    for (let j = 0; j < chunk.length; j++) {
      const op = opcodeHex(chunk[j]!.cell)
      if (op !== null) args.push("-o", op)
      args.push("-b", Buffer.from(bocs[j]!, "base64").toString("hex"))
    }
    let stdout: string
    try {
      stdout = execFileSync(cli, args, { encoding: "utf8", maxBuffer: 1 << 28 })
    } catch (e) {
      // The CLI exits 1 when a request threw; its lines are still all printed.
      stdout = (e as { stdout?: string }).stdout ?? ""
    }
    const lines = stdout.split("\n")
    let k = 0
    for (let j = 0; j < chunk.length; j++) {
      const op = opcodeHex(chunk[j]!.cell)
      const markerOpcode = op !== null ? lines[k++]! : null
      const marker = lines[k++]!
      if (marker === undefined) throw new Error(`ton-marker-cli printed too few lines for batch at ${i}`)
      out.push({ source: chunk[j]!.source, boc: bocs[j]!, opcode: op, markerOpcode, marker })
    }
  }
  return out
}

let cases: ReadonlyArray<MarkerCase>
if (values.cli !== undefined) {
  const bodies = [
    ...fixtureBodies(path.join(here, "../test/fixtures/real")),
    ...constructedBodies(),
    ...values.gen!.flatMap((d) => generatedBodies(d)),
    ...fuzzedBodies(Number(values.fuzz), Number(values.seed))
  ]
  // Damaged copies of the fixture and constructed bodies (small ones: a mutated BOC goes on the command line).
  const small = bodies.filter((b) => b.cell.bits.length >= 32).map((b) => b.cell).filter((c) => bodyBoc(c).length < 3000)
  bodies.push(...mutatedBodies(small, Number(values.mutate), Number(values.seed)))
  console.log(`running ${values.cli} over ${bodies.length} distinct bodies`)
  cases = runCli(values.cli, bodies)
} else {
  const fixture = JSON.parse(fs.readFileSync(values.fixture!, "utf8")) as MarkerFixture
  console.log(`recorded outputs: ${values.fixture} (${fixture.cases.length} cases)`)
  for (const [k, v] of Object.entries(fixture.provenance)) console.log(`  ${k}: ${v}`)
  cases = fixture.cases
}

if (values["save-cases"] !== undefined) fs.writeFileSync(values["save-cases"], JSON.stringify(cases))

const kindOf = (c: MarkerCase): string => {
  const served = markerAsServed(c.marker)
  const outcome = served === null ? "null" : typeof served === "object" ? String((served as any)["@type"]) : "value"
  return `${c.opcode ?? "short"} ${outcome}`
}

const diffs: Array<Difference> = []
const kinds = new Map<string, number>()
for (const c of cases) {
  diffs.push(...compareCase(c))
  kinds.set(kindOf(c), (kinds.get(kindOf(c)) ?? 0) + 1)
}
const decodedByMarker = cases.filter((c) => markerAsServed(c.marker) !== null).length
console.log(`${cases.length} bodies, ${decodedByMarker} decoded by the marker, ${kinds.size} (opcode, outcome) kinds`)
console.log(`${diffs.filter((d) => d.what === "decoded").length} decoded disagreements, ` +
  `${diffs.filter((d) => d.what === "decoded_opcode").length} decoded_opcode disagreements`)
for (const d of diffs.slice(0, 30)) {
  console.log(`\n${d.what} of ${d.source}\n  boc    ${d.boc}\n  ours   ${d.ours}\n  marker ${d.marker}`)
}

if (values.record !== undefined) {
  // The smallest cases of each kind keep the file small (bodies over 100,000 characters stay out); a kind whose
  // smallest body is large gets only that one.
  const perKind = Number(values["per-kind"])
  const size = (c: MarkerCase) => c.boc.length + c.marker.length
  const byKind = new Map<string, Array<MarkerCase>>()
  for (const c of cases) {
    if (size(c) > 100_000) continue
    // Bodies the marker neither names nor decodes (signatures, random data) are one kind per reason it gives ("no
    // parser succeeded", "vm error", ...), whatever their first bits.
    const reason = c.marker.replace(/ - .*$/, "").replace(/ \d+$/, "")
    const k = c.markerOpcode?.startsWith("unknown") && markerAsServed(c.marker) === null ? `unnamed ${reason}` : kindOf(c)
    byKind.set(k, [...(byKind.get(k) ?? []), c])
  }
  const keep = new Set<MarkerCase>()
  for (const list of byKind.values()) {
    const sorted = [...list].sort((a, b) => size(a) - size(b))
    sorted.slice(0, size(sorted[0]!) > 20_000 ? 1 : perKind).forEach((c) => keep.add(c))
  }
  // Constructed bodies each exercise one rule: all of them are kept.
  const picked = cases.filter((c) => keep.has(c) || c.source.startsWith("constructed: "))
  const provenance = values.provenance !== undefined ? (JSON.parse(values.provenance) as Record<string, string>) : {}
  const fixture: MarkerFixture = { provenance, cases: picked }
  fs.mkdirSync(path.dirname(values.record), { recursive: true })
  fs.writeFileSync(values.record, JSON.stringify(fixture, null, 1) + "\n")
  console.log(`\nwrote ${picked.length} cases to ${values.record}`)
}
process.exit(diffs.length > 0 ? 1 : 0)
