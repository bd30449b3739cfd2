/**
 * ClickHouse's HTTP interface over the embedded engine, so SQL clients (curl, @clickhouse/client, Grafana's
 * ClickHouse data source, other exporter processes with CLICKHOUSE_URL) use the data while the process that owns the
 * engine runs. Read-only by default: every statement passes `checkReadOnly` and then runs with `readonly=2` (reads
 * and per-query settings only, as a ClickHouse server runs GET requests) in its own SETTINGS clause, never a
 * session-wide SET, so the writer sharing the engine is unaffected. Writable (`writable: true`, the standalone
 * server): POST also runs DDL, DELETE and INSERT (rows in the body go to the engine's own parser as they are).
 * Either way nothing reaching outside the database runs, and every failure is an HTTP error with ClickHouse's
 * `Code: N. DB::Exception: ...` text and X-ClickHouse-Exception-Code header.
 */
import { Context, Effect, Layer, Schema } from "effect"
import { randomUUID, timingSafeEqual } from "node:crypto"
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http"
import { isIP } from "node:net"
import { createGunzip, createInflate, gzipSync, deflateSync } from "node:zlib"
import { ClickHouse, type EmbeddedEngine, type EngineResult } from "./ClickHouse.js"
import {
  blockedFunctions,
  checkReadOnly,
  checkSqlExposure,
  checkStatement,
  insertWithData,
  isReading,
  SqlRejected
} from "./sqlGuard.js"
import { closeWithDeadline, describeClosed, trackConnections } from "../ops/httpShutdown.js"
import { SqlConfig, type SqlSettings } from "../config.js"

export class SqlEndpointError extends Schema.TaggedError<SqlEndpointError>()("SqlEndpointError", {
  reason: Schema.Literal("ListenFailed"),
  message: Schema.String
}) {}

export interface SqlEndpointOptions {
  readonly engine: EmbeddedEngine
  /** Statements run in this database unless the request names another (`database=` or X-ClickHouse-Database). */
  readonly database: string
  readonly host: string
  readonly port: number
  /** Both empty: any user name is accepted without a password (loopback only, see `checkSqlExposure`). */
  readonly user: string
  readonly password: string
  /** Engine version for error texts and headers. */
  readonly version?: string
  /** Drain time given to open connections at shutdown before they are cut. */
  readonly closeDeadlineMs?: number
  /** POST runs writes too (DDL, INSERT, DELETE); GET stays read-only, as on a ClickHouse server. */
  readonly writable?: boolean
}

export interface RunningSqlEndpoint {
  readonly url: string
  readonly server: Server
  readonly close: () => Promise<string>
}

/** Largest query text accepted (ClickHouse's own max_query_size default is 256 KiB). */
const MAX_QUERY_BYTES = 1024 * 1024
/** Largest body of rows one INSERT request may carry (the consumer's batches are bounded far below it). */
const MAX_INSERT_BYTES = 1024 * 1024 * 1024

/** URL parameters that belong to the HTTP protocol, not to the engine's settings. */
const PROTOCOL_PARAMS = new Set([
  "query",
  "database",
  "default_format",
  "query_id",
  "session_id",
  "session_timeout",
  "session_check",
  "user",
  "password",
  "quota_key",
  "role",
  "compress",
  "decompress",
  "buffer_size",
  "wait_end_of_query",
  "enable_http_compression",
  "http_zlib_compression_level",
  "http_response_compression_method",
  "send_progress_in_http_headers",
  "http_headers_progress_interval_ms",
  "http_send_progress_interval_ms",
  "http_response_buffer_size",
  "add_http_cors_header",
  "stacktrace",
  "readonly",
  "max_query_size"
])

/** ClickHouse's HTTP statuses for exception codes (its HTTPHandler), for the codes this endpoint meets. */
const statusOf = (code: number): number => {
  if (code === 194) return 401
  if (code === 516 || code === 192 || code === 193 || code === 497 || code === 164) return 403
  if ([60, 46, 47, 50, 56, 81, 115, 63, 73, 78].includes(code)) return 404
  if ([62, 6, 26, 27, 32, 38, 41, 72, 53, 43, 42, 36, 456, 457].includes(code)) return 400
  if (code === 202) return 413
  return 500
}

