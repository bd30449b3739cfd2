// The one ClickHouse access path of the project: embedded chdb by default, a ClickHouse server when CLICKHOUSE_URL
// is set. Invariant: both backends get the same explicit output settings (64-bit integers quoted in JSON, UTC, plain
// date-time text), so a query returns byte-identical JSON whichever engine runs it; every client is bound to its
// database, which exists before the client is handed out.
import {
  ClickHouseLogLevel,
  createClient,
  type ClickHouseClient,
  type ClickHouseSettings as ChSettings
} from "@clickhouse/client"
import type { Session } from "chdb"
import type { createChdbConnection } from "chdb/connection"
import { Context, Effect, Layer, Redacted, Schema } from "effect"
import { accessSync, constants, createReadStream, mkdirSync } from "node:fs"
import { createRequire } from "node:module"
import { join, resolve } from "node:path"
import { Readable } from "node:stream"
import { ClickHouseConfig, type ClickHouseSettings, type TableCompression } from "../config.js"
import { type EngineOptions, withEngineConfig } from "./engineConfig.js"
import { FILE_INSERT_BYTES, fileInsertStatement, resetSpool, settingsClause, spoolDir, withSpoolFile } from "./fileInsert.js"
import { type BodyFile, processSpoolDir } from "./spool.js"

export class ClickHouseError extends Schema.TaggedError<ClickHouseError>()("ClickHouseError", {
  reason: Schema.Literal(
    // CLICKHOUSE_DATA_DIR is locked by another process, or a second data directory was asked for in this process.
    "DataDirUnavailable",
    // CLICKHOUSE_URL does not answer, or answers as something that is not ClickHouse.
    "Unreachable",
    // The server refused the credentials in CLICKHOUSE_USER / CLICKHOUSE_PASSWORD, or the user lacks a grant.
    "AuthenticationFailed",
    // The statement or the connection ran out of time (server-side limit or socket timeout).
    "Timeout",
    // The statement is not valid SQL: a bug, never retried into success.
    "SyntaxError",
    // A statement failed on a working engine.
    "QueryFailed",
    // An applied migration file changed after it was applied, or a migration statement failed.
    "MigrationFailed"
  ),
  message: Schema.String,
  cause: Schema.optional(Schema.Unknown)
}) {}

/**
 * Output and input settings whose defaults differ between chdb 26.x and the servers users run (ClickHouse PR 74079
 * turned 64-bit quoting off by default in 25.8). toncenter sends lt, fees and balances as JSON strings, so quoting
 * is on for every integer wider than 32 bits (it also covers Int128/UInt128/UInt256). Decimals and floats stay
 * numbers on both. Time zone is pinned so DateTime text never depends on the host.
 */
export const clickHouseSettings: ChSettings = {
  output_format_json_quote_64bit_integers: 1,
  output_format_json_quote_64bit_floats: 0,
  output_format_json_quote_decimals: 0,
  output_format_json_quote_denormals: 0,
  output_format_json_named_tuples_as_objects: 1,
  date_time_output_format: "simple",
  date_time_input_format: "best_effort",
  session_timezone: "UTC"
}

export type ClickHouseBackend = "chdb" | "server"

/** Rows already encoded by the caller, one per line, for `columns` of `table` in this database. */
export interface EncodedInsert {
  readonly table: string
  readonly columns: ReadonlyArray<string>
  readonly format: "JSONEachRow" | "JSONCompactEachRow" | "TabSeparated" | "RowBinary"
  /**
   * The bytes, whole, as the chunks an encoder wrote them into (sent or spooled one after another, never joined), or
   * in a file of `spoolPath` (read as it is; the caller removes it afterwards).
   */
  readonly body: InsertBody
  readonly settings?: Record<string, string | number>
}

export type InsertBody = Buffer | ReadonlyArray<Buffer> | BodyFile

const isBodyFile = (body: InsertBody): body is BodyFile => !Buffer.isBuffer(body) && !Array.isArray(body)

/** The chunks of an insert's body held in memory, in order. */
export const bodyChunks = (body: Buffer | ReadonlyArray<Buffer>): ReadonlyArray<Buffer> =>
  Buffer.isBuffer(body) ? [body] : body

