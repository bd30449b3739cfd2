// The decode worker's script is one bundled module both ways a pool starts it: from the sources (DecodePool through
// bundleDecodeWorker) and from the build (`npm run build` and the runnables' pre-hook run scripts/build.mjs, whose
// worker bundle the compiled pool starts). The bundle imports nothing but Node's built-ins and @ton/* (which fastHash
// patches in node_modules): every other package, `effect` first, is inside it, tree-shaken, so a worker no longer
// loads the whole `effect` package that a barrel import names. The producer runnable is one bundled module the same
// way (bundleRunnable), with the packages its main thread patches or requires by path left to node_modules, and its
// npm script starts that bundle.
import { spawnSync } from "node:child_process"
import { mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { describe, expect, it } from "vitest"
import { builtWorkerScript } from "../../../src/producer/DecodePool.js"
import {
  bundleDecodeWorker,
  bundleRunnable,
  RUNNABLE_BUNDLES,
  RUNNABLE_EXTERNAL,
  writeBundle
} from "../../../src/producer/workerBundle.js"

const root = fileURLToPath(new URL("../../../", import.meta.url))
const pkg = JSON.parse(readFileSync(`${root}package.json`, "utf8")) as { scripts: Record<string, string> }

/** The modules a bundle's top-level import statements name (one statement a line, or `;`-separated in one line). */
const imported = (code: string): Array<string> =>
  [...code.matchAll(/(?:^|;)import\s*(?:[^'";]*?\s*from\s*)?["']([^"']+)["']/gm)].map((m) => m[1]!)

/** Whether `name` is a package `externals` leaves out (exactly, or under a `pkg/*` or `@scope/*` pattern). */
const leftOut = (name: string, externals: ReadonlyArray<string>) =>
  externals.some((e) => (e.endsWith("/*") ? name.startsWith(e.slice(0, -1)) : name === e))

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

  it("is found in dist/ by compiled code, and a missing one says to build", () => {
    const empty = mkdtempSync(join(tmpdir(), "no-build-"))
    try {
      expect(() => builtWorkerScript(empty)).toThrow(/decodeWorker\.bundle\.js is missing: run `npm run build`/)
    } finally {
      rmSync(empty, { recursive: true, force: true })
    }
  })
})

describe("the producer runnable's bundle", () => {
  it("imports only Node's built-ins and the packages left to node_modules, in ASCII, and starts", async () => {
    const code = await bundleRunnable(`${root}pipelines/producer.ts`)
    const names = imported(code)
    expect(names).toContain("kafkajs")
    expect(names.filter((n) => !n.startsWith("node:") && !leftOut(n, RUNNABLE_EXTERNAL))).toEqual([])
    // V8 keeps the source text for the thread's life: one byte a character only when all of it is ASCII
    expect(/[^\x00-\x7f]/.test(code)).toBe(false)
    // it runs beside the project's node_modules, as dist/pipelines/producer.bundle.js does: --help loads every module
    const dir = mkdtempSync(join(root, ".cache", "producer-bundle-"))
    try {
      const file = join(dir, "producer.bundle.js")
      writeBundle(file, code)
      const run = spawnSync(process.execPath, [file, "--help"], { cwd: root, encoding: "utf8", timeout: 60_000 })
      expect(run.stderr).toBe("")
      expect(run.status).toBe(0)
      expect(run.stdout).toMatch(/^usage: npm run producer/)
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  }, 120_000)

  it("is what `npm run producer` starts", () => {
    expect(RUNNABLE_BUNDLES).toContainEqual(["pipelines/producer.js", "pipelines/producer.bundle.js"])
    expect(pkg.scripts.producer).toBe("node dist/pipelines/producer.bundle.js")
  })
})

describe("the build", () => {
  it("is one list of steps: `npm run build` and the runnables' pre-hook both run scripts/build.mjs", () => {
    expect(pkg.scripts.build).toBe("node scripts/build.mjs")
    const stale = readFileSync(`${root}scripts/build-if-stale.mjs`, "utf8")
    expect(stale).toContain('join(root, "scripts", "build.mjs")')
    // no step of its own: neither the compiler nor a bundle named there
    expect(stale).not.toMatch(/"tsc"|typescript|bundleDecodeWorker|bundleRunnable|bundle-worker/)
    const build = readFileSync(`${root}scripts/build.mjs`, "utf8")
    expect(build).toContain("tsconfig.build.json")
    expect(build).toContain("bundleRunnable")
    expect(build).toContain("bundleDecodeWorker")
  })
})
