// A heap snapshot of the producer's main thread, taken while it runs: a module preloaded into the producer alone by
// bench:ingest, e.g.
//   npx tsx bench/ingest.ts --gen-dir /tmp/data/chain50k --solo false --source liteserver \
//     --producer-node-flags="--import=$PWD/bench/mainSnapshot.mjs"
// After the decode requests numbered in MAIN_SNAPSHOT_AT (default "300", counted over all workers: the 50k chain's
// producer sends ~600) and on SIGUSR2 it writes the main thread's snapshot (V8 collects first: the live heap) to
// MAIN_SNAPSHOT_DIR (default /tmp) as main-<pid>-<request>.heapsnapshot; `npx tsx bench/mainHeap.ts FILE` sums one
// up by what holds it. The thread stops while the snapshot is written: for attribution, not for timing. Decode
// workers load this module without effect.
import { isMainThread, Worker } from "node:worker_threads"
import { writeHeapSnapshot } from "node:v8"
import { join } from "node:path"
if (isMainThread) {
  const at = new Set((process.env.MAIN_SNAPSHOT_AT ?? "300").split(",").map(Number))
  const dir = process.env.MAIN_SNAPSHOT_DIR ?? "/tmp"
  let requests = 0
  const take = (tag) => {
    const file = join(dir, `main-${process.pid}-${tag}.heapsnapshot`)
    const t = Date.now()
    writeHeapSnapshot(file)
    process.stderr.write(`main snapshot: ${file} in ${Date.now() - t} ms\n`)
  }
  const post = Worker.prototype.postMessage
  Worker.prototype.postMessage = function (...a) {
    const n = ++requests
    if (at.has(n)) setImmediate(() => take(n))
    return post.apply(this, a)
  }
  process.on("SIGUSR2", () => take(`signal-${requests}`))
  process.on("exit", () => process.stderr.write(`main snapshot: ${requests} decode requests sent\n`))
}
