// The forced-exit deadline after SIGINT/SIGTERM (runMain.ts starts it), and the one way to move it: a component whose
// orderly stop is known to take longer on some runs says so, with why, before it starts that stop. Invariant: the
// deadline only ever moves later, only by what a component asked for, and every extension prints its reason.

/** Longest orderly shutdown before the process exits anyway, unless a component asks for more. */
export const SHUTDOWN_DEADLINE_MS = 6_000

interface Running {
  readonly startedAt: number
  readonly onOverrun: (afterMs: number) => void
  deadlineAt: number
  timer: NodeJS.Timeout
}

let running: Running | undefined
/** Extension asked for before the signal (a stop that began for another reason): applied when the deadline starts. */
let earlyExtraMs = 0

const arm = (r: Running): NodeJS.Timeout =>
  setTimeout(() => r.onOverrun(r.deadlineAt - r.startedAt), Math.max(0, r.deadlineAt - Date.now())).unref()

/** Starts the deadline (once per process); `onOverrun(afterMs)` runs if the shutdown is still going when it passes. */
export const startShutdownDeadline = (onOverrun: (afterMs: number) => void): void => {
  if (running !== undefined) return
  const startedAt = Date.now()
  const r: Running = { startedAt, onOverrun, deadlineAt: startedAt + SHUTDOWN_DEADLINE_MS + earlyExtraMs, timer: undefined! }
  r.timer = arm(r)
  running = r
}

/**
 * Gives the shutdown at least `ms` more from now, printing `reason`: for a stop that is slow for a known, bounded
 * reason, so the process neither cuts it short nor reports a hang.
 */
export const allowLongerShutdown = (ms: number, reason: string): void => {
  process.stdout.write(`${reason}\n`)
  const r = running
  if (r === undefined) {
    earlyExtraMs = Math.max(earlyExtraMs, ms)
    return
  }
  const at = Date.now() + ms
  if (at <= r.deadlineAt) return
  clearTimeout(r.timer)
  r.deadlineAt = at
  r.timer = arm(r)
}
