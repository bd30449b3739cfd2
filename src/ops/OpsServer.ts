/**
 * The operations endpoint: `GET /metrics` (Prometheus text) and `GET /health` (200 when every stage reported in
 * time, 503 otherwise, JSON detail either way). Listens on loopback by default; it is for operators, not the public.
 * Invariant: it is there for the whole run or the run does not start (a taken METRICS_PORT is a start-up error),
 * and closing it takes at most its drain deadline whatever scrapers do.
 */
import { Effect, Layer, Schema } from "effect"
import { createServer, type Server } from "node:http"
import { settingConfig, settings } from "../config.js"
import { Health } from "./Health.js"
import { closeWithDeadline, describeClosed, trackConnections } from "./httpShutdown.js"
import { Metrics } from "./Metrics.js"

export class OpsServerError extends Schema.TaggedError<OpsServerError>()("OpsServerError", {
  reason: Schema.Literal("ListenFailed"),
  message: Schema.String
}) {}

const CLOSE_DEADLINE_MS = 2_000

export const startOpsServer = (port: number, host = "127.0.0.1") =>
  Effect.gen(function* () {
    const metrics = yield* Metrics
    const health = yield* Health
    const server: Server = createServer((req, res) => {
      const path = (req.url ?? "/").split("?")[0]
      if (path === "/metrics") {
        metrics.registry.metrics().then(
          (text) => {
            res.writeHead(200, { "content-type": metrics.registry.contentType })
            res.end(text)
          },
          (e: unknown) => {
            res.writeHead(500)
            res.end(String(e))
          }
        )
      } else if (path === "/health") {
        const snap = health.snapshot()
        res.writeHead(snap.ok ? 200 : 503, { "content-type": "application/json" })
        res.end(JSON.stringify(snap))
      } else {
        res.writeHead(404)
        res.end()
      }
    })
    trackConnections(server)
    yield* Effect.acquireRelease(
      Effect.async<void, OpsServerError>((resume) => {
        server.once("error", (e: NodeJS.ErrnoException) =>
          resume(
            Effect.fail(
              new OpsServerError({
                reason: "ListenFailed",
                message:
                  `METRICS_PORT=${port}: cannot serve /metrics and /health on ${host}:${port} ` +
                  `(${e.code === "EADDRINUSE" ? "the port is taken by another process" : e.message}); ` +
                  "stop that process or choose another METRICS_PORT"
              })
            )
          )
        )
        server.listen(port, host, () => resume(Effect.void))
      }),
      () =>
        Effect.flatMap(
          Effect.promise(() => closeWithDeadline(server, CLOSE_DEADLINE_MS)),
          (closed) => Effect.logInfo(describeClosed("metrics", closed, CLOSE_DEADLINE_MS))
        )
    )
    const address = server.address()
    return { port: typeof address === "object" && address !== null ? address.port : port }
  })

/** Metrics are part of the contract the banner advertises: a taken port stops the start-up with its name. */
export const OpsServerLive = (port: number, host?: string) => Layer.scopedDiscard(startOpsServer(port, host))

/** The endpoint on METRICS_PORT, for the runnables' layer composition. */
export const OpsServerLayer = Layer.unwrapEffect(Effect.map(settingConfig(settings.metrics.port), (port) => OpsServerLive(port)))