/** Bytes of an insert's body. */
export const bodyBytes = (body: InsertBody): number =>
  isBodyFile(body) ? body.bytes : Buffer.isBuffer(body) ? body.length : body.reduce((n, c) => n + c.length, 0)

/** What the embedded engine gives back for one statement: its formatted output and what it read. */
export interface EngineResult {
  readonly bytes: Uint8Array
  readonly rowsRead: number
  readonly bytesRead: number
  readonly elapsedSec: number
}

/**
 * The embedded engine itself, for the SQL endpoint that serves it to other processes: one statement (with its
 * `{name:Type}` parameters, if any) in the named output format, exactly as the engine formats it.
 */
export interface EmbeddedEngine {
  readonly run: (sql: string, o: { readonly format: string; readonly params?: Record<string, string> }) => Promise<EngineResult>
  /**
   * Rows in `format` into `table` (database-qualified), parsed from the bytes as they are: text or binary formats
   * alike (a binary or large body read from a spool file, as the sink's own inserts).
   */
  readonly insert: (o: {
    readonly table: string
    readonly columns?: ReadonlyArray<string> | undefined
    readonly format: string
    readonly body: Buffer
    readonly settings?: Record<string, string | number>
  }) => Promise<void>
}

/** A client bound to one database, and what it runs on. Close it with `client.close()`. */
export interface ClickHouseHandle {
  readonly client: ClickHouseClient
  readonly database: string
  readonly backend: ClickHouseBackend
  /** `CLICKHOUSE_URL`, or the absolute chdb data directory. */
  readonly location: string
  /**
   * One INSERT statement of pre-encoded rows. chdb parses the bytes as they are (the client's own insert path would
   * copy them into the statement's text, which the engine parses 3-5x slower), a body of a megabyte or more read
   * from a spool file in its data directory (fileInsert.ts); a server gets them as the body.
   */
  readonly insertEncoded: (insert: EncodedInsert) => Promise<void>
  /**
   * A fresh path for an insert body's spool file (src/clickhouse/spool.ts), where this backend's inserts read it without a
   * copy: the embedded engine's spool directory (emptied when the engine opens), or this process's own directory
   * under the system's temporary one for a server (leftovers of processes no longer running removed on first use).
   */
  readonly spoolPath: () => string
  /** Only with the embedded engine (chdb): undefined when a ClickHouse server serves the data itself. */
  readonly embedded?: EmbeddedEngine
  /** The cluster the database lives on (CLICKHOUSE_CLUSTER); undefined for one server or embedded chdb. */
  readonly cluster?: string
}

/** What a client needs; `ClickHouseSettings` from config.ts satisfies it. */
export type ClickHouseClientConfig = Pick<ClickHouseSettings, "url" | "user" | "database" | "dataDir"> & {
  readonly password: string
  /** CLICKHOUSE_CLUSTER: empty or absent for a single server (and always for embedded chdb). */
  readonly cluster?: string
  /** CLICKHOUSE_LOOKUPS_CACHE_BYTES (embedded engine only); absent: RocksDB's own cache, as with 0. */
  readonly lookupsCacheBytes?: number
  /** CLICKHOUSE_V3_PAGES_COMPRESSION (embedded engine only); absent: the engine's own (ZSTD). */
  readonly v3PagesCompression?: TableCompression
  /** CLICKHOUSE_PAGES_MIN_BLOB_BYTES (embedded engine only); absent: values in RocksDB's table files, as with 0. */
  readonly pagesMinBlobBytes?: number
  /** CLICKHOUSE_KV_BLOOM_BITS (embedded engine only); absent: no Bloom filters (RocksDB's own), as with 0. */
  readonly kvBloomBits?: number
}

const quoteIdent = (name: string): string => {
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) throw new Error(`not a plain identifier: ${JSON.stringify(name)}`)
  return name
}

