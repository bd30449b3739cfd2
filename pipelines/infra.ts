// The local infrastructure on its own: Kafka (KAFKA_BROKERS, or the local broker), ClickHouse with every migration
// applied, a status line, then up until Ctrl-C. Stopping closes ClickHouse and stops the broker cleanly, so the
// next start resumes on the same data directories.
import { Console, Effect, Layer } from "effect"
import { ClickHouse } from "../src/clickhouse/ClickHouse.js"
import { migrate } from "../src/clickhouse/migrations.js"
import { KafkaBrokers } from "../src/infra/KafkaBrokers.js"
import { runMain } from "../src/infra/runMain.js"

const program = Effect.gen(function* () {
  const kafka = yield* KafkaBrokers
  const ch = yield* ClickHouse
  const report = yield* migrate()
  yield* Console.log(
    [
      `kafka: ${kafka.brokers.join(",")}` +
        (kafka.local ? ` (local broker pid ${kafka.local.pid()}, log ${kafka.local.logFile})` : ""),
      `clickhouse: ${ch.backend} ${ch.location}, database ${ch.database}`,
      `migrations: ${report.applied.length} applied, ${report.skipped.length} already applied`,
      "ready; Ctrl-C stops"
    ].join("\n")
  )
  return yield* Effect.never
})

runMain(program.pipe(Effect.provide(Layer.mergeAll(KafkaBrokers.layer, ClickHouse.layer))))
