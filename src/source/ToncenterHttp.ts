/**
 * The toncenter HTTP adapter: one place that sends requests, spreads them over the configured endpoints (each with
 * its own key, requests per second and in-flight bound, a failing one avoided while another is healthy), retries with
 * exponential backoff and jitter, and classifies every failure into an UpstreamError reason. Invariant: callers only
 * ever see a validated result or a classified error; retries are decided by the reason alone, and every attempt
 * (first or retry) takes its own pacing slot on the endpoint it goes to.
 */
import { Duration, Effect, Either, type ParseResult, Schema } from "effect"
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
  readAccountStates,
  readBlockHeader,
  readBlockTransactionsExt,
  readEnvelope,
  readShards,
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
 * A counting semaphore in plain promises: waiters are served in arrival order, and one whose signal aborts leaves the
 * queue. A permit free at once is taken without a promise.
 */
class Permits {
  private readonly waiters: Array<() => void> = []
  constructor(private free: number) {}

  /** `undefined` when a permit was free; otherwise a promise of one, rejected with the signal's reason on abort. */
  take(signal: AbortSignal): Promise<void> | undefined {
    if (this.free > 0) {
      this.free -= 1
      return undefined
    }
    return new Promise<void>((resolve, reject) => {
      const onAbort = () => {
        const i = this.waiters.indexOf(grant)
        if (i >= 0) this.waiters.splice(i, 1)
        reject(signal.reason)
      }
      const grant = () => {
        signal.removeEventListener("abort", onAbort)
        resolve()
      }
      if (signal.aborted) return onAbort()
      signal.addEventListener("abort", onAbort, { once: true })
      this.waiters.push(grant)
    })
  }

  give(): void {
    const next = this.waiters.shift()
    if (next === undefined) this.free += 1
    else next()
  }
}

/**
 * One toncenter endpoint (a base URL with its own key and rate): its pacing queue lets one attempt through per
 * `1/rps` slot, in arrival order (see `pace`); its permits bound the requests it has in flight.
 */
interface Endpoint extends Pacing {
  readonly base: string
  readonly headers: Readonly<Record<string, string>>
  /** Milliseconds between two requests; 0 means unpaced. */
  readonly interval: number
  readonly slots: Permits
  /** Attempts waiting for their pacing slot, first first; one timer serves the first. */
  readonly queue: Array<{ readonly go: () => void; readonly signal: AbortSignal }>
  timer: ReturnType<typeof setTimeout> | undefined
  /** Attempts that chose this endpoint and have not gone out yet. */
  waiting: number
  /** Consecutive failed attempts; a failing endpoint is avoided while another is healthy. */
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
): Endpoint => {
  const headers: Record<string, string> = { accept: "application/json", "accept-encoding": "gzip, deflate, br" }
  if (e.apiKey) headers["X-API-Key"] = e.apiKey
  const interval = Number.isFinite(e.rps) && e.rps > 0 ? 1000 / e.rps : 0
  return {
    base: v2Base(e.url),
    headers,
    interval,
    early: pacingLeeway(interval),
    slots: new Permits(Math.max(1, concurrency)),
    queue: [],
    timer: undefined,
    last: -Infinity,
    waiting: 0,
    failures: 0,
    avoidUntil: 0
  }
}

/** An endpoint's pacing: slots `interval` ms apart, the last one given at `last`, `early` ms of leeway (see below). */
export interface Pacing {
  readonly interval: number
  readonly early: number
  last: number
}

/**
 * The leeway of a pacing interval: a timer cannot wake sooner than a millisecond, so an interval shorter than that
 * lets the slots of the coming millisecond go at one wake-up (they stay `interval` apart on the schedule, and the
 * rate is kept over any millisecond); an interval of a millisecond or more has none, one slot per wake-up.
 */
export const pacingLeeway = (interval: number): number => (interval > 0 && interval < 1 ? 1 - interval : 0)

/**
 * Takes the next pacing slot at `now` (0) or says how many milliseconds until it may be taken. Slots are `interval`
 * apart on the schedule, not from when a late timer actually fired: under load the wake-ups run late, and counting
 * from them would lose that lateness every time (a 10 rps key measured ~7.7 rps on this machine). A late slot may
 * let the next one go up to a quarter interval sooner (or `early`, when larger), never more, and a slot goes at most
 * `early` before its time, so any `rps + 1` consecutive requests still span at least 0.975 s (1 s less a quarter
 * interval, or less twice `early`, under 2 ms).
 */
export const takeSlot = (p: Pacing, now: number): number => {
  const due = p.last + p.interval
  if (now < due - p.early) return due - p.early - now
  p.last = Math.max(due, now - Math.max(p.interval / 4, p.early))
  return 0
}