// chdb runs ONE engine per process on ONE data path. All clients of this process share it, reference-counted, and
// each is bound to its database by a `USE` in front of every statement (the chdb connection ignores the client's
// `database` option; the engine serializes statements of a session, so the prefix cannot interleave).
interface SharedEngine {
  readonly path: string
  readonly connection: ReturnType<typeof createChdbConnection>
  /** The native session that started the engine with its arguments, closed after `connection`. */
  readonly starter: Session | undefined
  refs: number
}
let engine: SharedEngine | undefined

/**
 * chdb's engine, loaded by the first embedded engine of the process rather than by importing this module: loading it
 * maps and initialises libchdb.so (~175-190 MB resident), which a process that talks to a ClickHouse server (a
 * consumer or API on CLICKHOUSE_URL) never needs.
 */
const loadChdb = (): typeof createChdbConnection =>
  (createRequire(import.meta.url)("chdb/connection") as { createChdbConnection: typeof createChdbConnection })
    .createChdbConnection

/**
 * The engine's first connection: a native session carrying the engine's arguments (the client's connection adapter
 * takes none) when there are any, then the adapter's connection, which shares the engine it started.
 */
const startEngine = (path: string, options: EngineOptions): Omit<SharedEngine, "refs"> =>
  withEngineConfig(options, (args) => {
    const starter =
      args.length === 0
        ? undefined
        : new (createRequire(import.meta.url)("chdb") as { Session: typeof Session }).Session(path, {
            connectionArgs: [...args]
          })
    try {
      return { path, connection: loadChdb()({ path }), starter }
    } catch (cause) {
      starter?.close()
      throw cause
    }
  })

/**
 * The process's engine on `path`, started with `options` by the first client of the process; a later client shares
 * it as started (one engine per process: its configuration is read once).
 */
const acquireEngine = (path: string, options: EngineOptions): SharedEngine => {
  if (engine !== undefined) {
    if (engine.path !== path) {
      throw new ClickHouseError({
        reason: "DataDirUnavailable",
        message:
          `CLICKHOUSE_DATA_DIR=${path}: this process already runs embedded ClickHouse on ${engine.path}; ` +
          "chdb allows one data directory per process"
      })
    }
    engine.refs++
    return engine
  }
  try {
    mkdirSync(path, { recursive: true })
    accessSync(path, constants.W_OK)
  } catch (cause) {
    throw new ClickHouseError({
      reason: "DataDirUnavailable",
      message: `CLICKHOUSE_DATA_DIR=${path}: cannot create or write the directory (${(cause as Error).message})`,
      cause
    })
  }
  try {
    engine = { ...startEngine(path, options), refs: 1 }
  } catch (cause) {
    throw new ClickHouseError({
      reason: "DataDirUnavailable",
      message:
        `CLICKHOUSE_DATA_DIR=${path}: embedded ClickHouse cannot open it; another process (a running exporter, ` +
        "API or test) probably holds it. Stop that process or set CLICKHOUSE_DATA_DIR to another directory",
      cause
    })
  }
  // Only once the engine holds the directory: another process's spool files are never this one's to remove.
  try {
    resetSpool(path)
    return engine
  } catch (cause) {
    const opened = engine
    engine = undefined
    void opened.connection.close().finally(() => opened.starter?.close())
    throw new ClickHouseError({
      reason: "DataDirUnavailable",
      message: `CLICKHOUSE_DATA_DIR=${path}: cannot prepare its insert spool directory (${(cause as Error).message})`,
      cause
    })
  }
}

const releaseEngine = async (shared: SharedEngine): Promise<void> => {
  shared.refs--
  if (shared.refs === 0 && engine === shared) {
    engine = undefined
    await shared.connection.close()
    shared.starter?.close()
  }
}

export type ChdbConnection = ReturnType<typeof createChdbConnection>
type RawInsertFormat = Parameters<ChdbConnection["chdb"]["rawInsert"]>[0]["format"]
/** Formats chdb's raw insert parses from the bytes as they are. */
const RAW_INSERT_FORMATS: ReadonlySet<string> = new Set([
  "JSONEachRow",
  "JSONCompactEachRow",
  "CSV",
  "CSVWithNames",
  "TSV",
  "TabSeparated",
  "TSVWithNames",
  "TabSeparatedWithNames"
])
// chdb compiles against its own copy of @clickhouse/client-common; the shapes match, the declarations do not.
export type ClientConnection = NonNullable<NonNullable<Parameters<typeof createClient>[0]>["connection"]>

