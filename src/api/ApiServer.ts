/**
 * The API as a service: builds the app over the ClickHouse-backed store and listens on API_HOST:API_PORT
 * for the lifetime of its scope. Invariant: closing the scope (SIGINT/SIGTERM via runMain) stops accepting
 * connections, answers new requests on kept-alive sockets with 503 and lets in-flight requests finish
 * before the ClickHouse client underneath is closed; sockets still open after the drain deadline (a client that
 * sent half a request, a slow reader) are destroyed, so closing never waits on a client.
 */
import { Context, Effect, Layer, Schema } from "effect"
import type { FastifyInstance } from "fastify"
import { ClickHouse } from "../clickhouse/ClickHouse.js"
import { ApiConfig, NetworkConfig } from "../config.js"
import { closeWithDeadline, describeClosed, trackConnections } from "../ops/httpShutdown.js"
import { readClients } from "../store/readers.js"
import { ClickHouseTxStore } from "../store/Store.js"
import { buildApp } from "./app.js"
import { overviewRoutes } from "../analytics/page/routes.js"

export class ApiServerError extends Schema.TaggedError<ApiServerError>()("ApiServerError", {
  reason: Schema.Literal("ListenFailed"),
  message: Schema.String
}) {}

/** How long requests in flight get to finish at shutdown before their sockets are cut. */
const CLOSE_DEADLINE_MS = 3_000

export class ApiServer extends Context.Tag("ton-exporter/ApiServer")<
  ApiServer,
  { readonly app: FastifyInstance; readonly address: string }
>() {
  /** Listening API over the ClickHouse service; settings from API_* and NETWORK. */
  static readonly layer = Layer.scoped(
    ApiServer,
    Effect.gen(function* () {
      const api = yield* ApiConfig
      const network = yield* NetworkConfig
      const ch = yield* ClickHouse
      const readers = yield* Effect.acquireRelease(
        Effect.sync(() => readClients(ch, api.readConnections)),
        (r) => Effect.promise(() => r.close())
      )
      const app = buildApp({
        // key-value page rows (sql/0131, sql/0132) are off on a cluster: per node, never written there
        store: new ClickHouseTxStore(readers.clients, {
          pageKv: ch.cluster === undefined,
          sharing: { count: api.readSharing, inFlight: api.readSharedStatements, extraAfter: api.readSharedAfter }
        }),
        config: { network, api, processMetrics: true, logger: false, cacheBytes: api.cacheBytes }
      })
      // the human-facing overview page reads ClickHouse's analytics views directly, beside the toncenter routes
      app.register(overviewRoutes, { client: ch.client })
      trackConnections(app.server)
      const address = yield* Effect.acquireRelease(
        Effect.tryPromise({
          try: () => app.listen({ host: api.host, port: api.port }),
          catch: (e) =>
            new ApiServerError({
              reason: "ListenFailed",
              message: `API_HOST=${api.host} API_PORT=${api.port}: cannot listen (${String((e as Error)?.message)})`
            })
        }),
        () =>
          Effect.flatMap(
            Effect.promise(() => closeWithDeadline(app.server, CLOSE_DEADLINE_MS, () => app.close())),
            (closed) => Effect.logInfo(describeClosed("api", closed, CLOSE_DEADLINE_MS))
          )
      )
      return ApiServer.of({ app, address })
    })
  )
}
