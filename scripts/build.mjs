// The build, `npm run build` and the runnables' pre-hook (scripts/build-if-stale.mjs) alike: its one list of steps.
// 1. tsc compiles src/, tools/, pipelines/, scripts/ to dist/ (tsconfig.build.json, incremental).
// 2. The decode worker bundled into dist/src/producer/decodeWorker.bundle.js, the script the runnables' decode pool
//    starts; and each runnable of RUNNABLE_BUNDLES into its bundle beside its compiled entry, the file its npm script
//    starts (src/producer/workerBundle.ts says why and what stays in node_modules).
// Usage: node scripts/build.mjs. Exits non-zero when a step fails. Invariant: each bundle is replaced whole (a
// temporary file renamed), so a process starting meanwhile reads the old bundle or the new one.
import { spawnSync } from "node:child_process"
import { join } from "node:path"

const root = new URL("..", import.meta.url).pathname
const dist = join(root, "dist")

const tsc = spawnSync(
  process.execPath,
  [join(root, "node_modules", "typescript", "bin", "tsc"), "-p", join(root, "tsconfig.build.json")],
  {
    stdio: "inherit"
  }
)
if (tsc.status !== 0) process.exit(tsc.status ?? 1)

const { bundleDecodeWorker, bundleRunnable, RUNNABLE_BUNDLES, WORKER_BUNDLE, writeBundle } = await import(
  join(dist, "src", "producer", "workerBundle.js")
)
const producer = join(dist, "src", "producer")
writeBundle(join(producer, WORKER_BUNDLE), await bundleDecodeWorker(join(producer, "decodeWorker.js")))
for (const [entry, out] of RUNNABLE_BUNDLES) writeBundle(join(dist, out), await bundleRunnable(join(dist, entry)))
