/**
 * Prometheus metrics of the API on a registry owned by one app instance (tests build many apps).
 * Invariant: the route label is the route pattern, never the raw URL, so label cardinality stays bounded.
 */
import type { FastifyInstance } from "fastify"
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from "prom-client"
import type { ResponseCache } from "./cache.js"

export const registerMetrics = (
  app: FastifyInstance,
  o: { readonly processMetrics: boolean; readonly cache: ResponseCache | null }
): Registry => {
  const registry = new Registry()
  if (o.processMetrics) collectDefaultMetrics({ register: registry })
  const cache = o.cache
  if (cache !== null) {
    new Gauge({
      name: "api_cache_bytes",
      help: "Bytes of rendered answers held by the response cache",
      registers: [registry],
      collect() {
        this.set(cache.size)
      }
    })
    new Gauge({
      name: "api_cache_lookups",
      help: "Response cache lookups since start, by result",
      labelNames: ["result"] as const,
      registers: [registry],
      collect() {
        this.set({ result: "hit" }, cache.hits)
        this.set({ result: "miss" }, cache.misses)
      }
    })
  }
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
