// The toncenter adapter's CPU per request, this tree's against a baseline checkout's, in alternating rounds in one
// process: getBlockHeader for every masterchain block a running fake toncenter serves, 8 at a time (the producer's
// prefetch), through each tree's compiled makeToncenterHttp (HTTP, JSON, schemas, pacing, deadline, retries, span).
// Start the fake apart so that its serving is not counted: `FAKE_TONCENTER_DIR=.cache/gen/<chain>
// FAKE_TONCENTER_PORT=P npm run fake-toncenter`; the baseline is a built checkout (e.g. `git worktree add --detach DIR
// main`, its dependencies installed, `npm run build` in it). Prints CPU of the process per request per round and the
// medians after the first two rounds (warm-up). Numbers are printed, never asserted.
// Usage: npx tsx bench/toncenterRequests.ts --url http://127.0.0.1:P --baseline DIR [--rounds 8] [--rps 10000]
import { spawnSync } from "node:child_process"
import { loadavg } from "node:os"
import { join, resolve } from "node:path"
import { pathToFileURL } from "node:url"
import { Effect } from "effect"
import { parseCli } from "../src/infra/cli.js"
import { repoRoot } from "../src/infra/kafkaBroker.js"
import type { makeToncenterHttp as Make } from "../src/source/ToncenterHttp.js"

const args = parseCli(
  {
    url: { type: "string" },
    baseline: { type: "string" },
    rounds: { type: "string", default: "8" },
    rps: { type: "string", default: "10000" }
  },
  `Usage: npx tsx bench/toncenterRequests.ts --url URL --baseline DIR [--rounds 8] [--rps 10000]`
)
if (args.url === undefined || args.baseline === undefined) throw new Error("--url and --baseline are required")
const built = spawnSync(process.execPath, [join(repoRoot, "scripts/build-if-stale.mjs")], { stdio: "inherit" })
if (built.status !== 0) throw new Error("build failed")

const load = async (root: string) =>
  ((await import(pathToFileURL(join(root, "dist/src/source/ToncenterHttp.js")).href)) as { makeToncenterHttp: typeof Make })
    .makeToncenterHttp
const FULL = "-9223372036854775808"
const cpu = () => {
  const u = process.cpuUsage()
  return u.user + u.system
}
const median = (xs: ReadonlyArray<number>) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!

const opts = { url: args.url, rps: Number(args.rps), concurrency: 16 }
const adapters = {
  baseline: await Effect.runPromise((await load(resolve(args.baseline)))(opts)),
  "this tree": await Effect.runPromise((await load(repoRoot))(opts))
}
const info = await Effect.runPromise(adapters.baseline.masterchainInfo)
const seqnos = Array.from({ length: 1500 }, (_, i) => info.last.seqno - (i % 400))
const per: Record<keyof typeof adapters, Array<number>> = { baseline: [], "this tree": [] }
for (let round = 0; round < Number(args.rounds); round++) {
  const order = (round % 2 === 0 ? ["baseline", "this tree"] : ["this tree", "baseline"]) as Array<keyof typeof adapters>
  for (const name of order) {
    const t = cpu()
    await Effect.runPromise(
      Effect.forEach(seqnos, (seqno) => adapters[name].blockHeader({ workchain: -1, shard: FULL, seqno }), {
        concurrency: 8,
        discard: true
      })
    )
    per[name].push((cpu() - t) / seqnos.length)
  }
  process.stdout.write(
    `round ${round + 1}: baseline ${per.baseline.at(-1)!.toFixed(0)} us/request, this tree ${per["this tree"].at(-1)!.toFixed(0)} us/request\n`
  )
}
process.stdout.write(
  `median of rounds 3-${args.rounds}: baseline ${median(per.baseline.slice(2)).toFixed(0)}, this tree ` +
    `${median(per["this tree"].slice(2)).toFixed(0)} us CPU per request (load ${loadavg()[0]!.toFixed(1)})\n`
)
process.exit(0)
