/**
 * The operations endpoint: `GET /metrics` (Prometheus text) and `GET /health` (200 when every stage reported in
 * time, 503 otherwise, JSON detail either way). Listens on loopback by default; it is for operators, not the public.
 */
import { Effect, Layer } from "effect"
import { createServer, type Server } from "node:http"
import { settingConfig, settings } from "../config.js"
import { Health } from "./Health.js"
import { Metrics } from "./Metrics.js"

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
    yield* Effect.acquireRelease(
      Effect.async<void, Error>((resume) => {
        server.once("error", (e) => resume(Effect.fail(e)))
        server.listen(port, host, () => resume(Effect.void))
      }),
      () => Effect.async<void>((resume) => void server.close(() => resume(Effect.void)))
    )
    const address = server.address()
    return { port: typeof address === "object" && address !== null ? address.port : port }
  })

/** Metrics are for operators: a taken port is reported and the pipeline runs on without the endpoint. */
export const OpsServerLive = (port: number, host?: string) =>
  Layer.scopedDiscard(
    startOpsServer(port, host).pipe(
      Effect.tap(({ port }) => Effect.logInfo(`ops: /metrics and /health on http://${host ?? "127.0.0.1"}:${port}`)),
      Effect.catchAll((e) => Effect.logWarning(`ops: no /metrics and /health endpoint (${e.message})`))
    )
  )

/** The endpoint on METRICS_PORT, for the runnables' layer composition. */
export const OpsServerLayer = Layer.unwrapEffect(Effect.map(settingConfig(settings.metrics.port), (port) => OpsServerLive(port)))
