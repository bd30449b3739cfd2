import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { runnableCommand } from "../../../bench/lib/runnable.js"

describe("runnableCommand", () => {
  const dir = mkdtempSync(join(tmpdir(), "runnable-flags-"))
  afterAll(() => rmSync(dir, { recursive: true, force: true }))
  writeFileSync(
    join(dir, "package.json"),
    JSON.stringify({
      scripts: {
        plain: "node dist/pipelines/consumer.js",
        flagged: "node --max-semi-space-size=4 --stack-trace-limit=50 dist/pipelines/producer.js --mode backfill",
        withEnv: "A_B=1 C=x=y node --max-semi-space-size=4 dist/pipelines/producer.js",
        other: "tsx bench/ingest.ts",
        noFile: "node --version"
      }
    })
  )

  it("gives the words between node and the script's file, and the file, not the script's own arguments", () => {
    expect(runnableCommand("plain", dir)).toEqual({ env: {}, flags: [], file: "dist/pipelines/consumer.js" })
    expect(runnableCommand("flagged", dir)).toEqual({
      env: {},
      flags: ["--max-semi-space-size=4", "--stack-trace-limit=50"],
      file: "dist/pipelines/producer.js"
    })
  })

  it("gives the variables set before node as its environment", () => {
    expect(runnableCommand("withEnv", dir)).toEqual({
      env: { A_B: "1", C: "x=y" },
      flags: ["--max-semi-space-size=4"],
      file: "dist/pipelines/producer.js"
    })
  })

  it("refuses a script that is missing, not started with node or naming no file", () => {
    expect(() => runnableCommand("other", dir)).toThrow(/not a "node/)
    expect(() => runnableCommand("missing", dir)).toThrow(/not a "node/)
    expect(() => runnableCommand("noFile", dir)).toThrow(/no file/)
  })

  it("starts the producer from its bundle, as `npm run producer` does", () => {
    expect(runnableCommand("producer", join(import.meta.dirname, "../../..")).file).toBe("dist/pipelines/producer.bundle.js")
  })
})
