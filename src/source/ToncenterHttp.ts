/**
 * The toncenter HTTP adapter: one place that sends requests, spreads them over the configured endpoints (each with
 * its own key, requests per second and in-flight bound, a failing one avoided while another is healthy), retries with
 * exponential backoff and jitter, and classifies every failure into an UpstreamError reason. Invariant: callers only
 * ever see a validated result or a classified error; retries are decided by the reason alone, and every attempt
 * (first or retry) takes its own pacing slot on the endpoint it goes to.
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
  V3AccountStatesJson,
  V3BlocksJson
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
  /** v3 `/blocks` of one masterchain seqno: the blocks it commits and itself, one page. */
  readonly blocksV3: (
    mcSeqno: number,
    page: { readonly limit: number; readonly offset: number }
  ) => Effect.Effect<V3BlocksJson, UpstreamError>
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

/** A request that had no complete response within its time: told apart from the socket's own errors. */
class RequestTimeout extends Error {}

/**
 * One GET with node:http(s) over keep-alive sockets: the status and the whole body as text. fetch (undici) spent
 * about as much CPU per request on its web-stream machinery as parsing the JSON it carried costs; this is a fraction.
 * Fails with the socket's or the decompressor's error, or a RequestTimeout when the whole body has not arrived within
 * `timeoutMs` (the request is destroyed then: one timer per request, where a timeout fiber cost ~10x the request's
 * own CPU); aborting the signal destroys the request.
 */
const get = (url: string, headers: Readonly<Record<string, string>>, agents: Agents, signal: AbortSignal, timeoutMs: number) =>
  new Promise<{ readonly status: number; readonly text: string }>((resolve, reject) => {
    const secure = url.startsWith("https:")
    const options = { headers, signal, agent: secure ? agents.https : agents.http }
    const fail = (e: unknown) => {
      clearTimeout(timer)
      reject(e)
    }
    const onResponse = (res: http.IncomingMessage) => {
      const body = inflated(res)
      const chunks: Array<Buffer> = []
      body.on("data", (c: Buffer) => chunks.push(c))
      body.once("end", () => {
        clearTimeout(timer)
        resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString("utf8") })
      })
      body.once("error", fail)
      if (body !== res) res.once("error", fail)
    }
    const timer = setTimeout(() => {
      reject(new RequestTimeout(`no complete response within ${timeoutMs} ms`))
      req.destroy()
    }, timeoutMs)
    const req = secure ? https.get(url, options, onResponse) : http.get(url, options, onResponse)
    req.once("error", fail)
  })

/**
 * One toncenter endpoint (a base URL with its own key and rate): its pacing gate lets one attempt through at a time,
 * one per `1/rps` slot (see `waitTurn`); its semaphore bounds the requests it has in flight.
 */
interface Endpoint {
  readonly base: string
  readonly headers: Readonly<Record<string, string>>
  /** Milliseconds between two requests; 0 means unpaced. */
  readonly interval: number
  readonly gate: Effect.Semaphore
  readonly slots: Effect.Semaphore
  last: number
  /** Attempts that chose this endpoint and have not gone out yet. */
  waiting: number
  /** Consecutive failed attempts; a failing endpoint is avoided while another one is healthy. */
  failures: number
  avoidUntil: number
}

/** Failures that say something about the endpoint (overloaded, down, behind), not about the request. */
const endpointFailures: ReadonlySet<UpstreamErrorReason> = new Set([
  "rate_limited",
  "server_error",
  "timeout",
  "network",
  "not_found"
])

const makeEndpoint = (
  e: { readonly url: string; readonly apiKey?: string | undefined; readonly rps: number },
  concurrency: number
): Effect.Effect<Endpoint> =>
  Effect.gen(function* () {
    const headers: Record<string, string> = { accept: "application/json", "accept-encoding": "gzip, deflate, br" }
    if (e.apiKey) headers["X-API-Key"] = e.apiKey
    return {
      base: v2Base(e.url),
      headers,
      interval: Number.isFinite(e.rps) && e.rps > 0 ? 1000 / e.rps : 0,
      gate: yield* Effect.makeSemaphore(1),
      slots: yield* Effect.makeSemaphore(Math.max(1, concurrency)),
      last: -Infinity,
      waiting: 0,
      failures: 0,
      avoidUntil: 0
    }
  })

/**
 * Waits for the endpoint's next pacing slot. Slots are `interval` apart on the schedule, not from when a late timer
 * actually fired: under load the wake-ups run late, and counting from them would lose that lateness every time (a
 * 10 rps key measured ~7.7 rps on this machine). A late slot may let the next one go up to a quarter interval sooner,
 * never more, so any `rps + 1` consecutive requests still span at least 0.975 s.
 */
const waitTurn = (e: Endpoint): Effect.Effect<void> =>
  Effect.flatMap(Clock.currentTimeMillis, (now) => {
    const due = e.last + e.interval
    return now >= due
      ? Effect.sync(() => void (e.last = Math.max(due, now - e.interval / 4)))
      : Effect.zipRight(
          Effect.sleep(Duration.millis(due - now)),
          Effect.suspend(() => waitTurn(e))
        )
  })

/**
 * The endpoint an attempt should use: the one that can send it soonest (its pacing and the attempts already queued
 * on it), preferring endpoints that are not in a failure streak; when all are failing, the one that recovers first.
 * Equally ready endpoints are taken in turn, starting at `turn` (modulo their number).
 */
export const pickEndpoint = <
  E extends { readonly interval: number; readonly last: number; readonly waiting: number; readonly avoidUntil: number }
