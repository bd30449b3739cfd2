/**
 * Builds the toncenter-compatible read API as a Fastify instance (never listens: tests inject, the
 * runnable in pipelines/api.ts listens). One plugin per resource; one error table for the whole edge.
 * Invariant: every answer is JSON in the dialect of its path (v2: ton-http-api, v3: ton-index-go), and a
 * client mistake, including unknown routes, wrong methods and unparsable bodies, is a 4xx, never a 5xx.
 */
import Fastify, { type FastifyError, type FastifyInstance } from "fastify"
import type { IncomingMessage } from "node:http"
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
    // answered by the onRequest hook below instead, so the 503 comes in the path's dialect
    return503OnClosing: false,
    clientErrorHandler: clientError
  })
  // Node hands CONNECT to a "connect" listener and drops the socket when there is none: answer it instead.
  app.server.on("connect", (req: IncomingMessage, socket: Duplex) => {
    const target = req.url ?? ""
    const { status, body } = errorBody(flavorOf(target), 405, "Method Not Allowed")
    const allow = allowOf(app, target.split("?", 1)[0]!) || "GET, HEAD, POST, OPTIONS"
    writeRaw(socket, status, "Method Not Allowed", JSON.stringify(body), `Allow: ${allow}\r\n`)
  })
  let closing = false
  app.addHook("preClose", async () => {
    closing = true
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
  app.addHook("onRequest", async (req, reply) => {
    if (closing) {
      reply.header("connection", "close")
      throw new ApiError({ reason: "unavailable", message: "Service Unavailable: the server is shutting down" })
    }
    if (req.is404 && req.method !== "OPTIONS") {
      // before any body handling, so a method with a body (QUERY, PUT) learns what the path allows, not a parser error
      const allow = allowOf(app, req.url.split("?", 1)[0]!)
      if (allow !== "") {
        reply.header("allow", allow)
        throw new ApiError({ reason: "method_not_allowed", message: "Method Not Allowed" })
      }
    }
    if (req.method !== "OPTIONS") checkGate(gate, req)
  })
  // A repeated parameter arrives as an array; name the mistake before the schema calls it "must be string".
  app.addHook("preValidation", async (req) => {
    const declared = (req.routeOptions.schema?.querystring as { properties?: object } | undefined)?.properties
    const query = req.query as Record<string, unknown> | undefined
    if (declared === undefined || query === undefined) return
    for (const name of Object.keys(declared)) {
      if (Array.isArray(query[name])) throw invalid(`${name}: given more than once`)
    }
  })

  app.setNotFoundHandler(async (req, reply) => {
    const path = req.url.split("?", 1)[0]!
    const flavor = flavorOf(path)
    const allow = allowOf(app, path)
    if (allow !== "") reply.header("allow", allow)
    const { status, body } =
      allow !== ""
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
      const message = error.validation.map((e) => describeValidation(e, error.validationContext)).join("; ")
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

/** The methods a path answers (for `Allow`), or "" when no route has that path. */
const allowOf = (app: FastifyInstance, path: string): string => {
  const methods = (["GET", "POST"] as const).filter((m) => app.hasRoute({ method: m, url: path }))
  if (methods.length === 0) return ""
  return [...methods.flatMap((m) => (m === "GET" ? ["GET", "HEAD"] : [m])), "OPTIONS"].join(", ")
}

/** The request target of a raw request, as far as it was received (the parser refused it, so it may be cut). */
const rawTarget = (packet: unknown): string => {
  if (!Buffer.isBuffer(packet)) return ""
  const line = packet.subarray(0, 2048).toString("latin1").split("\r\n", 1)[0]!
  return line.split(" ")[1] ?? ""
}

/**
 * Requests Node's HTTP parser refuses before any route runs (oversize headers or URL, garbage): answered in the
 * dialect of the request target when it can be read from what arrived, the v2 shape otherwise.
 */
function clientError(err: NodeJS.ErrnoException & { rawPacket?: unknown }, socket: Duplex): void {
  if (err.code === "ECONNRESET" || socket.destroyed) return
  const [status, message] =
    err.code === "HPE_HEADER_OVERFLOW"
      ? [431, "Request Header Fields Too Large"]
      : err.code === "ERR_HTTP_REQUEST_TIMEOUT"
        ? [408, "Request Timeout"]
        : [400, "Bad Request"]
  writeRaw(socket, status, message, JSON.stringify(errorBody(flavorOf(rawTarget(err.rawPacket)), status, message).body))
}

/** A whole HTTP/1.1 answer written straight to a socket Fastify never saw, which is then closed. */
function writeRaw(socket: Duplex, status: number, reason: string, body: string, extraHeaders = ""): void {
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${reason}\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
        `Content-Type: application/json\r\nAccess-Control-Allow-Origin: *\r\n${extraHeaders}` +
        `Connection: close\r\n\r\n${body}`
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

/**
 * "seqno: field required" rather than Ajv's "querystring must have required property 'seqno'"; a body that is not
 * an object says so rather than "request: must be object".
 */
const describeValidation = (e: AjvError, context: string | undefined): string => {
  if (e.keyword === "required") return `${String(e.params.missingProperty)}: field required`
  const field = e.instancePath.replace(/^\//, "").replace(/\//g, ".")
  if (field === "" && e.keyword === "type" && context === "body") return "request body: must be a JSON object"
  return `${field === "" ? "request" : field}: ${e.message ?? e.keyword}`
}
