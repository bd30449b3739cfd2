// A process that talks to a ClickHouse server never loads the embedded engine: importing the consumer's and the
// API's modules leaves libchdb.so (~175-190 MB resident once loaded) unmapped; opening an embedded engine maps it.
// Each side runs in a process of its own, since a loaded library stays loaded.
import { describe, expect, it } from "vitest"
import { runScript, srcUrl as src } from "../../support/scriptProcess.js"

/** Runs `body` after importing the consumer's and the API's modules; answers whether libchdb.so is mapped then. */
const chdbMappedAfter = (body: string): boolean =>
  JSON.parse(
    runScript(
      `import { readFileSync } from "node:fs"
import * as ch from ${JSON.stringify(src("clickhouse/ClickHouse.ts"))}
import * as consumer from ${JSON.stringify(src("consumer/BundleConsumer.ts"))}
import * as api from ${JSON.stringify(src("api/ApiServer.ts"))}
void consumer, api
${body}
process.stdout.write(JSON.stringify(readFileSync("/proc/self/maps", "utf8").includes("libchdb")))
`,
      { env: (dir) => ({ CHDB_DIR: dir }) }
    )
  ) as boolean

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