/**
 * Lets the endpoint's waiting attempts go while their slots are due, and sets one timer for the next slot when one
 * still waits. The clock is `performance.now()`: a millisecond clock put every two requests of the same millisecond
 * a timer apart however short the interval.
 */
const release = (e: Endpoint): void => {
  e.timer = undefined
  while (e.queue.length > 0) {
    const first = e.queue[0]!
    if (first.signal.aborted) {
      e.queue.shift()
      continue
    }
    const wait = takeSlot(e, performance.now())
    if (wait > 0) {
      e.timer = setTimeout(release, Math.ceil(wait), e)
      return
    }
    e.queue.shift()
    first.go()
  }
}

/** The endpoint's next pacing slot for one attempt; rejected with the signal's reason when it aborts first. */
const pace = (e: Endpoint, signal: AbortSignal): Promise<void> | undefined => {
  if (e.queue.length === 0 && takeSlot(e, performance.now()) === 0) return undefined
  return new Promise<void>((resolve, reject) => {
    const onAbort = () => {
      // its place in the queue is skipped when the timer comes to it
      reject(signal.reason)
    }
    if (signal.aborted) return onAbort()
    signal.addEventListener("abort", onAbort, { once: true })
    e.queue.push({
      go: () => {
        signal.removeEventListener("abort", onAbort)
        resolve()
      },
      signal
    })
    if (e.timer === undefined) release(e)
  })
}

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

/** The answer's hand-written reader when it accepts, else the schema's verdict (and its message on a failure). */
const decoder = <A, I>(schema: Schema.Schema<A, I>, read?: (u: unknown) => A | undefined) => {
  const decode = Schema.decodeUnknownEither(schema)
  if (read === undefined) return decode
  return (u: unknown): Either.Either<A, ParseResult.ParseError> => {
    const a = read(u)
    return a === undefined ? decode(u) : Either.right(a)
  }
}

/** A promise of the adapter as an effect: its UpstreamError in the error channel, anything else a defect. */
const fromPromise = <A>(run: (signal: AbortSignal) => Promise<A>): Effect.Effect<A, UpstreamError> =>
  Effect.async<A, UpstreamError>((resume, signal) => {
    run(signal).then(
      (a) => resume(Effect.succeed(a)),
      (err: unknown) => resume(err instanceof UpstreamError ? Effect.fail(err) : Effect.die(err))
    )
  })