/** The statement methods of a chdb connection, each run in `database` by a `USE` prefix. */
export const inDatabase = (base: ChdbConnection, database: string) => {
  const prefix = `USE ${quoteIdent(database)}; `
  return {
    query: (p: Parameters<ChdbConnection["query"]>[0]) => base.query({ ...p, query: prefix + p.query }),
    exec: (p: Parameters<ChdbConnection["exec"]>[0]) => base.exec({ ...p, query: prefix + p.query }),
    command: (p: Parameters<ChdbConnection["command"]>[0]) => base.command({ ...p, query: prefix + p.query }),
    insert: (p: Parameters<ChdbConnection["insert"]>[0]) => base.insert({ ...p, query: prefix + p.query }),
    ping: (p: Parameters<ChdbConnection["ping"]>[0]) => base.ping(p)
  }
}

/** A connection that runs every statement in `database` and releases the shared engine on close. */
const boundConnection = (
  shared: SharedEngine,
  database: string
): { readonly connection: ClientConnection; readonly isClosed: () => boolean } => {
  let closed = false
  const bound = {
    ...inDatabase(shared.connection, database),
    close: async () => {
      if (closed) return
      closed = true
      await releaseEngine(shared)
    }
  }
  return { connection: bound as unknown as ClientConnection, isClosed: () => closed }
}

// A server error body can be a whole HTML page; the first line is enough to recognise it.
const brief = (text: string | undefined): string => (text ?? "").trim().split("\n")[0]!.slice(0, 200)

/**
 * The reason of a failed call, by ClickHouse's exception code (both backends report it as `code`: the server through
 * @clickhouse/client, chdb through its connection adapter) or by Node's socket error code; undefined when neither
 * says more than "the statement failed".
 */
export const reasonOfCode = (cause: unknown): ClickHouseError["reason"] | undefined => {
  const code = String((cause as { code?: unknown } | null)?.code ?? "")
  switch (code) {
    case "516": // AUTHENTICATION_FAILED
    case "192": // UNKNOWN_USER
    case "497": // ACCESS_DENIED
      return "AuthenticationFailed"
    case "159": // TIMEOUT_EXCEEDED
    case "160": // TOO_SLOW
    case "209": // SOCKET_TIMEOUT
    case "ETIMEDOUT":
      return "Timeout"
    case "62": // SYNTAX_ERROR
      return "SyntaxError"
    case "210": // NETWORK_ERROR
    case "ECONNREFUSED":
    case "ECONNRESET":
    case "EPIPE":
    case "ENOTFOUND":
    case "EHOSTUNREACH":
      return "Unreachable"
    default:
      return undefined
  }
}

const classifyServerError = (cfg: ClickHouseClientConfig, cause: unknown): ClickHouseError => {
  const err = cause as { code?: string; type?: string; message?: string }
  if (reasonOfCode(cause) === "AuthenticationFailed") {
    return new ClickHouseError({
      reason: "AuthenticationFailed",
      message:
        `CLICKHOUSE_USER/CLICKHOUSE_PASSWORD: the server at CLICKHOUSE_URL=${cfg.url} refused them ` +
        `(${brief(err.message)})`,
      cause
    })
  }
  return new ClickHouseError({
    reason: "Unreachable",
    message: `CLICKHOUSE_URL=${cfg.url}: no ClickHouse server answers there (${brief(err?.message ?? String(cause))})`,
    cause
  })
}

// READONLY and ACCESS_DENIED: the server answered and refused the statement, it is not a connectivity problem.
const isReadOnlyRefusal = (cause: unknown): boolean => {
  const code = String((cause as { code?: unknown })?.code)
  return code === "164" || code === "497"
}

