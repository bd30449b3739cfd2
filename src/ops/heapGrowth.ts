/**
 * The bound on how far a process's V8 heaps grow past their live data. After each full collection V8 sets the next
 * one's trigger at the survivors times a factor of its own choosing, up to 4 on a machine with memory to spare; a
 * pipeline that keeps ~60 MB live but promotes everything in flight then holds ~250 MB of heap that is mostly garbage
 * (BENCHMARKS.md, "the producer within 300 MB"). Invariant: with a percent p > 0 every isolate of the process (the
 * main thread and the worker threads, before or after they start) collects once its old generation reaches its
 * survivors times (1 + p / 100); 0 leaves V8's own factor.
 */
import { setFlagsFromString } from "node:v8"

/**
 * Sets the growth factor of every heap of this process. V8 reads the flag each time it sets a collection's trigger,
 * so setting it after start-up takes effect from the next full collection on.
 */
export const limitHeapGrowth = (percent: number): void => {
  if (!Number.isInteger(percent) || percent < 0) throw new Error(`heap growth percent ${percent}`)
  setFlagsFromString(`--heap-growing-percent=${percent}`)
}
