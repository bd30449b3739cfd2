/**
 * Shared helpers for the TON unit tests: reading the real fixtures, turning a decode result into a value or a
 * failure, and golden files (a mismatch writes `<name>.actual.json` beside the committed expectation).
 */
import fs from "node:fs"
import path from "node:path"
import { fileURLToPath } from "node:url"
import { Either } from "effect"
import type { DecodeError } from "../../../src/ton/errors.js"
import { expectGoldenText } from "../../support/golden.js"

const here = path.dirname(fileURLToPath(import.meta.url))
export const REAL = path.resolve(here, "../../fixtures/real")
export const GOLDEN = path.resolve(here, "../../fixtures/ton/golden")

export const readReal = (rel: string): string => fs.readFileSync(path.join(REAL, rel), "utf8")
export const readRealJson = <T = any>(rel: string): T => JSON.parse(readReal(rel)) as T
export const listReal = (rel: string): Array<string> => fs.readdirSync(path.join(REAL, rel)).sort()

export const ok = <A>(e: Either.Either<A, DecodeError>): A => {
  if (Either.isLeft(e)) throw new Error(`unexpected DecodeError ${e.left.reason}: ${e.left.message}`)
  return e.right
}

export const err = <A>(e: Either.Either<A, DecodeError>): DecodeError => {
  if (Either.isRight(e)) throw new Error("expected a DecodeError, got a value")
  return e.left
}

/**
 * Compares `actual` with the committed golden file byte for byte (2-space JSON). With UPDATE_GOLDEN=1 a missing or
 * different file is (re)written instead; otherwise a mismatch leaves `<name>.actual.json` for review.
 */
export const expectGolden = (name: string, actual: unknown): void =>
  expectGoldenText(GOLDEN, name, JSON.stringify(actual, null, 2) + "\n")

/** Single-quoted YAML scalars of the recorded HTTP cassettes: folded line breaks become spaces, '' becomes '. */
export const yamlResponseBodies = (yaml: string): Array<string> => {
  const out: Array<string> = []
  const lines = yaml.split("\n")
  for (let i = 0; i < lines.length; i++) {
    const m = /^\s*string: '(.*)$/.exec(lines[i]!)
    if (m === null) continue
    let buf = m[1]!
    const closed = (s: string) => /(^|[^'])('')*'$/.test(s)
    while (!closed(buf)) buf += " " + lines[++i]!.trim()
    out.push(buf.slice(0, -1).replace(/''/g, "'"))
  }
  return out
}