const databaseExists = async (client: ClickHouseClient, database: string): Promise<boolean> => {
  try {
    const rs = await client.query({
      query: "SELECT count() AS n FROM system.databases WHERE name = {database:String}",
      query_params: { database },
      format: "JSONEachRow"
    })
    const [row] = await rs.json<{ n: string | number }>()
    return Number(row?.n ?? 0) > 0
  } catch {
    return false
  }
}

// Bounds how long a wrong CLICKHOUSE_URL can stall start-up.
const CONNECT_TIMEOUT_MS = 10_000

/**
 * This process's spool directory for server inserts (made on first use), and the serial of every spool file's name
 * this process makes: one counter for all handles, so two sinks of one process never share a file.
 */
let spoolHome: string | undefined
let spoolSerial = 0

const makeServerClient = async (cfg: ClickHouseClientConfig & { url: string }): Promise<ClickHouseHandle> => {
  const common = {
    url: cfg.url,
    username: cfg.user,
    password: cfg.password,
    // On a cluster an insert into a distributed table returns once the shards have the rows, so the completion
    // marker, written last, is never ahead of the rows it vouches for.
    clickhouse_settings: cfg.cluster ? ({ ...clickHouseSettings, insert_distributed_sync: 1 } as ChSettings) : clickHouseSettings,
    request_timeout: 300_000
  }
  // Silent: its failure is reported once, as a ClickHouseError naming the setting, not as a logged stack.
  const admin = createClient({ ...common, request_timeout: CONNECT_TIMEOUT_MS, log: { level: ClickHouseLogLevel.OFF } })
  try {
    // A ping says nothing about credentials, so the first real statement doubles as the connectivity check.
    await admin.command({
      query: `CREATE DATABASE IF NOT EXISTS ${quoteIdent(cfg.database)}${cfg.cluster ? ` ON CLUSTER ${quoteIdent(cfg.cluster)}` : ""}`
    })
  } catch (cause) {
    // A read-only user (or another exporter's read-only SQL endpoint) cannot create it, but can read one that exists.
    if (!(isReadOnlyRefusal(cause) && (await databaseExists(admin, cfg.database)))) throw classifyServerError(cfg, cause)
  } finally {
    await admin.close()
  }
  const client = createClient({ ...common, database: cfg.database })
  const insertEncoded = async (insert: EncodedInsert): Promise<void> => {
    if (bodyBytes(insert.body) === 0) return
    // The client's insert takes JSON formats only as object streams; exec sends the bytes as they are, the
    // statement going in the URL as @clickhouse/client's own inserts send it.
    const body = insert.body
    const r = await client.exec({
      query: `INSERT INTO ${quoteIdent(insert.table)} (${insert.columns.map(quoteIdent).join(", ")}) FORMAT ${insert.format}`,
      values: isBodyFile(body) ? createReadStream(body.file) : Readable.from(bodyChunks(body), { objectMode: false }),
      clickhouse_settings: insert.settings ?? {}
    })
    r.stream.resume()
    await new Promise<void>((resolve, reject) => {
      r.stream.once("end", resolve)
      r.stream.once("error", reject)
    })
  }
  return {
    client,
    database: cfg.database,
    backend: "server",
    location: cfg.url,
    insertEncoded,
    spoolPath: () => join((spoolHome ??= processSpoolDir()), `${++spoolSerial}.body`),
    ...(cfg.cluster ? { cluster: cfg.cluster } : {})
  }
}

