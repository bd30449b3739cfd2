/** Small figures the in-process benches print: a quantile of their samples and the machine's load. */
import { loadavg } from "node:os"

/** The sample at fraction `p` of the sorted samples (0.5: the median). */
export const quantile = (xs: ReadonlyArray<number>, p: number): number =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))]!

/** The 1, 5 and 15 minute load averages, as printed beside each run. */
export const load = (): string =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(" ")
