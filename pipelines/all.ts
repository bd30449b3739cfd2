// The whole product in one process (`npm start`): Kafka (KAFKA_BROKERS, or the local broker), ClickHouse (server or
// embedded) with migrations, the upstream (pipelines/live.ts: toncenter.com when TONCENTER_URL is set, otherwise the
// local fake serving the bundled real transactions), producer, consumer, the read API, /metrics + /health and the
// read-only SQL endpoint over the embedded engine. Offline it backfills the bundled chain, prints a summary and keeps
// the API up; online it runs PRODUCER_MODE (resume by default) until Ctrl-C. `--exit` ends the process after a
// backfill's summary. Start-up says what each slow step is doing, then one banner lists every address a user opens.
import { Console, Effect, Layer, Stream, SubscriptionRef } from "effect"
import { ApiServer } from "../src/api/ApiServer.js"
import { ClickHouse } from "../src/clickhouse/ClickHouse.js"
import { Migrations } from "../src/clickhouse/migrations.js"
import { SqlEndpoint } from "../src/clickhouse/SqlEndpoint.js"
import { ClickHouseConfig, ConsumerConfig, KafkaConfig, settingConfig, settings } from "../src/config.js"
import { BundleConsumer } from "../src/consumer/BundleConsumer.js"
import { KafkaBrokers } from "../src/infra/KafkaBrokers.js"
import { parseCli } from "../src/infra/cli.js"
import { runMain } from "../src/infra/runMain.js"
import { KafkaClient } from "../src/kafka/KafkaClient.js"
import { Health } from "../src/ops/Health.js"
import { Metrics } from "../src/ops/Metrics.js"
import { OpsServerLayer } from "../src/ops/OpsServer.js"
import {
  announced,
  clickHouseStartLine,
  findSampleBlock,
  formatBanner,
  formatRunSummary,
  localKafkaStartLine,
  migrationsLine
} from "../src/ops/startup.js"
import { Producer } from "../src/producer/Producer.js"
import { ClickHouseSink } from "../src/sink/ClickHouseSink.js"
import { BodyRedecode } from "../src/store/BodyRedecode.js"
import { ProducerLive, producerRun, UpstreamChoice } from "./live.js"

const args = parseCli(
  { exit: { type: "boolean", default: false } },
  `usage: npm start [-- --exit]
  runs Kafka, ClickHouse, the producer, the consumer and the read API until Ctrl-C (settings: README.md);
  --exit ends the process after a backfill's summary`
)

const program = Effect.gen(function* () {
  const started = Date.now()
  const kafka = yield* KafkaBrokers
  const ch = yield* ClickHouse
  const report = yield* Migrations
  const upstream = yield* UpstreamChoice
  const run = yield* producerRun
  const metricsPort = yield* settingConfig(settings.metrics.port)
  const workers = run.decodeWorkers ?? 0
  const decoding = workers > 0 ? `${workers} decode worker thread${workers === 1 ? "" : "s"}` : "decoding on the main thread"
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
  const sql = yield* SqlEndpoint
  const banner = Effect.gen(function* () {
    const sample = yield* findSampleBlock(ch.query)
    return formatBanner({ api: address, sample, metrics: `http://127.0.0.1:${metricsPort}`, sql })
  })
  // Offline the banner waits for the backfill, so its example block is one just stored; online the run never ends.
  if (upstream.range === undefined && !args.exit) yield* Effect.flatMap(banner, Console.log)

  const summary = yield* Effect.flatMap(Producer, (producer) => producer.done)
  const last = summary.last
  if (last !== undefined) {
    // The backfill is over when the sink stored (or found stored) the last bundle; a failing consumer ends the wait.
    yield* sink.stored.changes.pipe(
      Stream.takeUntil((p) => p.top >= last),
      Stream.runDrain,
      Effect.raceFirst(consumer.done)
    )
  }
  const stored = yield* SubscriptionRef.get(sink.stored)
  yield* Console.log(
    formatRunSummary({
      first: summary.first,
      last: summary.last,
      bundles: summary.bundles,
      published: summary.transactions,
      stored: stored.transactions,
      alreadyStored: stored.alreadyDone,
      deadLetters: summary.deadLetters,
      seconds: (Date.now() - started) / 1000
    })
  )
  if (args.exit) return
  if (upstream.range !== undefined) yield* Effect.flatMap(banner, Console.log)
  return yield* consumer.done
})

// The consumer's progress line shows lag and ETA against the backfill's end when there is one.
const ConsumerLive = Layer.unwrapEffect(
  Effect.gen(function* () {
    const c = yield* ConsumerConfig
    const run = yield* producerRun
    const target = run.mode === "backfill" ? run.to : undefined
    return BundleConsumer.layerWith({
      groupId: c.group,
      batchRows: c.batchRows,
      batchBytes: c.batchBytes,
      fetchBytes: c.fetchBytes,
      batchMs: c.batchMs,
      sessionTimeoutMs: c.sessionTimeoutMs,
      progressTarget: () => target
    })
  })
).pipe(Layer.provide(UpstreamChoice.layer))

// Each slow step says what it is doing before it starts and how long it took after.
const KafkaBrokersAnnounced = announced(
  Effect.map(KafkaConfig, localKafkaStartLine),
  KafkaBrokers.layer,
  (s) => `kafka: ready (${s} s)`
)
const ClickHouseAnnounced = announced(
  Effect.map(ClickHouseConfig, clickHouseStartLine),
  ClickHouse.layer,
  (s) => `clickhouse: open (${s} s)`
)
const MigrationsAnnounced = announced(Effect.succeed(migrationsLine), Migrations.layer, (s) => `clickhouse: migrated (${s} s)`)

// The metrics port is taken beside the slow steps, so a busy METRICS_PORT stops the start-up at once.
const Ops = Layer.merge(Metrics.layer, Health.layer)
const Infra = Layer.mergeAll(KafkaBrokersAnnounced, ClickHouseAnnounced, Ops, OpsServerLayer.pipe(Layer.provide(Ops)))

// The API starts once decoded bodies of an older decoder are re-decoded: its response cache keeps what it renders.
const ApiLive = ApiServer.layer.pipe(Layer.provide(BodyRedecode.layerAwaited))

const Live = Layer.mergeAll(ProducerLive, ConsumerLive, ApiLive, SqlEndpoint.layer).pipe(
  Layer.provideMerge(Layer.mergeAll(ClickHouseSink.layer, MigrationsAnnounced, KafkaClient.layerNoDeps)),
  Layer.provideMerge(Infra)
)

runMain(program.pipe(Effect.provide(Live)))
