/**
 * What the benchmarks read of a process or thread from /proc: its CPU time and command name (a `stat` file: figures
 * read by src/ops/cpu.ts's statTicks, the name between the first '(' and the last ')'), the threads of a process, and
 * its peak resident set (VmHWM, the kernel's record). Linux only, as the benchmarks that print these figures are.
 */
import { readdirSync, readFileSync } from "node:fs"
import { statTicks } from "../../src/ops/cpu.js"

/** Clock ticks per second of /proc's CPU figures. */
export const CLOCK_TICKS = 100

/** A `stat` file's user + system CPU in seconds and its command name; throws when it is gone or not a stat line. */
export const readStat = (path: string): { readonly comm: string; readonly cpu: number } => {
  const b = readFileSync(path)
  const ticks = statTicks(b, b.length)
  if (ticks < 0) throw new Error(`${path}: not a stat line`)
  return { comm: b.toString("utf8", b.indexOf(0x28) + 1, b.lastIndexOf(0x29)), cpu: ticks / CLOCK_TICKS }
}

/** Each thread of a process now, by thread id (a thread that ends while read is left out; none once it is gone). */
export const threadStats = (pid: number | "self"): Map<string, { readonly comm: string; readonly cpu: number }> => {
  const out = new Map<string, { comm: string; cpu: number }>()
  let tids: Array<string>
  try {
    tids = readdirSync(`/proc/${pid}/task`)
  } catch {
    return out
  }
  for (const tid of tids) {
    try {
      out.set(tid, readStat(`/proc/${pid}/task/${tid}/stat`))
    } catch {
      // the thread ended between listing and reading
    }
  }
  return out
}

/** The process's peak resident set in bytes (VmHWM), 0 when its status does not say. */
export const peakRssBytes = (pid: number | "self"): number =>
  Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0) * 1024