interface Failure {
  readonly code: number
  readonly type: string
  readonly message: string
}

const failureOf = (e: unknown): Failure => {
  if (e instanceof SqlRejected) return { code: e.code, type: e.type, message: e.message }
  const err = e as { clickhouseCode?: unknown; code?: unknown; type?: unknown; message?: unknown }
  const message = typeof err?.message === "string" ? err.message : String(e)
  const m = /Code: (\d+)\. DB::Exception: .*\(([A-Z0-9_]+)\)/s.exec(message)
  const code =
    typeof err?.clickhouseCode === "number"
      ? err.clickhouseCode
      : m !== null
        ? Number(m[1])
        : /^\d+$/.test(String(err?.code))
          ? Number(err.code)
          : 1001
  return { code, type: m?.[2] ?? (typeof err?.type === "string" ? err.type : "STD_EXCEPTION"), message }
}

const exceptionText = (f: Failure, version: string): string =>
  f.message.startsWith("Code: ")
    ? `${f.message.trimEnd()}\n`
    : `Code: ${f.code}. DB::Exception: ${f.message}. (${f.type}) (version ${version})\n`

const CONTENT_TYPES: ReadonlyArray<readonly [RegExp, string]> = [
  [/^(JSON|JSONCompact|JSONStrings|JSONCompactStrings|JSONColumns|JSONColumnsWithMetadata|JSONCompactColumns|JSONObjectEachRow)$/i, "application/json; charset=UTF-8"],
  [/^(JSONEachRow|JSONStringsEachRow|JSONCompactEachRow|JSONCompactStringsEachRow|NDJSON|JSONLines)/i, "application/x-ndjson; charset=UTF-8"],
  [/^(TabSeparated|TSV)/i, "text/tab-separated-values; charset=UTF-8"],
  [/^CSV/i, "text/csv; charset=UTF-8; header=absent"],
  [/^(Native|RowBinary|Parquet|Arrow|ArrowStream|ORC|Avro|MsgPack|Protobuf|CapnProto|BSONEachRow|Npy)/i, "application/octet-stream"]
]
const contentTypeOf = (format: string): string =>
  CONTENT_TYPES.find(([re]) => re.test(format))?.[1] ?? "text/plain; charset=UTF-8"

const safeEqual = (a: string, b: string): boolean => {
  const x = Buffer.from(a)
  const y = Buffer.from(b)
  return x.length === y.length && timingSafeEqual(x, y)
}

/** User and password from X-ClickHouse-User/Key, basic auth or `user`/`password` parameters, in that order. */
const credentialsOf = (req: IncomingMessage, params: URLSearchParams): { user: string; password: string } => {
  const hUser = req.headers["x-clickhouse-user"]
  if (typeof hUser === "string") {
    const key = req.headers["x-clickhouse-key"]
    return { user: hUser, password: typeof key === "string" ? key : "" }
  }
  const auth = req.headers.authorization
  if (typeof auth === "string" && /^basic /i.test(auth)) {
    const text = Buffer.from(auth.slice(6).trim(), "base64").toString("utf8")
    const colon = text.indexOf(":")
    return colon === -1 ? { user: text, password: "" } : { user: text.slice(0, colon), password: text.slice(colon + 1) }
  }
  return { user: params.get("user") ?? "default", password: params.get("password") ?? "" }
}

const readBody = (req: IncomingMessage, limit: number = MAX_QUERY_BYTES): Promise<Buffer> =>
  new Promise((resolve, reject) => {
    const encoding = String(req.headers["content-encoding"] ?? "").toLowerCase()
    const source =
      encoding === "gzip" ? req.pipe(createGunzip()) : encoding === "deflate" ? req.pipe(createInflate()) : req
    const chunks: Array<Buffer> = []
    let size = 0
    source.on("data", (c: Buffer) => {
      size += c.length
      if (size > limit) {
        source.destroy()
        reject(new SqlRejected(62, "SYNTAX_ERROR", `Max query size exceeded: the request body is over ${limit} bytes`))
      } else chunks.push(c)
    })
    source.on("end", () => resolve(Buffer.concat(chunks)))
    source.on("error", (e) => reject(new SqlRejected(62, "SYNTAX_ERROR", `Cannot read the request body: ${e.message}`)))
  })

