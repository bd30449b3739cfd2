/**
 * The decode worker's script as one ES module: our modules and the packages they use (tree-shaken) bundled by esbuild
 * (the compiler tsx itself runs, resolved through tsx), except @ton/*, which fastHash.ts patches in their own modules
 * and the decoder must therefore load from node_modules like the patch does. Both ways of starting a worker run it:
 * from TypeScript sources (tests, development through tsx) DecodePool bundles once per process under .cache/, and
 * `npm run build` writes it beside the compiled pool (scripts/bundle-worker.mjs), so the runnables' workers run the
 * same bundle. Why: a worker started on the compiled module graph loads every module of the `effect` package that its
 * barrel import names (~1 s of CPU at start, and more live heap in the worker's isolate all run long: 31.6 against
 * 20.1 MB after a full collection in the producer on the 50k chain; BENCHMARKS.md, "Ingest: what the decode worker's
 * isolate holds").
 */
import { mkdirSync, renameSync, writeFileSync } from "node:fs"
import { createRequire } from "node:module"
import path from "node:path"
import { pathToFileURL } from "node:url"

/** The bundle's file name, beside the compiled DecodePool.js in dist/. */
export const WORKER_BUNDLE = "decodeWorker.bundle.js"

/** The bundled code of the worker whose entry is `entry` (decodeWorker.ts, or its compiled decodeWorker.js). */
export const bundleDecodeWorker = async (entry: string): Promise<string> => {
  const fromTsx = createRequire(createRequire(import.meta.url).resolve("tsx/package.json"))
  const esbuild = (await import(pathToFileURL(fromTsx.resolve("esbuild")).href)) as typeof import("esbuild")
  const built = await esbuild.build({
    entryPoints: [entry],
    bundle: true,
    external: ["@ton/*"],
    platform: "node",
    format: "esm",
    target: "node20",
    write: false,
    logLevel: "silent"
  })
  return built.outputFiles[0]!.text
}

/**
 * Writes a bundle to `file` whole (a temporary file renamed over it, its folder made if missing): a pool starting
 * meanwhile, in this process or another, reads the old bundle or the new one, never part of one.
 */
export const writeBundle = (file: string, code: string): void => {
  mkdirSync(path.dirname(file), { recursive: true })
  const tmp = `${file}.${process.pid}.tmp`
  writeFileSync(tmp, code)
  renameSync(tmp, file)
}
