/**
 * The one golden-file comparison of the tests: `text` against `<dir>/<name>.json`, byte for byte.
 * Invariant: a mismatch leaves `<name>.actual.json` beside the expectation for review (and a match removes a stale
 * one); UPDATE_GOLDEN=1 rewrites the expectation instead (run it only after reviewing the difference).
 */
import fs from "node:fs"
import path from "node:path"
import { expect } from "vitest"

export const expectGoldenText = (dir: string, name: string, text: string): void => {
  const file = path.join(dir, `${name}.json`)
  const actualFile = path.join(dir, `${name}.actual.json`)
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