const IDENT = /^[A-Za-z_][A-Za-z0-9_]*$/

/** The INSERT ... FORMAT of a URL whose body holds the rows; undefined for any other statement. */
const insertTarget = (query: string) => {
  try {
    return insertWithData(checkStatement(query, new Set()))
  } catch {
    return undefined
  }
}

const settingLiteral = (value: string): string =>
  /^-?\d+(\.\d+)?$/.test(value) ? value : `'${value.replace(/\\/g, "\\\\").replace(/'/g, "\\'")}'`

const settingValue = (value: string): string | number =>
  /^-?\d+(\.\d+)?$/.test(value) && Number.isSafeInteger(Math.trunc(Number(value))) ? Number(value) : value

/** The engine's table functions, read once: everything beyond the safe ones is refused. */
const loadBlocked = async (engine: EmbeddedEngine): Promise<ReadonlySet<string>> => {
  const r = await engine.run("SELECT name FROM system.table_functions", { format: "TabSeparatedRaw" })
  return blockedFunctions(Buffer.from(r.bytes).toString("utf8").split("\n").filter((s) => s !== ""))
}

export const startSqlEndpoint = async (o: SqlEndpointOptions): Promise<RunningSqlEndpoint> => {
  const version =
    o.version ??
    Buffer.from((await o.engine.run("SELECT version()", { format: "TabSeparatedRaw" })).bytes).toString("utf8").trim()
  const blocked = await loadBlocked(o.engine)
  const needsAuth = o.user !== "" || o.password !== ""

  const failWith = (res: ServerResponse, common: Record<string, string>, f: Failure): void => {
    if (res.headersSent) return void res.destroy()
    const text = exceptionText(f, version)
    res.writeHead(statusOf(f.code), {
      ...common,
      "Content-Type": "text/plain; charset=UTF-8",
      "X-ClickHouse-Exception-Code": String(f.code),
      "Content-Length": Buffer.byteLength(text)
    })
    res.end(text)
  }

  const handle = async (
    req: IncomingMessage,
    res: ServerResponse,
    url: URL,
    common: Record<string, string>
  ): Promise<void> => {
    const fail = (f: Failure): void => failWith(res, common, f)
    if (url.pathname === "/ping" || (url.pathname === "/" && req.method === "GET" && !url.searchParams.has("query"))) {
      if (req.method !== "GET" && req.method !== "HEAD") return fail({ code: 1001, type: "BAD_REQUEST", message: "/ping answers GET" })
      res.writeHead(200, { "Content-Type": "text/html; charset=UTF-8", "Content-Length": 4 })
      res.end("Ok.\n")
      return
    }
    if (url.pathname === "/replicas_status") {
      res.writeHead(200, { "Content-Type": "text/plain; charset=UTF-8", "Content-Length": 4 })
      res.end("Ok.\n")
      return
    }
    if (url.pathname !== "/" && url.pathname !== "/query") {
      return fail({ code: 1001, type: "BAD_REQUEST", message: `There is no handle ${url.pathname}. Use / for queries and /ping for liveness` })
    }
    if (req.method === "OPTIONS") {
      res.writeHead(204, {
        ...common,
        "Access-Control-Allow-Methods": "GET, POST, OPTIONS",
        "Access-Control-Allow-Headers": "Authorization, Content-Type, X-ClickHouse-User, X-ClickHouse-Key, X-ClickHouse-Format, X-ClickHouse-Database"
      })
      res.end()
      return
    }
    if (req.method !== "GET" && req.method !== "POST") {
      return fail({ code: 1001, type: "BAD_REQUEST", message: `HTTP method ${req.method} is not supported; use GET or POST` })
    }
    const who = credentialsOf(req, url.searchParams)
    if (needsAuth && !(safeEqual(who.user, o.user) && safeEqual(who.password, o.password))) {
      return fail({
        code: 516,
        type: "AUTHENTICATION_FAILED",
        message: `${who.user}: Authentication failed: password is incorrect, or there is no user with such name`
      })
    }
    const database = url.searchParams.get("database") ?? String(req.headers["x-clickhouse-database"] ?? "") ?? ""
    const db = database === "" ? o.database : database
    if (!IDENT.test(db)) return fail({ code: 81, type: "UNKNOWN_DATABASE", message: `Database ${JSON.stringify(db)} does not exist` })

    const fromParam = url.searchParams.get("query") ?? ""
    const writes = o.writable === true && req.method === "POST"
    // An INSERT named in the URL takes its rows from the body (as @clickhouse/client sends them).
    const target = writes && fromParam !== "" ? insertTarget(fromParam) : undefined

    const settings: Array<[string, string]> = []
    const params: Record<string, string> = {}
    for (const [k, v] of url.searchParams) {
      if (k.startsWith("param_")) params[k.slice(6)] = v
      else if (!PROTOCOL_PARAMS.has(k)) {
        if (!IDENT.test(k)) return fail({ code: 115, type: "UNKNOWN_SETTING", message: `Unknown setting ${JSON.stringify(k)}` })
        settings.push([k, v])
      }
    }

    if (target !== undefined) {
      const rows = await readBody(req, MAX_INSERT_BYTES)
      const into = target.database ?? db
      if (!IDENT.test(into) || !IDENT.test(target.table)) {
        return fail({ code: 60, type: "UNKNOWN_TABLE", message: `Table ${into}.${target.table} does not exist` })
      }
      await o.engine.insert({
        table: `${into}.${target.table}`,
        columns: target.columns,
        format: target.format,
        body: rows,
        settings: Object.fromEntries(settings.map(([k, v]) => [k, settingValue(v)]))
      })
      respond(res, req, url, common, "TabSeparated", new Uint8Array(0), { rowsRead: 0, bytesRead: 0, elapsedSec: 0 })
      return
    }

    const body = req.method === "POST" ? (await readBody(req)).toString("utf8") : ""
    const text = fromParam !== "" && body !== "" ? `${fromParam}\n${body}` : fromParam + body
    const checked = writes ? checkStatement(text, blocked) : undefined
    const statement = checked ?? checkReadOnly(text, blocked)
    const reading = checked === undefined || isReading(checked)

    const headerFormat = req.headers["x-clickhouse-format"]
    const format =
      statement.format ??
      (typeof headerFormat === "string" && headerFormat !== "" ? headerFormat : undefined) ??
      (url.searchParams.get("default_format") || "TabSeparated")
    if (!IDENT.test(format)) return fail({ code: 73, type: "UNKNOWN_FORMAT", message: `Unknown format ${format}` })

    const clause = (writes ? settings : [["readonly", "2"] as [string, string], ...settings]).map(
      ([k, v]) => `${k}=${settingLiteral(v)}`
    )
    // A reading statement takes its settings in its own SETTINGS clause. DDL and mutations have no such clause (on
    // CREATE TABLE it would name table settings), so they get them as SETs, as chdb's own client applies settings.
    const sql = reading
      ? `USE ${db}; ${statement.sql}${clause.length > 0 ? `\nSETTINGS ${clause.join(", ")}` : ""}`
      : `USE ${db}; ${settings.map(([k, v]) => `SET ${k} = ${settingLiteral(v)}; `).join("")}${statement.sql}`
    const result = await o.engine.run(sql, { format, params })
    respond(res, req, url, common, format, result.bytes, result)
  }

  const respond = (
    res: ServerResponse,
    req: IncomingMessage,
    url: URL,
    common: Record<string, string>,
    format: string,
    bytes: Uint8Array,
    result: Pick<EngineResult, "rowsRead" | "bytesRead" | "elapsedSec">
  ): void => {
    let payload: Uint8Array = bytes
    const headers: Record<string, string | number> = {
      ...common,
      "Content-Type": contentTypeOf(format),
      "X-ClickHouse-Format": format,
      "X-ClickHouse-Summary": JSON.stringify({
        read_rows: String(result.rowsRead),
        read_bytes: String(result.bytesRead),
        written_rows: "0",
        written_bytes: "0",
        total_rows_to_read: String(result.rowsRead),
        result_bytes: String(bytes.length),
        elapsed_ns: String(Math.round(result.elapsedSec * 1e9))
      })
    }
    const accept = String(req.headers["accept-encoding"] ?? "")
    if (url.searchParams.get("enable_http_compression") === "1" && payload.length > 0) {
      if (/\bgzip\b/.test(accept)) {
        payload = gzipSync(payload)
        headers["Content-Encoding"] = "gzip"
      } else if (/\bdeflate\b/.test(accept)) {
        payload = deflateSync(payload)
        headers["Content-Encoding"] = "deflate"
      }
    }
    headers["Content-Length"] = payload.length
    res.writeHead(200, headers)
    res.end(payload)
  }

  const server = createServer((req, res) => {
    let url: URL | undefined
    try {
      url = new URL(req.url ?? "/", "http://sql.invalid")
    } catch {
      url = undefined
    }
    const common: Record<string, string> = {
      "X-ClickHouse-Server-Display-Name": "ton-exporter",
      "X-ClickHouse-Query-Id": url?.searchParams.get("query_id") || randomUUID(),
      "X-ClickHouse-Timezone": "UTC",
      "Access-Control-Allow-Origin": "*"
    }
    if (url === undefined) return failWith(res, common, { code: 1001, type: "BAD_REQUEST", message: "Malformed request URL" })
    handle(req, res, url, common).catch((e: unknown) => failWith(res, common, failureOf(e)))
  })
  // A query can take a while; a client that never finishes sending its request is cut by the drain deadline.
  server.requestTimeout = 300_000
  trackConnections(server)
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject)
    server.listen(o.port, o.host, () => {
      server.off("error", reject)
      resolve()
    })
  })
  const address = server.address()
  const port = typeof address === "object" && address !== null ? address.port : o.port
  const host = isIP(o.host) === 6 ? `[${o.host}]` : o.host
  const deadline = o.closeDeadlineMs ?? 3_000
  return {
    url: `http://${host}:${port}/`,
    server,
    close: async () => describeClosed("sql", await closeWithDeadline(server, deadline), deadline)
  }
}

