// Entry-point runner for every pipeline: runs an Effect program on Node, and turns expected start-up failures
// (bad configuration, infrastructure that is not there) into one plain line naming the setting to fix and exit
// code 1. Invariant: defects still print in full, so a bug is never disguised as a configuration problem; after
// SIGINT/SIGTERM the process is gone within SHUTDOWN_DEADLINE_MS (longer only where a component asks for it with a
// reason: shutdownDeadline.ts), whatever a client, broker or engine does (the
// orderly path closes servers after their own, shorter drain deadlines; this one only catches what hangs).
import { NodeRuntime } from "@effect/platform-node"
import { Cause, ConfigError, Effect, Option } from "effect"
import { startShutdownDeadline } from "./shutdownDeadline.js"

const isExpected = (e: unknown): e is { readonly _tag: string; readonly message: string } =>
  typeof e === "object" &&
  e !== null &&
  "_tag" in e &&
  "message" in e &&
  typeof (e as { message: unknown }).message === "string"

/** One line on the signal and one when stopped; a forced exit if the orderly path overruns its deadline. */
const watchShutdown = (): { readonly stoppedLine: () => string | undefined } => {
  let signalAt: number | undefined
  // Kept for the whole shutdown (not `once`): a terminal's Ctrl-C reaches every process of the group, so npm and tsx
  // relay a second SIGINT, and tsx's loader ends the process at once when no listener is left to take it.
  const onSignal = (signal: NodeJS.Signals) => {
    if (signalAt !== undefined) return
    signalAt = Date.now()
    process.stdout.write(`\n${signal}: stopping (servers drain for a few seconds, then open connections are cut)...\n`)
    startShutdownDeadline((afterMs) => {
      process.stderr.write(
        `error: shutdown still not finished after ${Math.round(afterMs / 1000)} s; exiting without waiting further\n`
      )
      process.exit(1)
    })
  }
  process.on("SIGINT", onSignal)
  process.on("SIGTERM", onSignal)
  return {
    stoppedLine: () =>
      signalAt === undefined ? undefined : `stopped in ${((Date.now() - signalAt) / 1000).toFixed(1)} s\n`
  }
}

/** Run `program` until it ends or the process gets SIGINT/SIGTERM (interruption is shutdown, not an error). */
export const runMain = <A, E>(program: Effect.Effect<A, E>): void => {
  const shutdown = watchShutdown()
  program.pipe(
    Effect.ensuring(
      Effect.sync(() => {
        const line = shutdown.stoppedLine()
        if (line !== undefined) process.stdout.write(line)
      })
    ),
    Effect.catchAllCause((cause) => {
      if (Cause.isInterruptedOnly(cause)) return Effect.void
      const failure = Cause.failureOption(cause)
      if (Option.isSome(failure)) {
        const e = failure.value
        const text = ConfigError.isConfigError(e)
          ? `configuration: ${String(e)}`
          : isExpected(e)
            ? `${e._tag}: ${e.message}`
            : undefined
        if (text !== undefined) {
          return Effect.sync(() => {
            process.stderr.write(`error: ${text}\n`)
            process.exitCode = 1
          })
        }
      }
      return Effect.failCause(cause)
    }),
    NodeRuntime.runMain
  )
}
