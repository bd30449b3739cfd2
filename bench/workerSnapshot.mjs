// Heap snapshots of the producer's decode workers, taken from its main thread while it runs: a module preloaded into
// the producer alone by bench:ingest, e.g.
//   npx tsx bench/ingest.ts --gen-dir /tmp/data/chain50k --solo false --source liteserver \
//     --producer-node-flags="--import=$PWD/bench/workerSnapshot.mjs"
// After the requests numbered in WORKER_SNAPSHOT_AT (default "150,300,450", counted over all workers) it writes each
// worker's snapshot (V8 collects first: the live heap) to WORKER_SNAPSHOT_DIR (default /tmp) as
// worker-<pid>-<n>-<request>.heapsnapshot; `npx tsx bench/workerHeap.ts --summarize FILE` sums one up. The worker
// pauses while its snapshot is written: for attribution, not for timing. The workers load this module without effect.
import { isMainThread, Worker } from "node:worker_threads"
import { createWriteStream } from "node:fs"
import { join } from "node:path"
import { pipeline } from "node:stream/promises"
if (isMainThread) {
  const at = new Set((process.env.WORKER_SNAPSHOT_AT ?? "150,300,450").split(",").map(Number))
  const dir = process.env.WORKER_SNAPSHOT_DIR ?? "/tmp"
  const workers = []
  let requests = 0
  const post = Worker.prototype.postMessage
  Worker.prototype.postMessage = function (...a) {
    if (!workers.includes(this)) workers.push(this)
    requests++
    if (at.has(requests)) {
      const n = requests
      for (const [i, w] of workers.entries()) {
        void w
          .getHeapSnapshot()
          .then((s) => pipeline(s, createWriteStream(join(dir, `worker-${process.pid}-${i}-${n}.heapsnapshot`))))
          .catch((e) => process.stderr.write(`worker snapshot: ${e}\n`))
      }
    }
    return post.apply(this, a)
  }
}