>(
  endpoints: ReadonlyArray<E>,
  now: number,
  turn = 0
): E => {
  let best = endpoints[0]!
  let bestScore = Infinity
  const healthy = endpoints.some((e) => e.avoidUntil <= now)
  for (let i = 0; i < endpoints.length; i++) {
    const e = endpoints[(i + turn) % endpoints.length]!
    if (healthy && e.avoidUntil > now) continue
    const ready = Math.max(now, e.last + e.interval) + e.waiting * Math.max(e.interval, 1)
    const score = healthy ? ready : Math.max(ready, e.avoidUntil)
    if (score < bestScore) {
      best = e
      bestScore = score
    }
  }
  return best
}

export const makeToncenterHttp = (opts: ToncenterOptions): Effect.Effect<ToncenterHttp> =>
  Effect.gen(function* () {
    const base3 = opts.v3Url ? v3Base(opts.v3Url) : undefined
    const baseBlocks = opts.v3BlocksUrl ? v3Base(opts.v3BlocksUrl) : undefined
    const timeoutMs = opts.timeoutMs ?? 15_000
    const retries = opts.retries ?? 8
    const retryBaseMs = opts.retryBaseMs ?? 250
    const retryMaxMs = opts.retryMaxMs ?? 10_000
    const concurrency = opts.concurrency ?? 4
    const configured = [
      { url: opts.url, apiKey: opts.apiKey, rps: opts.rps ?? defaultToncenterRps(opts.apiKey) },
      ...(opts.endpoints ?? []).map((e) => ({ url: e.url, apiKey: e.apiKey, rps: e.rps ?? defaultToncenterRps(e.apiKey) }))
    ]
    const endpoints = yield* Effect.forEach(configured, (e) => makeEndpoint(e, concurrency))
    const primary = endpoints[0]!
    let turn = 0
    // The semaphores bound the sockets in use; idle ones are kept for the next request rather than reconnecting.
    const agents: Agents = { http: new http.Agent({ keepAlive: true }), https: new https.Agent({ keepAlive: true }) }

    /** Health bookkeeping only matters when there is another endpoint to turn to. */
    const record = (e: Endpoint, outcome: UpstreamErrorReason | "ok") =>
      Effect.flatMap(Clock.currentTimeMillis, (now) =>
        Effect.sync(() => {
          if (endpoints.length === 1) return
          if (outcome === "ok") {
            e.failures = 0
            e.avoidUntil = 0
          } else if (endpointFailures.has(outcome)) {
            e.failures += 1
            e.avoidUntil = now + Math.min(30_000, 250 * 2 ** Math.min(e.failures - 1, 7))
          }
        })
      )

    /** One attempt on one endpoint: its slot, its pacing turn, then the request. */
    const send = (e: Endpoint, url: string): Effect.Effect<unknown, UpstreamError> =>
      Effect.tryPromise({
        try: (signal) => get(url, e.headers, agents, signal, timeoutMs),
        catch: (err) =>
          err instanceof RequestTimeout
            ? fail("timeout", err.message, url)
            : fail("network", err instanceof Error ? `${err.name}: ${err.message}` : String(err), url)
      }).pipe(
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
        (eff) =>
          e.slots.withPermits(1)(
            Effect.zipRight(
              Effect.acquireUseRelease(
                Effect.sync(() => void (e.waiting += 1)),
                () => (e.interval > 0 ? e.gate.withPermits(1)(waitTurn(e)) : Effect.void),
                () => Effect.sync(() => void (e.waiting -= 1))
              ),
              eff
            )
          ),
        Effect.tapBoth({ onFailure: (err) => record(e, err.reason), onSuccess: () => record(e, "ok") })
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
      const decodeResult = Schema.decodeUnknown(schema)
      // each attempt (a retry too) goes to whichever endpoint can take it soonest
      const attempt = Effect.flatMap(Clock.currentTimeMillis, (now) => {
        const e = pickEndpoint(endpoints, now, turn++)
        const url = buildUrl(e.base, method, query)
        return send(e, url).pipe(
          Effect.flatMap((body) =>
            decodeEnvelope(body).pipe(Effect.mapError((err) => fail("malformed", `envelope: ${err.message}`, url)))
          ),
          Effect.flatMap((env) =>
            env.ok
              ? decodeResult(env.result).pipe(
                  Effect.mapError((err) => fail("malformed", `${method}: ${err.message}`, url))
                )
              : Effect.fail(
                  fail(classifyStatus(env.code ?? 500, env.error ?? ""), `${env.code ?? "?"}: ${env.error ?? ""}`, url)
                )
          )
        )
      })
      return attempt.pipe(Effect.tapError(logAttempt), Effect.retry(retryPolicy), Effect.withSpan(`toncenter.${method}`))
    }

    const v3 = <A, I>(
      base: string | undefined,
      method: string,
      query: Query,
      schema: Schema.Schema<A, I>
    ): Effect.Effect<A, UpstreamError> => {
      if (base === undefined) return Effect.die(new Error(`v3 ${method} is not configured`))
      const url = buildUrl(base, method, query)
      const decode = Schema.decodeUnknown(schema)
      // v3 shares the first endpoint's key, and so its rate
      return send(primary, url).pipe(
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
        v3(base3, "accountStates", { address: addresses, include_boc: "false", limit: addresses.length }, V3AccountStatesJson),
      blocksV3: (mcSeqno, page) =>
        v3(baseBlocks, "blocks", { mc_seqno: mcSeqno, limit: page.limit, offset: page.offset }, V3BlocksJson)
    } satisfies ToncenterHttp
  })
