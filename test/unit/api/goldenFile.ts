/**
 * Golden files of the API tests: a response body compared byte for byte with a committed file.
 * Invariant: a mismatch leaves `<name>.actual.json` beside the expectation for review; UPDATE_GOLDEN=1
 * rewrites the expectation instead (run it only after reviewing the difference).
 */
import fs from "node:fs"
import path from "node:path"
import { fileURLToPath } from "node:url"
import { expect } from "vitest"

export const GOLDEN_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), "golden")

/** `body` is the exact response text; files hold it as is plus a final newline. */
export const expectGoldenBody = (name: string, body: string): void => {
  const file = path.join(GOLDEN_DIR, `${name}.json`)
  const actualFile = path.join(GOLDEN_DIR, `${name}.actual.json`)
  const text = `${body}\n`
  if (process.env.UPDATE_GOLDEN === "1") {
    fs.writeFileSync(file, text)
    fs.rmSync(actualFile, { force: true })
    return
  }
  const expected = fs.existsSync(file) ? fs.readFileSync(file, "utf8") : null
  if (expected === text) fs.rmSync(actualFile, { force: true })
  else fs.writeFileSync(actualFile, text)
  expect(expected, `golden ${name}.json differs (see ${name}.actual.json)`).toBe(text)
}

/** Writes `<name>.actual.json` when a comparison against a shared real fixture fails, then asserts. */
export const expectSameBytes = (name: string, actual: string, expected: string): void => {
  const actualFile = path.join(GOLDEN_DIR, `${name}.actual.json`)
  if (actual === expected) fs.rmSync(actualFile, { force: true })
  else fs.writeFileSync(actualFile, `${actual}\n`)
  expect(actual, `${name} differs (see golden/${name}.actual.json)`).toBe(expected)
}