const makeChdbClient = async (cfg: ClickHouseClientConfig): Promise<ClickHouseHandle> => {
  const path = resolve(cfg.dataDir)
  const shared = acquireEngine(path, {
    lookupsCacheBytes: cfg.lookupsCacheBytes ?? 0,
    ...(cfg.v3PagesCompression === undefined ? {} : { v3PagesCompression: cfg.v3PagesCompression }),
    ...(cfg.pagesMinBlobBytes === undefined ? {} : { pagesMinBlobBytes: cfg.pagesMinBlobBytes }),
    ...(cfg.kvBloomBits === undefined ? {} : { kvBloomBits: cfg.kvBloomBits })
  })
  try {
    await shared.connection.command({ query: `CREATE DATABASE IF NOT EXISTS ${quoteIdent(cfg.database)}` })
  } catch (cause) {
    await releaseEngine(shared)
    throw new ClickHouseError({
      reason: "QueryFailed",
      message: `CLICKHOUSE_DATA_DIR=${path}: cannot create database ${cfg.database} (${(cause as Error).message})`,
      cause
    })
  }
  const { connection, isClosed } = boundConnection(shared, cfg.database)
  const client = createClient({ connection, clickhouse_settings: clickHouseSettings })
  // The raw insert names the table with its database instead of a `USE` prefix; materialized views resolve their
  // tables from their own definitions, so they fire exactly as for the client's insert.
  // A large body, and any body in a format the raw insert does not take (RowBinary and the other binary ones), goes
  // through a spool file (FROM INFILE, src/clickhouse/fileInsert.ts): the same statement, read from the file instead
  // of copied through the raw path. Both the sink's inserts and the SQL endpoint's (EmbeddedEngine.insert) come here.
  const insertBody = async (o: {
    /** Qualified with its database, as a statement names it. */
    readonly table: string
    readonly columns: ReadonlyArray<string> | undefined
    readonly format: string
    readonly body: InsertBody
    readonly settings: Record<string, string | number> | undefined
  }): Promise<void> => {
    const body = o.body
    const bytes = bodyBytes(body)
    if (bytes === 0) return
    if (isClosed()) throw new Error("ClickHouse client is closed")
    const settings = { ...(clickHouseSettings as Record<string, string | number>), ...o.settings }
    const fromFile = async (file: string) => {
      if (isClosed()) throw new Error("ClickHouse client is closed")
      const statement = fileInsertStatement({
        table: o.table,
        columns: o.columns?.map(quoteIdent),
        format: quoteIdent(o.format),
        file,
        settings: settingsClause(settings, quoteIdent)
      })
      await shared.connection.chdb.queryAsync(statement, { format: "TSV" })
    }
    // A body already in a file (spooled as it was encoded) is read where it is.
    if (isBodyFile(body)) return fromFile(body.file)
    if (bytes >= FILE_INSERT_BYTES || !RAW_INSERT_FORMATS.has(o.format)) {
      await withSpoolFile(path, bodyChunks(body), fromFile)
      return
    }
    // Below FILE_INSERT_BYTES: the raw path takes one buffer, so a body of several chunks is joined (under a megabyte).
    const chunks = bodyChunks(body)
    const values = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, bytes)
    await shared.connection.chdb.rawInsert({
      table: o.table,
      ...(o.columns === undefined ? {} : { columns: o.columns }),
      values,
      format: o.format as RawInsertFormat,
      settings
    })
  }
  const insertEncoded = (insert: EncodedInsert): Promise<void> =>
    insertBody({
      table: `${quoteIdent(cfg.database)}.${quoteIdent(insert.table)}`,
      columns: insert.columns,
      format: insert.format,
      body: insert.body,
      settings: insert.settings
    })
  const embedded: EmbeddedEngine = {
    run: async (sql, { format, params }) => {
      if (isClosed()) throw new Error("ClickHouse client is closed")
      if (params !== undefined && Object.keys(params).length > 0) {
        // Parameter binding is only reachable through the connection's query path, which reports no read counters.
        const started = performance.now()
        const { stream } = await shared.connection.query({
          query: sql,
          query_params: params,
          clickhouse_settings: { default_format: format }
        } as Parameters<ChdbConnection["query"]>[0])
        const chunks: Array<Buffer> = []
        for await (const chunk of stream) chunks.push(Buffer.from(chunk as Uint8Array))
        return { bytes: Buffer.concat(chunks), rowsRead: 0, bytesRead: 0, elapsedSec: (performance.now() - started) / 1000 }
      }
      const r = await shared.connection.chdb.queryAsync(sql, { format })
      return { bytes: r.bytes(), rowsRead: r.rowsRead, bytesRead: r.bytesRead, elapsedSec: r.elapsed }
    },
    insert: ({ table, columns, format, body, settings }) => insertBody({ table, columns, format, body, settings })
  }
  const spoolPath = () => join(spoolDir(path), `${process.pid}-s${++spoolSerial}.body`)
  return { client, database: cfg.database, backend: "chdb", location: path, insertEncoded, spoolPath, embedded }
}

