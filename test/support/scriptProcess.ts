// Tests whose subject is process-wide (a V8 flag, a loaded library, what one scavenge frees) run a script in a Node
// process of their own: one module written to a temporary directory, run with tsx, its standard output returned.
import { spawnSync } from "node:child_process"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { pathToFileURL } from "node:url"
import { expect } from "vitest"

/** The file URL of a project source module (`srcUrl("ops/release.ts")`), for a script's imports. */
export const srcUrl = (path: string): string => pathToFileURL(resolve(import.meta.dirname, "../../src", path)).href

/**
 * Runs `source` as a TypeScript module (`node [nodeArgs] --import tsx`) in a directory of its own, removed afterwards
 * (`env` may name it, e.g. as a data directory); fails the test when the process exits other than 0, with its standard
 * error. Returns its standard output.
 */
export const runScript = (
  source: string,
  o: { readonly nodeArgs?: ReadonlyArray<string>; readonly env?: (dir: string) => Record<string, string> } = {}
): string => {
  const dir = mkdtempSync(join(tmpdir(), "script-process-"))
  try {
    const script = join(dir, "script.mts")
    writeFileSync(script, source)
    const run = spawnSync(process.execPath, [...(o.nodeArgs ?? []), "--import", "tsx", script], {
      encoding: "utf8",
      env: o.env === undefined ? process.env : { ...process.env, ...o.env(dir) }
    })
    expect(run.status, run.stderr).toBe(0)
    return run.stdout
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}
