/**
 * Prometheus metrics of the API on a registry owned by one app instance (tests build many apps).
 * Invariant: the route label is the route pattern, never the raw URL, so label cardinality stays bounded.
 */
import type { FastifyInstance } from "fastify"
import { Counter, Histogram, Registry, collectDefaultMetrics } from "prom-client"

export const registerMetrics = (app: FastifyInstance, o: { readonly processMetrics: boolean }): Registry => {
  const registry = new Registry()
  if (o.processMetrics) collectDefaultMetrics({ register: registry })
  const duration = new Histogram({
    name: "api_request_duration_seconds",
    help: "Time from request to response, by route and status",
    labelNames: ["method", "route", "status"] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [registry]
  })
  const total = new Counter({
    name: "api_requests_total",
    help: "Requests answered, by route and status",
    labelNames: ["method", "route", "status"] as const,
    registers: [registry]
  })
  app.addHook("onResponse", async (req, reply) => {
    const labels = { method: req.method, route: req.routeOptions.url ?? "unmatched", status: String(reply.statusCode) }
    duration.observe(labels, reply.elapsedTime / 1000)
    total.inc(labels)
  })
  app.get("/metrics", { schema: { hide: true } as Record<string, unknown> }, async (_req, reply) =>
    reply.header("content-type", registry.contentType).send(await registry.metrics())
  )
  return registry
}
