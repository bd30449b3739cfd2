// Embedded ClickHouse as a server for other processes: opens chdb on CLICKHOUSE_DATA_DIR, applies the migrations
// once, and serves ClickHouse's HTTP interface (reads and writes) on SQL_HOST:SQL_PORT until Ctrl-C. Producers,
// consumers of one group and API processes then share one store through CLICKHOUSE_URL=http://SQL_HOST:SQL_PORT/.
// Loopback by default; any other SQL_HOST needs SQL_USER and SQL_PASSWORD, which clients send as CLICKHOUSE_USER
// and CLICKHOUSE_PASSWORD.
import { Console, Effect, Layer } from "effect"
import { ClickHouse } from "../src/clickhouse/ClickHouse.js"
import { migrate } from "../src/clickhouse/migrations.js"
import { SqlEndpoint, SqlEndpointError } from "../src/clickhouse/SqlEndpoint.js"
import { runMain } from "../src/infra/runMain.js"

const program = Effect.gen(function* () {
  const ch = yield* ClickHouse
  if (ch.embedded === undefined) {
    return yield* new SqlEndpointError({
      reason: "ListenFailed",
      message: `CLICKHOUSE_URL=${ch.location}: a ClickHouse server already serves the data; unset it to serve embedded chdb`
    })
  }
  const report = yield* migrate()
  yield* Console.log(
    `migrations on chdb ${ch.location} database ${ch.database}: ${report.applied.length} applied, ${report.skipped.length} already applied`
  )
  return yield* Layer.launch(
    Layer.effectDiscard(
      Effect.flatMap(SqlEndpoint, (sql) =>
        sql.kind === "endpoint"
          ? Console.log(`clickhouse: read-write ClickHouse HTTP on ${sql.url} (database ${ch.database}); set CLICKHOUSE_URL=${sql.url} in the other processes`)
          : Effect.dieMessage("SQL_PORT=0: the server needs a port")
      )
    ).pipe(Layer.provide(SqlEndpoint.layerWritable))
  )
})

runMain(program.pipe(Effect.provide(ClickHouse.layer)))
