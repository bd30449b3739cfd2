/**
 * CPU time of the calling thread, for the per-stage CPU figures the pipeline reports. Linux keeps each thread's user
 * and system time in /proc/thread-self/stat (clock ticks, 10 ms): a stage's figure is the sum of the deltas around
 * its sections, unbiased over many sections though coarse for one. Elsewhere the process's CPU stands in for it.
 */
import { readFileSync } from "node:fs"

const TICKS_PER_SECOND = 100
let threadStat = process.platform === "linux"

/** CPU seconds (user + system) this thread has used so far (the whole process's where threads are not told apart). */
export const threadCpuSeconds = (): number => {
  if (threadStat) {
    try {
      const stat = readFileSync("/proc/thread-self/stat", "latin1")
      // Fields 14 and 15 (utime, stime) counted after the parenthesised command name, which may hold spaces.
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
      return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND
    } catch {
      threadStat = false
    }
  }
  return processCpuSeconds()
}

/** CPU seconds (user + system) of the whole process, every thread included, to the microsecond. */
export const processCpuSeconds = (): number => {
  const u = process.cpuUsage()
  return (u.user + u.system) / 1e6
}
