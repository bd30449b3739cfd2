// The liteserver pool's wrapper around one attempt, alone: an attempt that answers at once (a resolved promise), run
// through the pool's wrapper (src/source/liteserver/Pool.ts: Effect.retry with the schedule built per query:
// exponential, union with the cap, jittered, recurs, whileInput) and through a retry loop that exists only after a
// failure (the toncenter adapter's shape), in interleaved rounds; prints CPU per query (this thread's) and medians. The attempt itself (socket, TL) is not in
// it: this is what a query costs beyond its request. Numbers are printed, never asserted.
// Usage: npx tsx bench/litePoolQuery.ts [--queries 100000] [--rounds 5] [--concurrency 16]
import { Duration, Effect, Schedule } from "effect"
import { loadavg } from "node:os"
import { parseCli } from "../src/infra/cli.js"
import { threadCpuSeconds } from "../src/ops/cpu.js"
import { isRetryable, retryDelay } from "../src/source/liteserver/Pool.js"
import { UpstreamError } from "../src/source/types.js"

const USAGE = "Usage: npx tsx bench/litePoolQuery.ts [--queries 100000] [--rounds 5] [--concurrency 16]"
const args = parseCli(
  {
    queries: { type: "string", default: "100000" },
    rounds: { type: "string", default: "5" },
    concurrency: { type: "string", default: "16" }
  },
  USAGE
)
const queries = Number(args.queries)
const rounds = Number(args.rounds)
const concurrency = Number(args.concurrency)

const answer = { answer: 1, server: "s", serverIndex: 0 }
const once = () =>
  Effect.tryPromise({
    try: () => Promise.resolve(answer),
    catch: (e) => (e instanceof UpstreamError ? e : new UpstreamError({ reason: "network", message: String(e) }))
  })

const scheduled = (retryNotFound: boolean) =>
  Effect.retry(
    once(),
    Schedule.exponential(Duration.millis(100), 2).pipe(
      Schedule.union(Schedule.spaced(Duration.millis(5_000))),
      Schedule.jittered,
      Schedule.intersect(Schedule.recurs(8)),
      Schedule.whileInput((e: UpstreamError) => isRetryable(e, retryNotFound))
    )
  )

const looped = (retryNotFound: boolean) => {
  const from = (n: number): Effect.Effect<typeof answer, UpstreamError> =>
    Effect.catchAll(once(), (err) =>
      n >= 8 || !isRetryable(err, retryNotFound)
        ? Effect.fail(err)
        : Effect.zipRight(
            Effect.sleep(Duration.millis(retryDelay(n, 100, 5_000))),
            Effect.suspend(() => from(n + 1))
          )
    )
  return from(0)
}

const run = (query: (retryNotFound: boolean) => Effect.Effect<unknown, UpstreamError>) =>
  Effect.forEach(
    Array.from({ length: queries }, (_, i) => i),
    (i) => query(i % 2 === 0),
    {
      concurrency,
      discard: true
    }
  )

const median = (xs: ReadonlyArray<number>) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!
const arms = { "Effect.retry + schedule per query (pool)": scheduled, "retry loop after a failure": looped }
const us: Record<string, Array<number>> = {}
await Effect.runPromise(run(scheduled))
await Effect.runPromise(run(looped))
for (let r = 0; r < rounds; r++) {
  for (const [name, q] of Object.entries(arms)) {
    const t = threadCpuSeconds()
    await Effect.runPromise(run(q))
    ;(us[name] ??= []).push(((threadCpuSeconds() - t) * 1e6) / queries)
  }
}
console.log(
  `${queries} queries a round, ${concurrency} at a time, ${rounds} rounds; load ${loadavg()
    .map((x) => x.toFixed(1))
    .join(" ")}`
)
for (const [name, xs] of Object.entries(us)) {
  console.log(
    `  ${name.padEnd(42)} median ${median(xs).toFixed(2)} us/query   (${xs.map((x) => x.toFixed(2)).join(", ")})`
  )
}
