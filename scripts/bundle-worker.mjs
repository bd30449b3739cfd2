// The second step of `npm run build` (and of build-if-stale.mjs): the compiled decode worker (dist/src/producer/
// decodeWorker.js) bundled with the modules and packages it uses into one module, dist/src/producer/
// decodeWorker.bundle.js, the script the runnables' decode pool starts (src/producer/workerBundle.ts says why).
// Usage: node scripts/bundle-worker.mjs [OUT_FILE (default that path)]. Invariant: the file is replaced whole (a
// temporary file renamed), so a pool starting meanwhile reads the old bundle or the new one.
import { join } from "node:path"

const root = new URL("..", import.meta.url).pathname
const producer = join(root, "dist", "src", "producer")
const { bundleDecodeWorker, WORKER_BUNDLE, writeBundle } = await import(join(producer, "workerBundle.js"))
const out = process.argv[2] ?? join(producer, WORKER_BUNDLE)
writeBundle(out, await bundleDecodeWorker(join(producer, "decodeWorker.js")))
