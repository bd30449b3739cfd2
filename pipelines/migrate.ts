// Applies the pending sql/NNNN_*.sql migrations to CLICKHOUSE_DATABASE and exits.
// Safe to run any number of times: applied files are skipped, a changed applied file stops with its name.
import { Console, Effect } from "effect"
import { ClickHouse } from "../src/clickhouse/ClickHouse.js"
import { migrate } from "../src/clickhouse/migrations.js"
import { runMain } from "../src/infra/runMain.js"

const program = Effect.gen(function* () {
  const ch = yield* ClickHouse
  const report = yield* migrate()
  yield* Console.log(
    `migrations on ${ch.backend} ${ch.location} database ${ch.database}: ` +
      `${report.applied.length} applied${report.applied.length > 0 ? ` (${report.applied.join(", ")})` : ""}, ` +
      `${report.skipped.length} already applied`
  )
})

runMain(program.pipe(Effect.provide(ClickHouse.layer)))
