/**
 * CPU time of the calling thread, for the per-stage CPU figures the pipeline reports. Linux keeps each thread's user
 * and system time in /proc/thread-self/stat (clock ticks, 10 ms): a stage's figure is the sum of the deltas around
 * its sections, unbiased over many sections though coarse for one. Elsewhere the process's CPU stands in for it.
 * The file is opened once per thread (each thread loads this module apart, and the descriptor names the thread that
 * opened it) and read again from its start into one buffer: a read at offset 0 makes the kernel write the figures
 * anew, so each call costs one pread instead of an open, a stat, a read, a close and a string.
 */
import { openSync, readSync } from "node:fs"

const TICKS_PER_SECOND = 100
const STAT_PATH = "/proc/thread-self/stat"
const CLOSE_PAREN = 0x29
const SPACE = 0x20
const ZERO = 0x30

let threadStat = process.platform === "linux"
let statFd = -1
// A stat line is ~300 bytes; its command name at most 64 (TASK_COMM_LEN is 16 today).
const statBuf = Buffer.alloc(1024)

/**
 * utime + stime, in ticks, of a stat line: fields 14 and 15, counted after the parenthesised command name (which may
 * hold spaces and parentheses, so the last ')' ends it). -1 when the line is not one.
 */
export const statTicks = (line: Uint8Array, length: number): number => {
  let at = -1
  for (let i = length - 1; i >= 0; i--) {
    if (line[i] === CLOSE_PAREN) {
      at = i
      break
    }
  }
  if (at < 0) return -1
  // ") S ppid ..." : after the ')' and its space, field 3 starts; utime is field 14, stime 15
  let field = 2
  let i = at + 1
  let sum = 0
  while (i < length && field < 15) {
    if (line[i] === SPACE) {
      field++
      i++
      if (field === 14 || field === 15) {
        let n = 0
        let digits = 0
        while (i < length && line[i]! >= ZERO && line[i]! <= ZERO + 9) {
          n = n * 10 + (line[i]! - ZERO)
          i++
          digits++
        }
        if (digits === 0) return -1
        sum += n
      }
      continue
    }
    i++
  }
  return field === 15 ? sum : -1
}

/** CPU seconds (user + system) this thread has used so far (the whole process's where threads are not told apart). */
export const threadCpuSeconds = (): number => {
  if (threadStat) {
    try {
      if (statFd < 0) statFd = openSync(STAT_PATH, "r")
      const n = readSync(statFd, statBuf, 0, statBuf.length, 0)
      const ticks = statTicks(statBuf, n)
      if (ticks >= 0) return ticks / TICKS_PER_SECOND
      threadStat = false
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
