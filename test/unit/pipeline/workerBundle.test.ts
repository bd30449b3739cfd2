// The decode worker's script is one bundled module both ways a pool starts it: from the sources (DecodePool through
// bundleDecodeWorker) and from the build (`npm run build` and the runnables' pre-hook run scripts/bundle-worker.mjs,
// whose file the compiled pool starts). The bundle imports nothing but Node's built-ins and @ton/* (which fastHash
// patches in node_modules): every other package, `effect` first, is inside it, tree-shaken, so a worker no longer
// loads the whole `effect` package that a barrel import names.
import { readFileSync } from "node:fs"
import { fileURLToPath } from "node:url"
import { describe, expect, it } from "vitest"
import { bundleDecodeWorker } from "../../../src/producer/workerBundle.js"

const root = fileURLToPath(new URL("../../../", import.meta.url))

/** The modules a bundle's top-level import statements name. */
const imported = (code: string): Array<string> =>
  [...code.matchAll(/^import\s+(?:[^'";]*?\s+from\s+)?["']([^"']+)["']/gm)].map((m) => m[1]!)

describe("the decode worker's bundle", () => {
  it("holds every module but Node's built-ins and @ton/*, effect's tree-shaken", async () => {
    const code = await bundleDecodeWorker(`${root}src/producer/decodeWorker.ts`)
    const names = imported(code)
    expect(names.length).toBeGreaterThan(0)
    expect(names.filter((n) => !n.startsWith("node:") && !n.startsWith("@ton/"))).toEqual([])
    // effect's modules that the worker never uses are left out (its barrel would load Stream, Layer, Schedule ...)
    expect(code).not.toMatch(/\/\/ node_modules\/effect\/dist\/esm\/Stream\.js/)
    expect(code).toMatch(/\/\/ node_modules\/effect\/dist\/esm\/Either\.js/)
  }, 60_000)

  it("is what the build writes beside the compiled pool and what the runnables' pre-hook rebuilds", () => {
    const pkg = JSON.parse(readFileSync(`${root}package.json`, "utf8")) as { scripts: Record<string, string> }
    expect(pkg.scripts.build).toBe("tsc -p tsconfig.build.json && node scripts/bundle-worker.mjs")
    expect(readFileSync(`${root}scripts/build-if-stale.mjs`, "utf8")).toContain('join(root, "scripts", "bundle-worker.mjs")')
  })
})
