// The consumer on its own: Kafka bundle topic -> ClickHouse (CLICKHOUSE_URL, or embedded chdb in
// CLICKHOUSE_DATA_DIR), migrations applied first. Batching by CONSUMER_BATCH_ROWS / CONSUMER_BATCH_BYTES /
// CONSUMER_BATCH_MS, group CONSUMER_GROUP. Metrics and /health on METRICS_PORT. Runs until Ctrl-C; a restart
// continues where ClickHouse is. With embedded chdb it serves read-only SQL on SQL_HOST:SQL_PORT, so an API or
// analytics process elsewhere reads the same data through CLICKHOUSE_URL.
import { Console, Effect, Layer } from "effect"
import { ClickHouse } from "../src/clickhouse/ClickHouse.js"
import { migrate } from "../src/clickhouse/migrations.js"
import { SqlEndpoint } from "../src/clickhouse/SqlEndpoint.js"
import { ConsumerConfig, KafkaConfig, NetworkConfig, settingConfig, settings } from "../src/config.js"
import { runConsumer } from "../src/consumer/BundleConsumer.js"
import { KafkaBrokers } from "../src/infra/KafkaBrokers.js"
import { runMain } from "../src/infra/runMain.js"
import { KafkaClient, optionsFromSettings } from "../src/kafka/KafkaClient.js"
import { Health } from "../src/ops/Health.js"
import { Metrics } from "../src/ops/Metrics.js"
import { OpsServerLive } from "../src/ops/OpsServer.js"
import { ClickHouseSink } from "../src/sink/ClickHouseSink.js"

const program = Effect.gen(function* () {
  yield* migrate()
  const sql = yield* SqlEndpoint
  if (sql.kind === "endpoint") yield* Console.log(`sql: read-only ClickHouse HTTP on ${sql.url}`)
  const c = yield* ConsumerConfig
  return yield* runConsumer({
    groupId: c.group,
    batchRows: c.batchRows,
    batchBytes: c.batchBytes,
    batchMs: c.batchMs,
    sessionTimeoutMs: c.sessionTimeoutMs
  })
})

const KafkaLive = Layer.unwrapEffect(
  Effect.gen(function* () {
    const s = yield* KafkaConfig
    const network = yield* NetworkConfig
    const { brokers } = yield* KafkaBrokers
    return KafkaClient.layerWith(optionsFromSettings({ ...s, brokers }, network))
  })
).pipe(Layer.provide(KafkaBrokers.layer))

const OpsLive = Layer.unwrapEffect(Effect.map(settingConfig(settings.metrics.port), (port) => OpsServerLive(port)))

const Base = Layer.mergeAll(KafkaLive, ClickHouse.layer, Metrics.layer, Health.layer)

runMain(
  program.pipe(
    Effect.provide(OpsLive),
    Effect.provide(Layer.merge(ClickHouseSink.layer, SqlEndpoint.layer)),
    Effect.provide(Base)
  )
)
