/**
 * The toncenter HTTP adapter: one place that sends requests, paces them (requests per second shared by every call),
 * bounds how many are in flight, retries with exponential backoff and jitter, and classifies every failure into an
 * UpstreamError reason. Invariant: callers only ever see a validated result or a classified error; retries are
 * decided by the reason alone, and every attempt (first or retry) takes its own pacing slot.
 */
import { Clock, Duration, Effect, Schedule, Schema } from "effect"
import http from "node:http"
import https from "node:https"
import type { Readable } from "node:stream"
import zlib from "node:zlib"
import { defaultToncenterRps } from "../config.js"
import type { ToncenterOptions, UpstreamErrorReason } from "./types.js"
import { retryableReasons, UpstreamError } from "./types.js"
import {
  BlockHeaderJson,
  BlockIdExtJson,
  BlockTransactionsExtJson,
  Envelope,
  MasterchainInfoJson,
  ShardsJson,
  V3AccountStatesJson
} from "./schemas.js"

export type QueryValue = string | number | ReadonlyArray<string> | undefined
export type Query = Readonly<Record<string, QueryValue>>

export interface BlockRef {
  readonly workchain: number
  readonly shard: string
  readonly seqno: number
  readonly root_hash?: string | undefined
  readonly file_hash?: string | undefined
}

export interface ToncenterHttp {
  readonly masterchainInfo: Effect.Effect<typeof MasterchainInfoJson.Type, UpstreamError>
  readonly lookupBlock: (id: BlockRef) => Effect.Effect<BlockIdExtJson, UpstreamError>
  readonly blockHeader: (id: BlockRef) => Effect.Effect<BlockHeaderJson, UpstreamError>
  readonly shards: (mcSeqno: number) => Effect.Effect<typeof ShardsJson.Type, UpstreamError>
  readonly blockTransactionsExt: (
    id: BlockRef,
    page: { readonly count: number; readonly afterLt?: string | undefined; readonly afterHash?: string | undefined }
  ) => Effect.Effect<BlockTransactionsExtJson, UpstreamError>
  readonly accountStates: (addresses: ReadonlyArray<string>) => Effect.Effect<V3AccountStatesJson, UpstreamError>
}

const v2Base = (url: string): string => {
  const u = url.replace(/\/+$/, "")
  return /\/api\/v2$/.test(u) ? u : `${u}/api/v2`
}

const v3Base = (url: string): string => {
  const u = url.replace(/\/+$/, "")
  return /\/api\/v3$/.test(u) ? u : `${u}/api/v3`
}

const buildUrl = (base: string, method: string, query: Query): string => {
  const u = new URL(`${base}/${method}`)
  for (const [k, v] of Object.entries(query)) {
    if (v === undefined) continue
    if (typeof v === "string" || typeof v === "number") u.searchParams.append(k, String(v))
    else for (const item of v) u.searchParams.append(k, item)
  }
  return u.toString()
}

const fail = (reason: UpstreamErrorReason, message: string, url: string) => new UpstreamError({ reason, message, url })

/** Maps an HTTP status (and toncenter's own error text for liteserver misses) to a reason. */
export const classifyStatus = (status: number, errorText: string): UpstreamErrorReason => {
  if (status === 429) return "rate_limited"
  if (status === 404) return "not_found"
  if (status === 504) return "timeout"
  // toncenter reports a block the liteserver does not have as a 500 with the liteserver's text
  if (status >= 500 && /not in db|block is not applied|cannot find block|block not found/i.test(errorText)) {
    return "not_found"
  }
  if (status >= 500) return "server_error"
  return "bad_request"
}

interface Agents {
  readonly http: http.Agent
  readonly https: https.Agent
}

/** The body stream as sent, inflated when the server compressed it (what fetch did on its own). */
const inflated = (res: http.IncomingMessage): Readable => {
  const encoding = (res.headers["content-encoding"] ?? "").trim().toLowerCase()
  if (encoding === "gzip" || encoding === "x-gzip") return res.pipe(zlib.createGunzip())
  if (encoding === "deflate") return res.pipe(zlib.createInflate())
  if (encoding === "br") return res.pipe(zlib.createBrotliDecompress())
  return res
}

