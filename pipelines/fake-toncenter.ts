/**
 * Runs the fake toncenter standalone on 127.0.0.1: the bundled recorded chain, a small generated one, or a directory
 * written by `npm run generate` (FAKE_TONCENTER_DIR, e.g. the million-transaction chain); optional scripted faults
 * and a head that advances over time. Point TONCENTER_URL at the printed URL to use it from other processes.
 */
import { NodeRuntime } from "@effect/platform-node"
import { Config, Effect } from "effect"
import { chainStats } from "../tools/fake/ChainData.js"
import { parseFaultPlan } from "../tools/fake/faults.js"
import { startFakeToncenter } from "../tools/fake/server.js"
import { loadGeneratedChain } from "../tools/gen/chain.js"

const FakeConfig = Config.all({
  port: Config.integer("FAKE_TONCENTER_PORT").pipe(Config.withDefault(8081)),
  chain: Config.literal("fixtures", "generated")("FAKE_TONCENTER_CHAIN").pipe(Config.withDefault("fixtures" as const)),
  seed: Config.integer("FAKE_TONCENTER_SEED").pipe(Config.withDefault(1)),
  mcBlocks: Config.integer("FAKE_TONCENTER_MC_BLOCKS").pipe(Config.withDefault(100)),
  txPerBlock: Config.integer("FAKE_TONCENTER_TX_PER_BLOCK").pipe(Config.withDefault(8)),
  maxShards: Config.integer("FAKE_TONCENTER_MAX_SHARDS").pipe(Config.withDefault(16)),
  dir: Config.option(Config.string("FAKE_TONCENTER_DIR")),
  faults: Config.string("FAKE_TONCENTER_FAULTS").pipe(Config.withDefault("")),
  apiKey: Config.option(Config.string("FAKE_TONCENTER_API_KEY")),
  revealInitial: Config.option(Config.integer("FAKE_TONCENTER_REVEAL_INITIAL")),
  revealEveryMs: Config.option(Config.integer("FAKE_TONCENTER_REVEAL_MS"))
})

const program = Effect.gen(function* () {
  const c = yield* FakeConfig
  const started = performance.now()
  const cpu = process.cpuUsage()
  const fake = yield* Effect.acquireRelease(
    Effect.promise(async () =>
      startFakeToncenter({
        chain:
          c.dir._tag === "Some"
            ? await loadGeneratedChain(c.dir.value)
            : c.chain === "fixtures"
            ? { kind: "fixtures" }
            : {
                kind: "generated",
                seed: c.seed,
                mcBlocks: c.mcBlocks,
                txPerBlock: c.txPerBlock,
                maxShards: c.maxShards
              },
        port: c.port,
        faults: parseFaultPlan(c.faults),
        ...(c.apiKey._tag === "Some" ? { apiKey: c.apiKey.value } : {}),
        reveal: {
          ...(c.revealInitial._tag === "Some" ? { initial: c.revealInitial.value } : {}),
          ...(c.revealEveryMs._tag === "Some" ? { everyMs: c.revealEveryMs.value } : {})
        }
      })
    ),
    (f) => Effect.promise(() => f.stop())
  )
  const stats = chainStats(fake.chain)
  const used = process.cpuUsage(cpu)
  const cpuSeconds = (used.user + used.system) / 1e6
  yield* Effect.logInfo(
    `fake toncenter on ${fake.url} (TONCENTER_URL=${fake.url}): ${fake.chain.name}, masterchain ` +
      `${fake.chain.first}..${fake.chain.last} (head ${fake.head()}), ` +
      `${stats.blocks} blocks, ${stats.txs} transactions, ` +
      `up to ${stats.maxShards} shards; ready in ${((performance.now() - started) / 1000).toFixed(1)} s wall, ` +
      `${cpuSeconds.toFixed(1)} s cpu (${Math.round(stats.txs / Math.max(cpuSeconds, 1e-3))} tx per cpu-second, ` +
      `cached on disk above 20000 tx)`
  )
  return yield* Effect.never
})

NodeRuntime.runMain(Effect.scoped(program))
