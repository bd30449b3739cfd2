/**
 * Scripts run as one ES module each: our modules and the packages they use (tree-shaken) bundled by esbuild (the
 * compiler tsx itself runs, resolved through tsx), except the packages the project patches or reaches into at run
 * time, which must be the very modules node_modules holds.
 * - The decode worker (bundleDecodeWorker): all but @ton/*, which fastHash.ts patches in their own modules and the
 *   decoder must therefore load from node_modules like the patch does. Both ways of starting a worker run it: from
 *   TypeScript sources (tests, development through tsx) DecodePool bundles once per process under .cache/, and `npm run
 *   build` writes it to dist/src/producer/ (scripts/build.mjs), so the runnables' workers run the same bundle. Why: a
 *   worker started on the compiled module graph loads every module of the `effect` package that its barrel import
 *   names (~1 s of CPU at start, and more live heap in the worker's isolate all run long: 31.6 against 20.1 MB after a
 *   full collection in the producer on the 50k chain; BENCHMARKS.md, "Ingest: what the decode worker's isolate holds").
 * - The runnables that `npm run build` bundles (bundleRunnable, RUNNABLE_BUNDLES): the same, and the packages their
 *   main thread patches or requires by path (kafkajs, adnl and ton-lite-client, which uses it), the native ones and
 *   the compiler, left to node_modules. Why: the producer's main thread held ~9 MB of `effect` (source text and code)
 *   and the packages its barrels name (fast-check, undici, @effect/cluster ...) all run long (BENCHMARKS.md, "Ingest:
 *   what the producer's main thread holds").
 */
import { mkdirSync, renameSync, writeFileSync } from "node:fs"
import { createRequire } from "node:module"
import path from "node:path"
import { pathToFileURL } from "node:url"

/** The decode worker bundle's file name, in dist/src/producer/ (beside the compiled pool). */
export const WORKER_BUNDLE = "decodeWorker.bundle.js"

/** The runnables `npm run build` bundles: their compiled entry in dist/ -> the bundle beside it. */
export const RUNNABLE_BUNDLES: ReadonlyArray<readonly [string, string]> = [
  ["pipelines/producer.js", "pipelines/producer.bundle.js"],
  ["pipelines/consumer.js", "pipelines/consumer.bundle.js"],
  ["pipelines/api.js", "pipelines/api.bundle.js"],
  ["pipelines/all.js", "pipelines/all.bundle.js"]
]

/**
 * Packages a runnable's bundle leaves to node_modules: @ton/* (fastHash patches their modules), kafkajs (its
 * encoder, partitioner and produce request are required by path and patched), adnl and ton-lite-client (fastAdnl
 * patches adnl's modules), the native packages, and the compiler that the sources' decode pool loads.
 */
export const RUNNABLE_EXTERNAL: ReadonlyArray<string> = [
  "@ton/*",
  "kafkajs",
  "kafkajs/*",
  "adnl",
  "adnl/*",
  "ton-lite-client",
  "ton-lite-client/*",
  "chdb",
  "chdb/*",
  "lz4-napi",
  "@toondepauw/node-zstd",
  "tsx",
  "esbuild"
]

/**
 * Bundled packages written as CommonJS call `require` for Node's built-ins, which an ES module lacks: each bundle
 * defines it first, under a name no module declares.
 */
const REQUIRE_BANNER =
  'import { createRequire as __bundleRequire } from "node:module"; const require = __bundleRequire(import.meta.url);'

interface Shape {
  readonly external: ReadonlyArray<string>
  /** Code put before the bundle's own. */
  readonly banner?: string
  /**
   * Comments and indentation left out (the names stay, so a stack trace still names its functions): the source text
   * V8 keeps for the thread's life is the file's text, and comments in some packages hold non-ASCII characters,
   * which make V8 hold all of it at two bytes a character (the producer's: 3.3 M characters, 6.3 MB, against 2.4).
   */
  readonly compact?: boolean
}

const bundle = async (entry: string, shape: Shape): Promise<string> => {
  const fromTsx = createRequire(createRequire(import.meta.url).resolve("tsx/package.json"))
  const esbuild = (await import(pathToFileURL(fromTsx.resolve("esbuild")).href)) as typeof import("esbuild")
  const built = await esbuild.build({
    entryPoints: [entry],
    bundle: true,
    external: [...shape.external],
    platform: "node",
    format: "esm",
    target: "node20",
    write: false,
    logLevel: "silent",
    // a non-ASCII character in the code (a string's) would make V8 hold the whole source two bytes a character
    charset: "ascii",
    ...(shape.banner === undefined ? {} : { banner: { js: shape.banner } }),
    ...(shape.compact === true ? { minifyWhitespace: true, legalComments: "none" as const } : {})
  })
  return built.outputFiles[0]!.text
}

/** The bundled code of the worker whose entry is `entry` (decodeWorker.ts, or its compiled decodeWorker.js). */
export const bundleDecodeWorker = (entry: string): Promise<string> => bundle(entry, { external: ["@ton/*"] })

/** The bundled code of a compiled runnable (dist/pipelines/x.js), which is started from beside `entry`. */
export const bundleRunnable = (entry: string): Promise<string> =>
  bundle(entry, { external: RUNNABLE_EXTERNAL, banner: REQUIRE_BANNER, compact: true })

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