/**
 * One GET with node:http(s) over keep-alive sockets: the status and the whole body as text. fetch (undici) spent
 * about as much CPU per request on its web-stream machinery as parsing the JSON it carried costs; this is a fraction.
 * Fails with the socket's or the decompressor's error; aborting the signal destroys the request.
 */
const get = (url: string, headers: Readonly<Record<string, string>>, agents: Agents, signal: AbortSignal) =>
  new Promise<{ readonly status: number; readonly text: string }>((resolve, reject) => {
    const secure = url.startsWith("https:")
    const options = { headers, signal, agent: secure ? agents.https : agents.http }
    const onResponse = (res: http.IncomingMessage) => {
      const body = inflated(res)
      const chunks: Array<Buffer> = []
      body.on("data", (c: Buffer) => chunks.push(c))
      body.once("end", () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString("utf8") }))
      body.once("error", reject)
      if (body !== res) res.once("error", reject)
    }
    const req = secure ? https.get(url, options, onResponse) : http.get(url, options, onResponse)
    req.once("error", reject)
  })

/**
 * Requests-per-second pacing: a single gate lets one attempt through at a time and only once `1/rps` has passed
 * since the previous one actually went out (measured after waking, so a late timer cannot bunch requests together).
 */
const makePacer = (rps: number): Effect.Effect<Effect.Effect<void>> =>
  Effect.gen(function* () {
    if (!Number.isFinite(rps) || rps <= 0) return Effect.void
    const interval = 1000 / rps
    const gate = yield* Effect.makeSemaphore(1)
    let last = -Infinity
    const waitTurn: Effect.Effect<void> = Effect.flatMap(Clock.currentTimeMillis, (now) =>
      now - last >= interval
        ? Effect.sync(() => void (last = now))
        : Effect.zipRight(
            Effect.sleep(Duration.millis(last + interval - now)),
            Effect.suspend(() => waitTurn)
          )
    )
    return gate.withPermits(1)(waitTurn)
  })

