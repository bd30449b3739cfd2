// The consumer on its own: Kafka bundle topic -> ClickHouse (CLICKHOUSE_URL, or embedded chdb in
// CLICKHOUSE_DATA_DIR), migrations applied first, then decoded bodies of an older body decoder re-decoded beside the
// ingest (src/store/BodyRedecode.ts). Batching by CONSUMER_BATCH_ROWS / CONSUMER_BATCH_BYTES / CONSUMER_BATCH_MS,
// group CONSUMER_GROUP. Metrics and /health on METRICS_PORT. Runs until Ctrl-C; a restart continues where ClickHouse
// is. With embedded chdb it serves read-only SQL on SQL_HOST:SQL_PORT, so an API or analytics process elsewhere
// reads the same data through CLICKHOUSE_URL.
import { Console, Effect, Layer } from "effect"
import { ClickHouse } from "../src/clickhouse/ClickHouse.js"
import { Migrations } from "../src/clickhouse/migrations.js"
import { SqlEndpoint } from "../src/clickhouse/SqlEndpoint.js"
import { BundleConsumer } from "../src/consumer/BundleConsumer.js"
import { runMain } from "../src/infra/runMain.js"
import { KafkaClient } from "../src/kafka/KafkaClient.js"
import { Health } from "../src/ops/Health.js"
import { Metrics } from "../src/ops/Metrics.js"
import { OpsServerLayer } from "../src/ops/OpsServer.js"
import { ClickHouseSink } from "../src/sink/ClickHouseSink.js"
import { BodyRedecode } from "../src/store/BodyRedecode.js"

const Live = Layer.mergeAll(BundleConsumer.layer, OpsServerLayer, SqlEndpoint.layer, BodyRedecode.layer).pipe(
  Layer.provide(Layer.mergeAll(ClickHouseSink.layer, Migrations.layer, KafkaClient.layer)),
  Layer.provideMerge(Layer.mergeAll(ClickHouse.layer, Metrics.layer, Health.layer))
)

const program = Effect.gen(function* () {
  const sql = yield* SqlEndpoint
  if (sql.kind === "endpoint") yield* Console.log(`sql: read-only ClickHouse HTTP on ${sql.url}`)
  return yield* Effect.flatMap(BundleConsumer, (consumer) => consumer.done)
})

runMain(program.pipe(Effect.provide(Live)))
