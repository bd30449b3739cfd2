/**
 * Golden files of the API tests (test/support/golden.ts over this folder's golden/): a response body compared byte
 * for byte with a committed file. Invariant: a mismatch leaves `<name>.actual.json` beside the expectation.
 */
import fs from "node:fs"
import path from "node:path"
import { fileURLToPath } from "node:url"
import { expect } from "vitest"
import { expectGoldenText } from "../../support/golden.js"

export const GOLDEN_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), "golden")

/** `body` is the exact response text; files hold it as is plus a final newline. */
export const expectGoldenBody = (name: string, body: string): void => expectGoldenText(GOLDEN_DIR, name, `${body}\n`)

/** Writes `<name>.actual.json` when a comparison against a shared real fixture fails, then asserts. */
export const expectSameBytes = (name: string, actual: string, expected: string): void => {
  const actualFile = path.join(GOLDEN_DIR, `${name}.actual.json`)
  if (actual === expected) fs.rmSync(actualFile, { force: true })
  else fs.writeFileSync(actualFile, `${actual}\n`)
  expect(actual, `${name} differs (see golden/${name}.actual.json)`).toBe(expected)
}
