// A process that talks to a ClickHouse server never loads the embedded engine: importing the consumer's and the
// API's modules leaves libchdb.so (~175-190 MB resident once loaded) unmapped; opening an embedded engine maps it.
// Each side runs in a process of its own, since a loaded library stays loaded.
import { spawnSync } from "node:child_process"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { pathToFileURL } from "node:url"
import { describe, expect, it } from "vitest"

const src = (path: string) => pathToFileURL(resolve(import.meta.dirname, "../../../src", path)).href

/** Runs `body` after importing the consumer's and the API's modules; answers whether libchdb.so is mapped then. */
const chdbMappedAfter = (body: string): boolean => {
  const dir = mkdtempSync(join(tmpdir(), "lazy-engine-"))
  try {
    const script = join(dir, "probe.mts")
    writeFileSync(
      script,
      `import { readFileSync } from "node:fs"
import * as ch from ${JSON.stringify(src("clickhouse/ClickHouse.ts"))}
import * as consumer from ${JSON.stringify(src("consumer/BundleConsumer.ts"))}
import * as api from ${JSON.stringify(src("api/ApiServer.ts"))}
void consumer, api
${body}
process.stdout.write(JSON.stringify(readFileSync("/proc/self/maps", "utf8").includes("libchdb")))
`
    )
    const run = spawnSync(process.execPath, ["--import", "tsx", script], { encoding: "utf8", env: { ...process.env, CHDB_DIR: dir } })
    expect(run.status, run.stderr).toBe(0)
    return JSON.parse(run.stdout) as boolean
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

describe("the embedded engine's library", () => {
  it("is not loaded by importing the consumer and the API", () => {
    expect(chdbMappedAfter("")).toBe(false)
  }, 60_000)

  it("is loaded once an embedded engine opens", () => {
    const open = `const handle = await ch.makeClickHouseClient({ url: undefined, user: "default", password: "", dataDir: process.env.CHDB_DIR + "/chdb", database: "default" })
await handle.client.close()`
    expect(chdbMappedAfter(open)).toBe(true)
  }, 60_000)
})
