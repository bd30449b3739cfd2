// The consumer on its own: Kafka bundle topic -> ClickHouse (CLICKHOUSE_URL, or embedded chdb in
// CLICKHOUSE_DATA_DIR), migrations applied first. Batching by CONSUMER_BATCH_ROWS / CONSUMER_BATCH_BYTES /
// CONSUMER_BATCH_MS, group CONSUMER_GROUP. Metrics and /health on METRICS_PORT. Runs until Ctrl-C; a restart
// continues where ClickHouse is.
import { Effect, Layer } from "effect"
import { ClickHouse } from "../src/clickhouse/ClickHouse.js"
import { Migrations } from "../src/clickhouse/migrations.js"
import { BundleConsumer } from "../src/consumer/BundleConsumer.js"
import { runMain } from "../src/infra/runMain.js"
import { KafkaClient } from "../src/kafka/KafkaClient.js"
import { Health } from "../src/ops/Health.js"
import { Metrics } from "../src/ops/Metrics.js"
import { OpsServerLayer } from "../src/ops/OpsServer.js"
import { ClickHouseSink } from "../src/sink/ClickHouseSink.js"

const Live = Layer.mergeAll(BundleConsumer.layer, OpsServerLayer).pipe(
  Layer.provide(Layer.mergeAll(ClickHouseSink.layer, Migrations.layer, KafkaClient.layer)),
  Layer.provide(Layer.mergeAll(ClickHouse.layer, Metrics.layer, Health.layer))
)

runMain(Effect.flatMap(BundleConsumer, (consumer) => consumer.done).pipe(Effect.provide(Live)))
