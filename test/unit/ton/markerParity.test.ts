/**
 * Our body decoder against ton-marker's own outputs, recorded in test/fixtures/ton/marker/marker-outputs.json (see
 * the README there for what produced them). Every recorded body must decode to exactly what the API serves for the
 * marker's line (same keys in the same order, same strings), and its opcode must get the marker's name.
 */
import fs from "node:fs"
import path from "node:path"
import { fileURLToPath } from "node:url"
import { describe, expect, it } from "vitest"
import {
  compareCase,
  type MarkerFixture,
  markerAsServed,
  markerOpcodeAsServed
} from "../../../tools/markerParity/parity.js"

const here = path.dirname(fileURLToPath(import.meta.url))
const fixture = JSON.parse(
  fs.readFileSync(path.resolve(here, "../../fixtures/ton/marker/marker-outputs.json"), "utf8")
) as MarkerFixture

describe("the marker's lines as the API serves them", () => {
  it("an unknown line or one that is not JSON is null; a top-level text comment gets the back-compatible shape; others are kept as printed", () => {
    expect(markerAsServed("unknown: no parser succeeded")).toBeNull()
    expect(markerAsServed('{"@type":"w5_external_signed_request","request":{"@type":"w5_external_signed_request"}')).toBeNull()
    expect(markerAsServed('{"@type":"text_comment","text":"hi"}')).toEqual({
      "@type": "text_comment",
      comment: "hi",
      type: "text_comment"
    })
    expect(Object.keys(markerAsServed('{"@type":"x","b":"1","a":"2"}') as object)).toEqual(["@type", "b", "a"])
    expect(markerOpcodeAsServed("unknown")).toBeNull()
    expect(markerOpcodeAsServed("excess")).toBe("excess")
  })
})

/**
 * Constructors the marker decodes and we do not yet (their bodies, or bodies nested in a wallet message, are null
 * or a BOC on our side). A case may differ only by these: every "@type" the marker printed and we did not must be
 * listed here, and the list must stay exact (an entry no case needs is an error too). Empty: every recorded case
 * must match exactly.
 */
const NOT_YET_DECODED = new Set<string>([])

/**
 * Ours against the marker's value with the constructors above let through: where the marker printed one of them,
 * we must have left the cell undecoded (its BOC, or null for the whole body); everything else must be equal, keys
 * in the same order. Returns the constructors that were let through.
 */
const matchUpTo = (ours: unknown, marker: unknown, path: string, seen: Set<string>): void => {
  if (marker !== null && typeof marker === "object") {
    const t = (marker as Record<string, unknown>)["@type"]
    if (typeof t === "string" && NOT_YET_DECODED.has(t)) {
      expect(ours === null || (typeof ours === "string" && ours.startsWith("te6c")), `${path}: ${JSON.stringify(ours)}`).toBe(true)
      seen.add(t)
      return
    }
    expect(ours !== null && typeof ours === "object", `${path}: ${JSON.stringify(ours)} vs ${JSON.stringify(marker)}`).toBe(true)
    const o = ours as Record<string, unknown>
    expect(Object.keys(o), path).toEqual(Object.keys(marker))
    for (const [k, v] of Object.entries(marker)) matchUpTo(o[k], v, `${path}.${k}`, seen)
    return
  }
  expect(ours, path).toEqual(marker)
}

describe("recorded ton-marker outputs", () => {
  it("cover decoded bodies of many opcodes and bodies the marker leaves undecoded", () => {
    const decoded = fixture.cases.filter((c) => markerAsServed(c.marker) !== null)
    const opcodes = new Set(decoded.map((c) => c.opcode))
    expect(decoded.length).toBeGreaterThan(20)
    expect(opcodes.size).toBeGreaterThan(10)
    expect(fixture.cases.some((c) => markerAsServed(c.marker) === null)).toBe(true)
  })

  const needed = new Set<string>()
  for (const c of fixture.cases) {
    it(`${c.opcode ?? "short body"} from ${c.source}`, () => {
      const diffs = compareCase(c)
      if (diffs.length === 0) return
      expect(diffs.map((d) => d.what)).toEqual(["decoded"])
      const seen = new Set<string>()
      matchUpTo(JSON.parse(diffs[0]!.ours), markerAsServed(c.marker), "decoded", seen)
      expect(seen.size).toBeGreaterThan(0)
      for (const t of seen) needed.add(t)
    })
  }

  it("lists exactly the constructors still missing", () => {
    expect([...needed].sort()).toEqual([...NOT_YET_DECODED].sort())
  })
})
