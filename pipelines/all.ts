// The whole product in one process (`npm start`): Kafka (KAFKA_BROKERS, or the local broker), ClickHouse (server or
// embedded) with migrations, the upstream (toncenter.com when TONCENTER_URL is set, otherwise the local fake serving
// the bundled real transactions), producer, consumer, the read API and /metrics + /health. Offline it backfills the
// bundled chain, prints a summary and keeps the API up; online it runs PRODUCER_MODE (resume by default) until
// Ctrl-C. `--exit` ends the process after a backfill's summary.
import { Console, Duration, Effect, Fiber, Layer } from "effect"
import { parseArgs } from "node:util"
import { ApiServer } from "../src/api/ApiServer.js"
import { ClickHouse } from "../src/clickhouse/ClickHouse.js"
import { migrate } from "../src/clickhouse/migrations.js"
import {
  ConsumerConfig,
  KafkaConfig,
  LiteserverConfig,
  NetworkConfig,
  ProducerConfig,
  settingConfig,
  settings,
  ToncenterConfig
} from "../src/config.js"
import { runConsumer } from "../src/consumer/BundleConsumer.js"
import { startFakeToncenter } from "../tools/fake/server.js"
import { KafkaBrokers } from "../src/infra/KafkaBrokers.js"
import { runMain } from "../src/infra/runMain.js"
import { KafkaClient, optionsFromSettings } from "../src/kafka/KafkaClient.js"
import { Health } from "../src/ops/Health.js"
import { Metrics } from "../src/ops/Metrics.js"
import { OpsServerLive } from "../src/ops/OpsServer.js"
import { runProducer, type ProducerRun } from "../src/producer/Producer.js"
import { ClickHouseSink } from "../src/sink/ClickHouseSink.js"
import { Upstream } from "../src/source/Upstream.js"
import { pipelineDecode } from "../src/producer/assemble.js"

const { values: args } = parseArgs({ options: { exit: { type: "boolean", default: false } }, strict: true })

interface UpstreamChoice {
  readonly layer: Layer.Layer<Upstream>
  readonly description: string
  /** The fake's chain range, for the offline backfill. */
  readonly range: { readonly first: number; readonly last: number } | undefined
}

/** toncenter when configured; otherwise the fake over the bundled real data, alive for the scope. */
const chooseUpstream = Effect.gen(function* () {
  const ls = yield* LiteserverConfig
  if (ls.config !== undefined) {
    const layer = Layer.orDie(Upstream.layerLiteserver)
    return { layer, description: `liteservers ${ls.config}`, range: undefined } as UpstreamChoice
  }
  const t = yield* ToncenterConfig
  if (t.url !== undefined) {
    return { layer: Upstream.layerFrom({ ...t, url: t.url }), description: t.url, range: undefined } as UpstreamChoice
  }
  const fake = yield* Effect.acquireRelease(
    Effect.promise(() => startFakeToncenter({ chain: { kind: "fixtures" } })),
    (f) => Effect.promise(() => f.stop())
  )
  return {
    layer: Upstream.layerFrom({ url: fake.url, rps: 1000, concurrency: 8 }),
    description: `local fake toncenter ${fake.url} (bundled real transactions, mc ${fake.chain.first}..${fake.chain.last})`,
    range: { first: fake.chain.first, last: fake.chain.last }
  } as UpstreamChoice
})