export const makeToncenterHttp = (opts: ToncenterOptions): Effect.Effect<ToncenterHttp> =>
  Effect.gen(function* () {
    const base = v2Base(opts.url)
    const base3 = opts.v3Url ? v3Base(opts.v3Url) : undefined
    const timeoutMs = opts.timeoutMs ?? 15_000
    const retries = opts.retries ?? 8
    const retryBaseMs = opts.retryBaseMs ?? 250
    const retryMaxMs = opts.retryMaxMs ?? 10_000
    const rps = opts.rps ?? defaultToncenterRps(opts.apiKey)
    const semaphore = yield* Effect.makeSemaphore(Math.max(1, opts.concurrency ?? 4))
    const pace = yield* makePacer(rps)
    const headers: Record<string, string> = { accept: "application/json", "accept-encoding": "gzip, deflate, br" }
    if (opts.apiKey) headers["X-API-Key"] = opts.apiKey
    // The semaphore bounds the sockets in use; idle ones are kept for the next request rather than reconnecting.
    const agents: Agents = { http: new http.Agent({ keepAlive: true }), https: new https.Agent({ keepAlive: true }) }

    const attempt = (url: string): Effect.Effect<unknown, UpstreamError> =>
      Effect.tryPromise({
        try: (signal) => get(url, headers, agents, signal),
        catch: (e) => fail("network", e instanceof Error ? `${e.name}: ${e.message}` : String(e), url)
      }).pipe(
        Effect.timeoutFail({
          duration: Duration.millis(timeoutMs),
          onTimeout: () => fail("timeout", `no complete response within ${timeoutMs} ms`, url)
        }),
        Effect.flatMap(({ status, text }) => {
          let body: unknown
          try {
            body = JSON.parse(text)
          } catch {
            // a non-JSON error page is still classified by its status
            if (status !== 200) return Effect.fail(fail(classifyStatus(status, text), `HTTP ${status}`, url))
            return Effect.fail(fail("malformed", `body is not JSON (${text.length} bytes)`, url))
          }
          if (status !== 200) {
            const errorText = typeof body === "object" && body !== null && "error" in body ? String(body.error) : ""
            return Effect.fail(fail(classifyStatus(status, errorText), `HTTP ${status}: ${errorText}`, url))
          }
          return Effect.succeed(body)
        }),
        (eff) => semaphore.withPermits(1)(Effect.zipRight(pace, eff))
      )

    const retryPolicy = Schedule.exponential(Duration.millis(retryBaseMs), 2).pipe(
      Schedule.jittered,
      Schedule.modifyDelay((d) => Duration.min(d, Duration.millis(retryMaxMs))),
      Schedule.intersect(Schedule.recurs(retries)),
      Schedule.whileInput((e: UpstreamError) => retryableReasons.has(e.reason))
    )

    // every failed attempt is visible at debug level; the final failure is the caller's to report
    const logAttempt = (e: UpstreamError) =>
      Effect.logDebug(`toncenter attempt failed: ${e.reason}: ${e.message}`).pipe(
        Effect.annotateLogs({ reason: e.reason, url: e.url ?? "" })
      )

    const decodeEnvelope = Schema.decodeUnknown(Envelope)

    /** A v2 call: `{ok, result}` envelope, then the result's own schema; both failures are malformed bodies. */
    const v2 = <A, I>(method: string, query: Query, schema: Schema.Schema<A, I>): Effect.Effect<A, UpstreamError> => {
      const url = buildUrl(base, method, query)
      const decodeResult = Schema.decodeUnknown(schema)
      return attempt(url).pipe(
        Effect.flatMap((body) =>
          decodeEnvelope(body).pipe(Effect.mapError((e) => fail("malformed", `envelope: ${e.message}`, url)))
        ),
        Effect.flatMap((env) =>
          env.ok
            ? decodeResult(env.result).pipe(Effect.mapError((e) => fail("malformed", `${method}: ${e.message}`, url)))
            : Effect.fail(
                fail(classifyStatus(env.code ?? 500, env.error ?? ""), `${env.code ?? "?"}: ${env.error ?? ""}`, url)
              )
        ),
        Effect.tapError(logAttempt),
        Effect.retry(retryPolicy),
        Effect.withSpan(`toncenter.${method}`)
      )
    }

    const v3 = <A, I>(method: string, query: Query, schema: Schema.Schema<A, I>): Effect.Effect<A, UpstreamError> => {
      if (base3 === undefined) return Effect.die(new Error("v3 is not configured"))
      const url = buildUrl(base3, method, query)
      const decode = Schema.decodeUnknown(schema)
      return attempt(url).pipe(
        Effect.flatMap((body) =>
          decode(body).pipe(Effect.mapError((e) => fail("malformed", `${method}: ${e.message}`, url)))
        ),
        Effect.tapError(logAttempt),
        Effect.retry(retryPolicy),
        Effect.withSpan(`toncenter.v3.${method}`)
      )
    }

    const blockQuery = (id: BlockRef): Query => ({
      workchain: id.workchain,
      shard: id.shard,
      seqno: id.seqno,
      root_hash: id.root_hash,
      file_hash: id.file_hash
    })

    return {
      masterchainInfo: v2("getMasterchainInfo", {}, MasterchainInfoJson),
      lookupBlock: (id) =>
        v2("lookupBlock", { workchain: id.workchain, shard: id.shard, seqno: id.seqno }, BlockIdExtJson),
      blockHeader: (id) => v2("getBlockHeader", blockQuery(id), BlockHeaderJson),
      shards: (mcSeqno) => v2("shards", { seqno: mcSeqno }, ShardsJson),
      blockTransactionsExt: (id, page) =>
        v2(
          "getBlockTransactionsExt",
          { ...blockQuery(id), count: page.count, after_lt: page.afterLt, after_hash: page.afterHash },
          BlockTransactionsExtJson
        ),
      accountStates: (addresses) =>
        v3("accountStates", { address: addresses, include_boc: "false", limit: addresses.length }, V3AccountStatesJson)
    } satisfies ToncenterHttp
  })
