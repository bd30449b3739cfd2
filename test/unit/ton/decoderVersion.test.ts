/**
 * The decoder version (src/ton/bodies/version.ts) against what the decoder prints: the fingerprint of the decoded
 * outputs of every recorded marker case and every body of the real block fixtures, and of the opcode-name table,
 * must equal the newest release's. A change of any of them without a new release fails here, so stores written
 * by the previous decoder are never left with its outputs (src/store/redecode.ts re-decodes them on a newer version).
 */
import { Cell } from "@ton/core"
import { createHash } from "node:crypto"
import fs from "node:fs"
import path from "node:path"
import { fileURLToPath } from "node:url"
import { describe, expect, it } from "vitest"
import { decodeBody, knownOpcodes, opcodeName } from "../../../src/ton/bodies/decode.js"
import { BODY_DECODER_VERSION, DECODER_RELEASES } from "../../../src/ton/bodies/version.js"
import { goJsonStringify } from "../../../src/ton/v3.js"
import { fixtureBodies, type MarkerFixture } from "../../../tools/markerParity/parity.js"

const here = path.dirname(fileURLToPath(import.meta.url))
const fixtures = path.resolve(here, "../../fixtures")
const marker = JSON.parse(
  fs.readFileSync(path.join(fixtures, "ton/marker/marker-outputs.json"), "utf8")
) as MarkerFixture

/** One line per body (opcode name, decoded JSON as stored) and per known opcode, in a fixed order. */
const fingerprintText = (): string => {
  const lines: Array<string> = []
  const body = (cell: Cell) => {
    const op = cell.bits.length >= 32 ? cell.beginParse(true).preloadUint(32) : null
    const decoded = decodeBody(cell)
    lines.push(
      `${cell.hash().toString("hex")}\t${opcodeName(op)}\t${decoded === null ? "null" : goJsonStringify(decoded)}`
    )
  }
  for (const c of marker.cases) body(Cell.fromBase64(c.boc))
  for (const b of fixtureBodies(path.join(fixtures, "real"))) body(b.cell)
  for (const [op, name] of [...knownOpcodes()].sort((a, b) => a[0] - b[0])) lines.push(`op\t${op}\t${name}`)
  return lines.join("\n")
}

const fingerprint = (text: string) => createHash("sha256").update(text).digest("hex")

describe("body decoder version", () => {
  it("the releases are in order: versions increase by one, fingerprints all differ", () => {
    expect(DECODER_RELEASES.length).toBeGreaterThan(0)
    DECODER_RELEASES.forEach((r, i) => expect(r.version).toBe(i + 1))
    expect(new Set(DECODER_RELEASES.map((r) => r.fingerprint)).size).toBe(DECODER_RELEASES.length)
    expect(BODY_DECODER_VERSION).toBe(DECODER_RELEASES.length)
  })

  it("the decoder prints what the newest release recorded (else: append a release to src/ton/bodies/version.ts)", () => {
    const text = fingerprintText()
    // Enough bodies that a changed constructor shows: every marker case and every real fixture body.
    expect(text.split("\n").length).toBeGreaterThan(marker.cases.length + knownOpcodes().size)
    const now = fingerprint(text)
    const newest = DECODER_RELEASES[DECODER_RELEASES.length - 1]!
    expect(
      now,
      `the decoder's outputs changed: append { version: ${newest.version + 1}, fingerprint: "${now}", note: "..." } ` +
        "to DECODER_RELEASES in src/ton/bodies/version.ts (stores are re-decoded at their next start)"
    ).toBe(newest.fingerprint)
  })
})