const program = Effect.gen(function* () {
  const started = Date.now()
  const kafka = yield* KafkaBrokers
  const ch = yield* ClickHouse
  const report = yield* migrate()
  const upstream = yield* chooseUpstream
  const configured = yield* ProducerConfig
  const consumerCfg = yield* ConsumerConfig
  const metricsPort = yield* settingConfig(settings.metrics.port)
  const explicitMode = process.env[settings.producer.mode.env] !== undefined && process.env[settings.producer.mode.env] !== ""
  const run: ProducerRun =
    upstream.range !== undefined && !explicitMode
      ? {
          mode: "backfill",
          from: configured.from ?? upstream.range.first,
          to: configured.to ?? upstream.range.last,
          decodeWorkers: configured.decodeWorkers
        }
      : { mode: configured.mode, from: configured.from, to: configured.to, decodeWorkers: configured.decodeWorkers }

  const decoding =
    configured.decodeWorkers > 0 ? `${configured.decodeWorkers} decode worker threads` : "decoding on the main thread"
  yield* Console.log(
    [
      `kafka: ${kafka.brokers.join(",")}${kafka.local ? " (local broker)" : ""}`,
      `clickhouse: ${ch.backend} ${ch.location}, database ${ch.database} (${report.applied.length} migrations applied)`,
      `upstream: ${upstream.description}`,
      `producer: ${run.mode}${run.from !== undefined ? ` from ${run.from}` : ""}${run.to !== undefined ? ` to ${run.to}` : ""}` +
        `, ${decoding}`
    ].join("\n")
  )

  let storedTop = -1
  let storedTxs = 0
  const consumer = yield* Effect.forkScoped(
    runConsumer({
      groupId: consumerCfg.group,
      batchRows: consumerCfg.batchRows,
      batchBytes: consumerCfg.batchBytes,
      batchMs: consumerCfg.batchMs,
      sessionTimeoutMs: consumerCfg.sessionTimeoutMs,
      onStored: (r) => {
        storedTop = Math.max(storedTop, ...r.stored, ...r.alreadyDone)
        storedTxs += r.transactions
      }
    })
  )
  const { address } = yield* ApiServer
  yield* Console.log(`api: ${address}/api/v3/masterchainBlockShardState?seqno=N, ops: http://127.0.0.1:${metricsPort}/metrics`)

  const summary = yield* runProducer(run, pipelineDecode).pipe(Effect.provide(upstream.layer))
  if (summary.last === undefined) {
    yield* Console.log("producer: nothing new to publish (the topic already holds this range)")
  } else {
    // The backfill is over when the consumer stored (or found stored) the last bundle.
    while (storedTop < summary.last) {
      const exit = consumer.unsafePoll()
      if (exit !== null) return yield* Effect.dieMessage("consumer stopped before storing the backfill")
      yield* Effect.sleep(Duration.millis(200))
    }
  }
  const seconds = (Date.now() - started) / 1000
  yield* Console.log(
    [
      `done: mc ${summary.first ?? "-"}..${summary.last ?? "-"}: ${summary.bundles} bundles, ${summary.transactions} ` +
        `transactions published, ${storedTxs} stored, ${summary.deadLetters} dead letters, ${seconds.toFixed(1)} s`,
      summary.last !== undefined ? `try: curl '${address}/api/v3/masterchainBlockShardState?seqno=${summary.last}'` : ""
    ]
      .filter((l) => l !== "")
      .join("\n")
  )
  if (args.exit) return
  yield* Console.log("serving the API; Ctrl-C stops")
  return yield* Fiber.join(consumer)
})

const KafkaLive = Layer.unwrapEffect(
  Effect.gen(function* () {
    const s = yield* KafkaConfig
    const network = yield* NetworkConfig
    const { brokers } = yield* KafkaBrokers
    return KafkaClient.layerWith(optionsFromSettings({ ...s, brokers }, network))
  })
)
const OpsLive = Layer.unwrapEffect(Effect.map(settingConfig(settings.metrics.port), (port) => OpsServerLive(port)))

const Infra = Layer.mergeAll(KafkaBrokers.layer, ClickHouse.layer, Metrics.layer, Health.layer)
const Services = Layer.mergeAll(KafkaLive, ClickHouseSink.layer, ApiServer.layer, OpsLive).pipe(Layer.provideMerge(Infra))

runMain(Effect.scoped(program).pipe(Effect.provide(Services)))