/**
 * A ready client for non-Effect code: database created, connectivity checked. Rejects with `ClickHouseError` whose
 * message names the setting to fix (CLICKHOUSE_URL, CLICKHOUSE_DATA_DIR, CLICKHOUSE_USER/PASSWORD).
 */
export const makeClickHouseClient = async (cfg: ClickHouseClientConfig): Promise<ClickHouseHandle> => {
  quoteIdent(cfg.database)
  if (cfg.cluster && !(cfg.url !== undefined && cfg.url !== "")) {
    throw new ClickHouseError({
      reason: "QueryFailed",
      message: `CLICKHOUSE_CLUSTER=${cfg.cluster}: a cluster needs CLICKHOUSE_URL (embedded chdb is one node)`
    })
  }
  return cfg.url !== undefined && cfg.url !== "" ? makeServerClient({ ...cfg, url: cfg.url }) : makeChdbClient(cfg)
}

const toError = (database: string, what: string) => (cause: unknown) =>
  cause instanceof ClickHouseError
    ? cause
    : new ClickHouseError({
        reason: reasonOfCode(cause) ?? "QueryFailed",
        message: `${what} in ${database}: ${(cause as Error)?.message ?? String(cause)}`,
        cause
      })

/** The ClickHouse service: one client per process for everything that reads or writes the database. */
export class ClickHouse extends Context.Tag("ton-exporter/ClickHouse")<
  ClickHouse,
  ClickHouseHandle & {
    /** Rows of a SELECT as JSON objects (64-bit integers as strings). */
    readonly query: <A = Record<string, unknown>>(
      sql: string,
      params?: Record<string, unknown>
    ) => Effect.Effect<ReadonlyArray<A>, ClickHouseError>
    /** A statement without result rows (DDL, INSERT ... SELECT). */
    readonly command: (sql: string, params?: Record<string, unknown>) => Effect.Effect<void, ClickHouseError>
    /** Rows into `table` as JSONEachRow. */
    readonly insert: (table: string, rows: ReadonlyArray<unknown>) => Effect.Effect<void, ClickHouseError>
  }
>() {
  /** Build the service from explicit settings (tests, tools). */
  static readonly fromConfig = (cfg: ClickHouseClientConfig) =>
    Layer.scoped(
      ClickHouse,
      Effect.gen(function* () {
        const handle = yield* Effect.acquireRelease(
          Effect.tryPromise({
            try: () => makeClickHouseClient(cfg),
            catch: (cause) =>
              cause instanceof ClickHouseError
                ? cause
                : new ClickHouseError({ reason: "QueryFailed", message: String(cause), cause })
          }),
          (h) => Effect.promise(() => h.client.close())
        )
        const { client, database } = handle
        return ClickHouse.of({
          ...handle,
          query: <A>(sql: string, params?: Record<string, unknown>) =>
            Effect.tryPromise({
              try: async () => {
                const rs = await client.query({ query: sql, query_params: params, format: "JSONEachRow" })
                return (await rs.json()) as ReadonlyArray<A>
              },
              catch: toError(database, "query failed")
            }),
          command: (sql: string, params?: Record<string, unknown>) =>
            Effect.tryPromise({
              try: () => client.command({ query: sql, query_params: params }).then(() => undefined),
              catch: toError(database, "statement failed")
            }),
          insert: (table: string, rows: ReadonlyArray<unknown>) =>
            Effect.tryPromise({
              try: () =>
                client.insert({ table, values: rows as Array<unknown>, format: "JSONEachRow" }).then(() => undefined),
              catch: toError(database, `insert into ${table} failed`)
            })
        })
      })
    )

  /** Live layer: settings from the environment (CLICKHOUSE_*). */
  static readonly layer = Layer.unwrapEffect(
    Effect.map(ClickHouseConfig, (cfg) => ClickHouse.fromConfig({ ...cfg, password: Redacted.value(cfg.password) }))
  )
}
