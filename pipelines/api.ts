// The read API on its own: toncenter-compatible v2/v3 endpoints served from ClickHouse (CLICKHOUSE_URL, or the
// embedded engine on CLICKHOUSE_DATA_DIR) on API_HOST:API_PORT, until Ctrl-C / SIGTERM, which drains in-flight
// requests before exiting. Docs on /api/docs, metrics on /metrics, liveness on /health. With embedded chdb it also
// serves read-only SQL on SQL_HOST:SQL_PORT.
import { Console, Effect, Layer } from "effect"
import { ApiServer } from "../src/api/ApiServer.js"
import { ClickHouse } from "../src/clickhouse/ClickHouse.js"
import { SqlEndpoint } from "../src/clickhouse/SqlEndpoint.js"
import { runMain } from "../src/infra/runMain.js"

const program = Effect.gen(function* () {
  const { address } = yield* ApiServer
  const ch = yield* ClickHouse
  const sql = yield* SqlEndpoint
  yield* Console.log(
    `api: listening on ${address} (clickhouse ${ch.backend} ${ch.location}); docs at ${address}/api/docs` +
      (sql.kind === "endpoint" ? `; read-only SQL on ${sql.url}` : "")
  )
  return yield* Effect.never
})

runMain(
  program.pipe(Effect.provide(Layer.merge(ApiServer.layer, SqlEndpoint.layer).pipe(Layer.provideMerge(ClickHouse.layer))))
)
