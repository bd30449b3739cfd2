/**
 * Builds the toncenter-compatible read API as a Fastify instance (never listens: tests inject, the
 * runnable in pipelines/api.ts listens). One plugin per resource; one error table for the whole edge.
 * Invariant: every answer is JSON in the dialect of its path (v2: ton-http-api, v3: ton-index-go), and a
 * client mistake, including unknown routes, wrong methods and unparsable bodies, is a 4xx, never a 5xx.
 */
import Fastify, { type FastifyError, type FastifyInstance } from "fastify"
import type { Duplex } from "node:stream"
import type { Network } from "../config.js"
import { parseJsonExact } from "./assemble/jsonBody.js"
import { ApiError, apiErrorBody, errorBody, flavorOf, invalid } from "./errors.js"
import type { Clock, Deps } from "./handlers.js"
import { registerMetrics } from "./metrics.js"
import { ResponseCache } from "./cache.js"
import { collectRoutes } from "./openapi.js"
import { tonRenderers, type Renderers } from "./render.js"
import { sendJson } from "./reply.js"
import { checkGate, makeGate } from "./security.js"
import type { TxStore } from "../store/TxStore.js"
import { systemRoutes } from "./routes/system.js"
import { v2BlockRoutes } from "./routes/v2Blocks.js"
import { v3BlockRoutes } from "./routes/v3Blocks.js"
import { v3TransactionRoutes } from "./routes/v3Transactions.js"

export interface ApiAppConfig {
  readonly network: Network
  readonly api: { readonly keys: ReadonlyArray<string>; readonly rateLimit: number }
  /** Process-level metrics (event loop, memory) on /metrics: on in the runnable, off in tests. */
  readonly processMetrics?: boolean
  readonly logger?: boolean
  /** Byte budget of the rendered-response cache (default 64 MiB); 0 turns it off. */
  readonly cacheBytes?: number
}

export interface BuildAppOptions {
  readonly store: TxStore
  readonly config: ApiAppConfig
  /** Defaults to the TON domain's renderers; tests may substitute their own. */
  readonly render?: Renderers
  readonly clock?: Clock
}

const DEFAULT_CACHE_BYTES = 64 * 1024 * 1024

/** JSON-RPC bodies are tiny; anything bigger is a mistake or an attack. */
const BODY_LIMIT = 64 * 1024

export const buildApp = ({ store, config, render, clock }: BuildAppOptions): FastifyInstance => {
  const app = Fastify({
    logger: config.logger ?? false,
    bodyLimit: BODY_LIMIT,
    return503OnClosing: true,
    clientErrorHandler: clientError
  })
  const time = clock ?? { nowMs: Date.now, random: Math.random }
  const cacheBytes = config.cacheBytes ?? DEFAULT_CACHE_BYTES
  const deps: Deps = {
    store,
    render: render ?? tonRenderers,
    testnet: config.network === "testnet",
    clock: time,
    cache: cacheBytes > 0 ? new ResponseCache(cacheBytes, time.nowMs) : null
  }
  const openapi = collectRoutes(app)
  const gate = makeGate(config.api.keys, config.api.rateLimit, deps.clock.nowMs)

  app.removeContentTypeParser("application/json")
  app.addContentTypeParser("application/json", { parseAs: "string" }, (_req, body, done) => {
    try {
      done(null, parseJsonExact(body as string))
    } catch {
      done(invalid("Validation error: request body is not valid JSON"), undefined)
    }
  })

  // Browsers call toncenter from any origin (it answers with these headers too); preflights need no key.
  app.addHook("onSend", async (_req, reply) => {
    reply.header("access-control-allow-origin", "*")
  })
  app.options("*", { schema: { hide: true } as Record<string, unknown> }, async (_req, reply) =>
    reply
      .code(204)
      .header("access-control-allow-methods", "GET, POST, OPTIONS")
      .header("access-control-allow-headers", "Content-Type, X-API-Key, X-No-Address-Book")
      .header("access-control-max-age", "86400")
      .send()
  )
  app.addHook("onRequest", async (req) => {
    if (req.method !== "OPTIONS") checkGate(gate, req)
  })

  app.setNotFoundHandler(async (req, reply) => {
    const path = req.url.split("?", 1)[0]!
    const flavor = flavorOf(path)
    const other = (["GET", "POST"] as const).some((m) => m !== req.method && app.hasRoute({ method: m, url: path }))
    const { status, body } = other
      ? errorBody(flavor, 405, "Method Not Allowed")
      : errorBody(flavor, 404, flavor === "v3" ? `route ${req.method} ${path} not found` : "Not Found")
    return sendJson(reply, flavor, status, body)
  })

  app.setErrorHandler(async (error: FastifyError | ApiError, req, reply) => {
    const flavor = flavorOf(req.url)
    if (error instanceof ApiError) {
      const { status, body } = apiErrorBody(flavor, error)
      return sendJson(reply, flavor, status, body)
    }
    if (error.validation) {
      const message = error.validation.map(describeValidation).join("; ")
      const { status, body } = errorBody(flavor, 422, flavor === "v2" ? `Validation error: ${message}` : message)
      return sendJson(reply, flavor, status, body)
    }
    const code = error.statusCode ?? 500
    if (code >= 400 && code < 500) {
      const { status, body } = errorBody(flavor, code, error.message)
      return sendJson(reply, flavor, status, body)
    }
    req.log.error({ err: error }, "request failed")
    const { status, body } = errorBody(flavor, 500, "internal server error")
    return sendJson(reply, flavor, status, body)
  })

  registerMetrics(app, { processMetrics: config.processMetrics ?? false, cache: deps.cache })
  app.register(systemRoutes, { store, openapi })
  app.register(v2BlockRoutes, { deps })
  app.register(v3TransactionRoutes, { deps })
  app.register(v3BlockRoutes, { deps })
  return app
}

/**
 * Requests Node's HTTP parser refuses before any route runs (oversize headers or URL, garbage): answered in the
 * v2 shape, since the path is not known reliably at that point.
 */
function clientError(err: NodeJS.ErrnoException, socket: Duplex): void {
  if (err.code === "ECONNRESET" || socket.destroyed) return
  const [status, message] =
    err.code === "HPE_HEADER_OVERFLOW"
      ? [431, "Request Header Fields Too Large"]
      : err.code === "ERR_HTTP_REQUEST_TIMEOUT"
        ? [408, "Request Timeout"]
        : [400, "Bad Request"]
  const body = JSON.stringify(errorBody("v2", status, message).body)
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${message}\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
        `Content-Type: application/json\r\nConnection: close\r\n\r\n${body}`
    )
  }
  socket.destroy()
}

interface AjvError {
  readonly instancePath: string
  readonly keyword: string
  readonly message?: string
  readonly params: Record<string, unknown>
}

/** "seqno: field required" rather than Ajv's "querystring must have required property 'seqno'". */
const describeValidation = (e: AjvError): string => {
  if (e.keyword === "required") return `${String(e.params.missingProperty)}: field required`
  const field = e.instancePath.replace(/^\//, "").replace(/\//g, ".")
  return `${field === "" ? "request" : field}: ${e.message ?? e.keyword}`
}