/** What the banner says about SQL access. */
export type SqlAccess =
  | { readonly kind: "endpoint"; readonly url: string }
  | { readonly kind: "server"; readonly url: string }
  | { readonly kind: "off" }

/** The SQL endpoint for the lifetime of the layer; with CLICKHOUSE_URL (a real server) or SQL_PORT=0, none. */
export class SqlEndpoint extends Context.Tag("ton-exporter/SqlEndpoint")<SqlEndpoint, SqlAccess>() {
  static readonly fromSettings = (cfg: SqlSettings, options: { readonly writable?: boolean } = {}) =>
    Layer.scoped(
      SqlEndpoint,
      Effect.gen(function* () {
        const ch = yield* ClickHouse
        if (ch.embedded === undefined) return { kind: "server", url: ch.location } as SqlAccess
        if (cfg.port === 0) return { kind: "off" } as SqlAccess
        const exposure = checkSqlExposure(cfg)
        if (exposure !== undefined) return yield* new SqlEndpointError({ reason: "ListenFailed", message: exposure })
        const engine = ch.embedded
        const running = yield* Effect.acquireRelease(
          Effect.tryPromise({
            try: () =>
              startSqlEndpoint({
                engine,
                database: ch.database,
                host: cfg.host,
                port: cfg.port,
                user: cfg.user,
                password: cfg.password,
                writable: options.writable ?? false
              }),
            catch: (e) =>
              new SqlEndpointError({
                reason: "ListenFailed",
                message: `SQL_HOST=${cfg.host} SQL_PORT=${cfg.port}: cannot serve SQL there (${(e as Error)?.message ?? String(e)})`
              })
          }),
          (r) => Effect.flatMap(Effect.promise(r.close), (line) => Effect.logInfo(line))
        )
        return { kind: "endpoint", url: running.url } as SqlAccess
      })
    )

  static readonly layer = Layer.unwrapEffect(Effect.map(SqlConfig, (cfg) => SqlEndpoint.fromSettings(cfg)))

  /** The standalone server: reads and writes over SQL_HOST:SQL_PORT (credentials required outside loopback). */
  static readonly layerWritable = Layer.unwrapEffect(
    Effect.map(SqlConfig, (cfg) => SqlEndpoint.fromSettings(cfg, { writable: true }))
  )
}
