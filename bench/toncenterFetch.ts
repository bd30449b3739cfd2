// The toncenter source alone, as the producer drives it: every masterchain bundle of a served chain fetched in order
// with the producer's prefetch (8 in flight), through makeToncenterUpstream (HTTP, JSON, schemas, retries, pacing),
// nothing decoded or published. Prints the bundles, transactions, requests' CPU of this process per transaction and
// wall rate. Start the fake toncenter apart (`FAKE_TONCENTER_DIR=.cache/gen/<chain> FAKE_TONCENTER_PORT=P npm run
// fake-toncenter`) so that its serving is not counted, and add `node --cpu-prof` through NODE_OPTIONS to profile.
// Usage: npx tsx bench/toncenterFetch.ts --url http://127.0.0.1:P [--from N] [--to N] [--rps 10000]
// [--concurrency 16] [--prefetch 8]. Numbers are printed, never asserted.
import { loadavg } from "node:os"
import { Effect, Stream } from "effect"
import { parseCli } from "../src/infra/cli.js"
import { makeToncenterUpstream } from "../src/source/Toncenter.js"

const args = parseCli(
  {
    url: { type: "string" },
    from: { type: "string" },
    to: { type: "string" },
    rps: { type: "string", default: "10000" },
    concurrency: { type: "string", default: "16" },
    prefetch: { type: "string", default: "8" }
  },
  `Usage: npx tsx bench/toncenterFetch.ts --url URL [--from N] [--to N] [--rps 10000] [--concurrency 16] [--prefetch 8]`
)
if (args.url === undefined) throw new Error("--url is required")

const cpu = () => {
  const u = process.cpuUsage()
  return (u.user + u.system) / 1e6
}

const program = Effect.gen(function* () {
  const upstream = yield* makeToncenterUpstream({
    url: args.url!,
    rps: Number(args.rps),
    concurrency: Number(args.concurrency)
  })
  const head = yield* upstream.head
  const to = args.to === undefined ? head : Number(args.to)
  const from = args.from === undefined ? to - 10_000 : Number(args.from)
  let bundles = 0
  let txs = 0
  const c0 = cpu()
  const t0 = performance.now()
  yield* Stream.range(Math.max(from, 1), to).pipe(
    Stream.mapEffect((s) => upstream.bundle(s).pipe(Effect.option), { concurrency: Number(args.prefetch) }),
    Stream.runForEach((b) =>
      Effect.sync(() => {
        if (b._tag === "None") return
        bundles++
        txs += b.value.transactions.length
      })
    )
  )
  const seconds = cpu() - c0
  const wall = (performance.now() - t0) / 1000
  process.stdout.write(
    `${bundles} bundles, ${txs} transactions: ${((seconds / txs) * 1e6).toFixed(1)} us CPU per transaction ` +
      `(${seconds.toFixed(2)} s), ${(txs / wall).toFixed(0)} tx/s wall, load ${loadavg()[0]!.toFixed(1)}\n`
  )
})

await Effect.runPromise(program)
