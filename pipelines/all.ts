// The whole product in one process (`npm start`): Kafka (KAFKA_BROKERS, or the local broker), ClickHouse (server or
// embedded) with migrations, the upstream (pipelines/live.ts: toncenter.com when TONCENTER_URL is set, otherwise the
// local fake serving the bundled real transactions), producer, consumer, the read API and /metrics + /health.
// Offline it backfills the bundled chain, prints a summary and keeps the API up; online it runs PRODUCER_MODE
// (resume by default) until Ctrl-C. `--exit` ends the process after a backfill's summary.
import { Console, Effect, Layer, Stream, SubscriptionRef } from "effect"
import { parseArgs } from "node:util"
import { ApiServer } from "../src/api/ApiServer.js"
import { ClickHouse } from "../src/clickhouse/ClickHouse.js"
import { Migrations } from "../src/clickhouse/migrations.js"
import { settingConfig, settings } from "../src/config.js"
import { BundleConsumer } from "../src/consumer/BundleConsumer.js"
import { KafkaBrokers } from "../src/infra/KafkaBrokers.js"
import { runMain } from "../src/infra/runMain.js"
import { KafkaClient } from "../src/kafka/KafkaClient.js"
import { Health } from "../src/ops/Health.js"
import { Metrics } from "../src/ops/Metrics.js"
import { OpsServerLayer } from "../src/ops/OpsServer.js"
import { Producer } from "../src/producer/Producer.js"
import { ClickHouseSink } from "../src/sink/ClickHouseSink.js"
import { ProducerLive, producerRun, UpstreamChoice } from "./live.js"

const { values: args } = parseArgs({ options: { exit: { type: "boolean", default: false } }, strict: true })

const program = Effect.gen(function* () {
  const started = Date.now()
  const kafka = yield* KafkaBrokers
  const ch = yield* ClickHouse
  const report = yield* Migrations
  const upstream = yield* UpstreamChoice
  const run = yield* producerRun
  const metricsPort = yield* settingConfig(settings.metrics.port)
  const workers = run.decodeWorkers ?? 0
  const decoding = workers > 0 ? `${workers} decode worker threads` : "decoding on the main thread"
  yield* Console.log(
    [
      `kafka: ${kafka.brokers.join(",")}${kafka.local ? " (local broker)" : ""}`,
      `clickhouse: ${ch.backend} ${ch.location}, database ${ch.database} (${report.applied.length} migrations applied)`,
      `upstream: ${upstream.description}`,
      `producer: ${run.mode}${run.from !== undefined ? ` from ${run.from}` : ""}${run.to !== undefined ? ` to ${run.to}` : ""}` +
        `, ${decoding}`
    ].join("\n")
  )
  const sink = yield* ClickHouseSink
  const consumer = yield* BundleConsumer
  const { address } = yield* ApiServer
  yield* Console.log(`api: ${address}/api/v3/masterchainBlockShardState?seqno=N, ops: http://127.0.0.1:${metricsPort}/metrics`)

  const summary = yield* Effect.flatMap(Producer, (producer) => producer.done)
  const last = summary.last
  if (last === undefined) {
    yield* Console.log("producer: nothing new to publish (the topic already holds this range)")
  } else {
    // The backfill is over when the sink stored (or found stored) the last bundle; a failing consumer ends the wait.
    yield* sink.stored.changes.pipe(
      Stream.takeUntil((p) => p.top >= last),
      Stream.runDrain,
      Effect.raceFirst(consumer.done)
    )
  }
  const stored = yield* SubscriptionRef.get(sink.stored)
  const seconds = (Date.now() - started) / 1000
  yield* Console.log(
    [
      `done: mc ${summary.first ?? "-"}..${summary.last ?? "-"}: ${summary.bundles} bundles, ${summary.transactions} ` +
        `transactions published, ${stored.transactions} stored, ${summary.deadLetters} dead letters, ${seconds.toFixed(1)} s`,
      summary.last !== undefined ? `try: curl '${address}/api/v3/masterchainBlockShardState?seqno=${summary.last}'` : ""
    ]
      .filter((l) => l !== "")
      .join("\n")
  )
  if (args.exit) return
  yield* Console.log("serving the API; Ctrl-C stops")
  return yield* consumer.done
})

const Live = Layer.mergeAll(ProducerLive, BundleConsumer.layer, ApiServer.layer, OpsServerLayer).pipe(
  Layer.provideMerge(Layer.mergeAll(ClickHouseSink.layer, Migrations.layer, KafkaClient.layerNoDeps)),
  Layer.provideMerge(Layer.mergeAll(KafkaBrokers.layer, ClickHouse.layer, Metrics.layer, Health.layer))
)

runMain(program.pipe(Effect.provide(Live)))