export const makeToncenterHttp = (opts: ToncenterOptions): Effect.Effect<ToncenterHttp> =>
  Effect.sync(() => {
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
    const endpoints = configured.map((e) => makeEndpoint(e, concurrency))
    const primary = endpoints[0]!
    let turn = 0
    // The permits bound the sockets in use; idle ones are kept for the next request rather than reconnecting.
    const agents: Agents = { http: new http.Agent({ keepAlive: true }), https: new https.Agent({ keepAlive: true }) }

    /** Health bookkeeping only matters when there is another endpoint to turn to. */
    const record = (e: Endpoint, outcome: UpstreamErrorReason | "ok") => {
      if (endpoints.length === 1) return
      if (outcome === "ok") {
        e.failures = 0
        e.avoidUntil = 0
      } else if (endpointFailures.has(outcome)) {
        e.failures += 1
        e.avoidUntil = performance.now() + Math.min(30_000, 250 * 2 ** Math.min(e.failures - 1, 7))
      }
    }

    /** The answer's JSON when its status is 200; otherwise the failure its status and text say. */
    const answer = (status: number, text: string, url: string): unknown => {
      let body: unknown
      try {
        body = JSON.parse(text)
      } catch {
        // a non-JSON error page is still classified by its status
        if (status !== 200) throw fail(classifyStatus(status, text), `HTTP ${status}`, url)
        throw fail("malformed", `body is not JSON (${text.length} bytes)`, url)
      }
      if (status !== 200) {
        const errorText = typeof body === "object" && body !== null && "error" in body ? String(body.error) : ""
        throw fail(classifyStatus(status, errorText), `HTTP ${status}: ${errorText}`, url)
      }
      return body
    }

    /**
     * One attempt on one endpoint: a permit, its pacing turn, then the request; the endpoint's health is recorded
     * from the outcome. Rejects with an UpstreamError (or the signal's reason once aborted).
     */
    const send = async (e: Endpoint, url: string, signal: AbortSignal): Promise<unknown> => {
      const permit = e.slots.take(signal)
      if (permit !== undefined) await permit
      let body: unknown
      try {
        if (e.interval > 0) {
          e.waiting += 1
          try {
            const turn = pace(e, signal)
            if (turn !== undefined) await turn
          } finally {
            e.waiting -= 1
          }
        }
        const { status, text } = await get(url, e.headers, agents, signal, timeoutMs).catch((err: unknown) => {
          throw err instanceof RequestTimeout
            ? fail("timeout", err.message, url)
            : fail("network", err instanceof Error ? `${err.name}: ${err.message}` : String(err), url)
        })
        body = answer(status, text, url)
      } catch (err) {
        if (err instanceof UpstreamError) record(e, err.reason)
        throw err
      } finally {
        e.slots.give()
      }
      record(e, "ok")
      return body
    }

    /** The wait before retry `n` (0 for the first): exponential from the base, jittered by +-20%, capped. */
    const backoff = (n: number) => Math.min(retryMaxMs, retryBaseMs * 2 ** n * (0.8 + 0.4 * Math.random()))

    // every failed attempt is visible at debug level; the final failure is the caller's to report
    const logAttempt = (e: UpstreamError) =>
      Effect.logDebug(`toncenter attempt failed: ${e.reason}: ${e.message}`).pipe(
        Effect.annotateLogs({ reason: e.reason, url: e.url ?? "" })
      )

    /**
     * A request: one attempt as one effect, and after a failure that may pass (its reason alone decides) up to
     * `retries` more, each after its backoff. A request that succeeds at once runs no schedule and no fiber of its own.
     */
    const withRetries = <A>(attempt: Effect.Effect<A, UpstreamError>): Effect.Effect<A, UpstreamError> => {
      const from = (n: number): Effect.Effect<A, UpstreamError> =>
        Effect.catchAll(attempt, (err) =>
          n >= retries || !retryableReasons.has(err.reason)
            ? Effect.zipRight(logAttempt(err), Effect.fail(err))
            : logAttempt(err).pipe(
                Effect.zipRight(Effect.sleep(Duration.millis(backoff(n)))),
                Effect.zipRight(Effect.suspend(() => from(n + 1)))
              )
        )
      return from(0)
    }

    const decodeEnvelope = Schema.decodeUnknownEither(Envelope)

    /**
     * A v2 call: `{ok, result}` envelope, then the result's own schema (its hand-written reader first where it has
     * one: what it accepts, the schema decodes alike); both failures are malformed bodies.
     */
    const v2 = <A, I>(
      method: string,
      query: Query,
      schema: Schema.Schema<A, I>,
      read?: (u: unknown) => A | undefined
    ): Effect.Effect<A, UpstreamError> => {
      const decodeResult = decoder(schema, read)
      // each attempt (a retry too) goes to whichever endpoint can take it soonest
      const attempt = fromPromise(async (signal) => {
        const e = pickEndpoint(endpoints, performance.now(), turn++)
        const url = buildUrl(e.base, method, query)
        const body = await send(e, url, signal)
        const env = readEnvelope(body) ?? decodeEnvelope(body)
        if (Either.isLeft(env)) throw fail("malformed", `envelope: ${env.left.message}`, url)
        const { ok, result, code, error } = env.right
        if (!ok) throw fail(classifyStatus(code ?? 500, error ?? ""), `${code ?? "?"}: ${error ?? ""}`, url)
        const decoded = decodeResult(result)
        if (Either.isLeft(decoded)) throw fail("malformed", `${method}: ${decoded.left.message}`, url)
        return decoded.right
      })
      return withRetries(attempt)
    }

    const v3 = <A, I>(
      base: string | undefined,
      method: string,
      query: Query,
      schema: Schema.Schema<A, I>,
      read?: (u: unknown) => A | undefined
    ): Effect.Effect<A, UpstreamError> => {
      if (base === undefined) return Effect.die(new Error(`v3 ${method} is not configured`))
      const url = buildUrl(base, method, query)
      const decode = decoder(schema, read)
      // v3 shares the first endpoint's key, and so its rate
      return withRetries(
        fromPromise(async (signal) => {
          const decoded = decode(await send(primary, url, signal))
          if (Either.isLeft(decoded)) throw fail("malformed", `${method}: ${decoded.left.message}`, url)
          return decoded.right
        })
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
      blockHeader: (id) => v2("getBlockHeader", blockQuery(id), BlockHeaderJson, readBlockHeader),
      shards: (mcSeqno) => v2("shards", { seqno: mcSeqno }, ShardsJson, readShards),
      blockTransactionsExt: (id, page) =>
        v2(
          "getBlockTransactionsExt",
          { ...blockQuery(id), count: page.count, after_lt: page.afterLt, after_hash: page.afterHash },
          BlockTransactionsExtJson,
          readBlockTransactionsExt
        ),
      accountStates: (addresses) =>
        v3(
          base3,
          "accountStates",
          { address: addresses, include_boc: "false", limit: addresses.length },
          V3AccountStatesJson,
          readAccountStates
        ),
      blocksV3: (mcSeqno, page) =>
        v3(baseBlocks, "blocks", { mc_seqno: mcSeqno, limit: page.limit, offset: page.offset }, V3BlocksJson)
    } satisfies ToncenterHttp
  })
