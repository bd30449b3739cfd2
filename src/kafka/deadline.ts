/**
 * Bounds a step of talking to Kafka. kafkajs retries internally and normally gives up within its own limits, but
 * some start-up calls (joining a group, initialising a transactional id) can wait without end against a broker that
 * has just restarted and is still loading its coordinators. Invariant: a bounded step either settles or rejects with
 * an error naming the step, so the caller's retry loop starts over instead of hanging.
 */
export class DeadlineError extends Error {
  constructor(readonly step: string, readonly ms: number) {
    super(`${step}: no answer from Kafka within ${ms} ms`)
    this.name = "DeadlineError"
  }
}

/** Runs `run`; rejects with DeadlineError after `ms` and calls `onTimeout` (to release what `run` holds). */
export const withDeadline = <A>(step: string, ms: number, run: () => Promise<A>, onTimeout?: () => void): Promise<A> =>
  new Promise<A>((resolve, reject) => {
    let done = false
    const timer = setTimeout(() => {
      if (done) return
      done = true
      try {
        onTimeout?.()
      } finally {
        reject(new DeadlineError(step, ms))
      }
    }, ms)
    run().then(
      (a) => {
        if (done) return
        done = true
        clearTimeout(timer)
        resolve(a)
      },
      (e: unknown) => {
        if (done) return
        done = true
        clearTimeout(timer)
        reject(e)
      }
    )
  })

/** Start-up steps (connect, fence, read the tail) finish in a few seconds; this leaves room for a loaded machine. */
export const STARTUP_DEADLINE_MS = 30_000
