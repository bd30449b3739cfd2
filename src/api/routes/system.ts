/**
 * Operational routes: liveness with the newest served masterchain block, the OpenAPI document and the
 * browsable docs page. Invariant: none of them needs an API key or counts against a rate limit.
 */
import type { FastifyPluginAsync } from "fastify"
import type { TxStore } from "../../store/TxStore.js"
import { exampleSource } from "../examples.js"
import { DOCS_HTML, type OpenApiDocument } from "../openapi.js"

export const systemRoutes: FastifyPluginAsync<{
  readonly store: TxStore
  readonly openapi: OpenApiDocument
}> = async (app, { store, openapi }) => {
  const example = exampleSource(store)
  const hidden = { hide: true } as Record<string, unknown>
  app.get("/health", { schema: hidden }, async (_req, reply) => {
    try {
      const last = await store.lastDoneMcSeqno()
      return reply.header("cache-control", "no-store").send({ status: "ok", last_mc_seqno: last })
    } catch (e) {
      return reply
        .code(503)
        .header("cache-control", "no-store")
        .send({ status: "unavailable", error: String(e) })
    }
  })
  app.get("/api/openapi.json", { schema: hidden }, async (_req, reply) =>
    reply.header("cache-control", "no-store").send(openapi(await example()))
  )
  app.get("/api/docs", { schema: hidden }, async (_req, reply) =>
    reply.type("text/html; charset=utf-8").send(DOCS_HTML)
  )
}
