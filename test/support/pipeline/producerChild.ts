// A producer process for the kill tests: the real producer over a generated chain served in-process with a delay per
// bundle (so a kill lands mid-stream), or with LITESERVER_CONFIG set, read through the liteserver source from the
// local liteserver the test runs (which slows its answers instead). Configured by env: KAFKA_BROKERS,
// KAFKA_TOPIC_PREFIX, CHAIN_SEED, CHAIN_MC, DELAY_MS, LITESERVER_CONFIG. Exits 0 after publishing the whole chain.
import { Effect, Layer } from "effect"
import { generateChain } from "../../../tools/fake/generate.js"
import { KafkaClient } from "../../../src/kafka/KafkaClient.js"
import { Health } from "../../../src/ops/Health.js"
import { Metrics } from "../../../src/ops/Metrics.js"
import { runProducer } from "../../../src/producer/Producer.js"
import { Upstream } from "../../../src/source/Upstream.js"
import { pipelineDecode } from "../../../src/producer/assemble.js"
import { chainUpstream } from "./chainUpstream.js"
import { chaosChainOptions } from "./chaosChain.js"
import { liteserverLayer } from "./sources.js"

const env = (k: string): string => {
  const v = process.env[k]
  if (v === undefined || v === "") throw new Error(`${k} is required`)
  return v
}

const chain = generateChain(chaosChainOptions(Number(env("CHAIN_SEED")), Number(env("CHAIN_MC"))))
const delay = Number(process.env.DELAY_MS ?? "0")
const base = chainUpstream(chain)
const slow = { ...base, bundle: (s: number) => Effect.zipRight(Effect.sleep(delay), base.bundle(s)) }
const lite = process.env.LITESERVER_CONFIG
const upstream = lite ? liteserverLayer([{ config: lite }]) : Layer.succeed(Upstream, slow)

const program = runProducer(
  { mode: "backfill", from: chain.first, to: chain.last, prefetch: 1, maxBundlesPerTransaction: 2, progressMs: 0 },
  pipelineDecode
).pipe(
  Effect.tap((s) => Effect.sync(() => process.stdout.write(`producer-done ${JSON.stringify(s)}\n`))),
  Effect.provide(
    Layer.mergeAll(
      KafkaClient.layerWith({
        brokers: env("KAFKA_BROKERS").split(","),
        clientId: "chaos",
        topicPrefix: env("KAFKA_TOPIC_PREFIX"),
        network: chain.network,
        maxMessageBytes: 64 * 1024 * 1024
      }),
      upstream,
      Metrics.layerTest,
      Health.layer
    )
  )
)

Effect.runPromise(program).then(
  () => process.exit(0),
  (e: unknown) => {
    process.stderr.write(`producer failed: ${String(e)}\n`)
    process.exit(1)
  }
)
