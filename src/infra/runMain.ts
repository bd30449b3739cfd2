// Entry-point runner for every pipeline: runs an Effect program on Node, and turns expected start-up failures
// (bad configuration, infrastructure that is not there) into one plain line naming the setting to fix and exit
// code 1. Invariant: defects still print in full, so a bug is never disguised as a configuration problem.
import { NodeRuntime } from "@effect/platform-node"
import { Cause, ConfigError, Effect, Option } from "effect"

const isExpected = (e: unknown): e is { readonly _tag: string; readonly message: string } =>
  typeof e === "object" &&
  e !== null &&
  "_tag" in e &&
  "message" in e &&
  typeof (e as { message: unknown }).message === "string"

/** Run `program` until it ends or the process gets SIGINT/SIGTERM (interruption is shutdown, not an error). */
export const runMain = <A, E>(program: Effect.Effect<A, E>): void =>
  program.pipe(
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
