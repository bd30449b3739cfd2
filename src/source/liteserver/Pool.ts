/**
 * A pool of liteservers: one lazily opened connection per server, a per-server request rate, health (a server whose
 * query timed out or whose connection dropped rests with a growing back-off), failover (each attempt goes to the
 * best server: healthy, not known to lag behind the block asked for, least busy) and retries by error reason.
 * Invariant: a query either answers or fails with one UpstreamError whose reason alone decided the retries; a
 * server that failed is avoided by the next attempt whenever another one exists.
 */
import { Effect } from "effect"
import type { TLFunction } from "ton-tl"
import { UpstreamError } from "../types.js"
import { installFastAdnl } from "./fastAdnl.js"
import { addressText, LiteConnection, LiteQueryError, type LiteserverAddress } from "./LiteConnection.js"

export interface LitePoolOptions {
  readonly servers: ReadonlyArray<LiteserverAddress>
  /** Requests per second to each server; 0 or absent = unlimited. */
  readonly rps?: number | undefined
  readonly timeoutMs?: number | undefined
  readonly connectTimeoutMs?: number | undefined
  readonly retries?: number | undefined
  readonly retryBaseMs?: number | undefined
  readonly retryMaxMs?: number | undefined
}

/** liteServer.error codes of a block or state the server does not have (yet): another server may. */
const NOT_FOUND_CODES = new Set([651, 652])

interface ServerState {
  readonly address: LiteserverAddress
  conn: LiteConnection | undefined
  downUntil: number
  failures: number
  nextSlot: number
  inFlight: number
  /** Highest masterchain seqno this server is known to have; -1 while unknown. */
  head: number
  /** Lowest masterchain seqno it failed to have; it is skipped for blocks at or above it until its head passes. */
  missingFrom: number
  requests: number
}

export interface QueryOptions {
  /** Masterchain seqno the answer needs the server to have (routes around lagging servers). */
  readonly needsSeqno?: number | undefined
  /** Retry "not found" answers too (the block is known to exist somewhere). */
  readonly retryNotFound?: boolean | undefined
}

/** Checks an answer inside the attempt, so that a wrong answer is retried (on another server) like a failure. */
export type Validate<RES> = (answer: RES, server: string) => UpstreamError | undefined

/** Whether a query's failure is retried: what the upstream may answer right on another try or another server. */
export const isRetryable = (e: UpstreamError, retryNotFound: boolean): boolean =>
  e.reason === "timeout" ||
  e.reason === "network" ||
  e.reason === "server_error" ||
  e.reason === "malformed" ||
  (retryNotFound && e.reason === "not_found")

/** The wait before retry `n` (from 0): min(base * 2^n, max), jittered to 0.8-1.2 of it. */
export const retryDelay = (n: number, baseMs: number, maxMs: number): number =>
  Math.min(baseMs * 2 ** n, maxMs) * (0.8 + 0.4 * Math.random())

export interface LitePool {
  /**
   * The query with its retries as one promise: what a caller that runs many queries inside one effect uses (the
   * reader's block fetches, shared between bundles). Rejects with the UpstreamError that ended the retries, or, once
   * `signal` aborts, with its reason before the next attempt.
   */
  readonly ask: <REQ, RES>(
    f: TLFunction<REQ, RES>,
    req: REQ,
    opts?: QueryOptions,
    validate?: Validate<RES>,
    signal?: AbortSignal
  ) => Promise<{
    readonly answer: RES
    readonly server: string
    readonly serverIndex: number
  }>
  readonly query: <REQ, RES>(
    f: TLFunction<REQ, RES>,
    req: REQ,
    opts?: QueryOptions,
    validate?: Validate<RES>
  ) => Effect.Effect<
    {
      readonly answer: RES
      readonly server: string
      readonly serverIndex: number
    },
    UpstreamError
  >
  /** Records a masterchain head a server reported. */
  readonly noteHead: (serverIndex: number, seqno: number) => void
  /** Requests sent since the start (every attempt counts). */
  readonly requests: () => number
  readonly servers: () => ReadonlyArray<{
    readonly address: string
    readonly requests: number
    readonly healthy: boolean
    readonly head: number
  }>
  readonly close: () => void
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms))

export const makeLitePool = (opts: LitePoolOptions): LitePool => {
  if (opts.servers.length === 0) throw new Error("a liteserver pool needs at least one server")
  // The ADNL client's AES, SHA-256 and receive buffer on Node's primitives (./fastAdnl.ts): same bytes, less CPU.
  installFastAdnl()
  const timeoutMs = opts.timeoutMs ?? 10_000
  const connectTimeoutMs = opts.connectTimeoutMs ?? Math.min(timeoutMs, 5_000)
  const interval = opts.rps !== undefined && opts.rps > 0 ? 1000 / opts.rps : 0
  const states: Array<ServerState> = opts.servers.map((address) => ({
    address,
    conn: undefined,
    downUntil: 0,
    failures: 0,
    nextSlot: 0,
    inFlight: 0,
    head: -1,
    missingFrom: Number.MAX_SAFE_INTEGER,
    requests: 0
  }))
  let total = 0
  let closed = false

  const lagging = (s: ServerState, needs: number | undefined) =>
    needs !== undefined && ((s.head >= 0 && s.head < needs) || needs >= s.missingFrom)

  const pick = (needs: number | undefined, avoid: ServerState | undefined): ServerState => {
    const now = Date.now()
    const score = (s: ServerState): ReadonlyArray<number> => [
      s.downUntil > now ? 1 : 0,
      lagging(s, needs) ? 1 : 0,
      s === avoid ? 1 : 0,
      s.downUntil > now ? s.downUntil : 0,
      s.inFlight,
      Math.max(s.nextSlot, now)
    ]
    let best = states[0]!
    let bestScore = score(best)
    for (const s of states.slice(1)) {
      const sc = score(s)
      for (let i = 0; i < sc.length; i++) {
        if (sc[i]! !== bestScore[i]!) {
          if (sc[i]! < bestScore[i]!) {
            best = s
            bestScore = sc
          }
          break
        }
      }
    }
    return best
  }

  const classify = (e: unknown, server: string): UpstreamError => {
    if (e instanceof LiteQueryError) {
      const reason =
        e.kind === "server"
          ? e.code !== undefined && NOT_FOUND_CODES.has(e.code)
            ? "not_found"
            : "server_error"
          : e.kind
      return new UpstreamError({ reason, message: e.message, url: server })
    }
    return new UpstreamError({
      reason: "network",
      message: String(e),
      url: server
    })
  }

  let lastFailed: ServerState | undefined

  const attempt = async <REQ, RES>(
    f: TLFunction<REQ, RES>,
    req: REQ,
    needs: number | undefined,
    validate: Validate<RES> | undefined
  ) => {
    if (closed)
      throw new UpstreamError({
        reason: "network",
        message: "the liteserver pool is closed"
      })
    const s = pick(needs, lastFailed)
    const index = states.indexOf(s)
    const server = addressText(s.address)
    if (interval > 0) {
      const now = Date.now()
      const slot = Math.max(now, s.nextSlot)
      s.nextSlot = slot + interval
      if (slot > now) await sleep(slot - now)
    }
    if (s.conn === undefined || !s.conn.isOpen) s.conn = new LiteConnection(s.address, connectTimeoutMs)
    const conn = s.conn
    s.inFlight += 1
    s.requests += 1
    total += 1
    try {
      const answer = await conn.query(f, req, timeoutMs)
      const wrong = validate?.(answer, server)
      if (wrong !== undefined) throw wrong
      s.failures = 0
      s.downUntil = 0
      if (lastFailed === s) lastFailed = undefined
      return { answer, server, serverIndex: index }
    } catch (e) {
      const err = e instanceof UpstreamError ? e : classify(e, server)
      lastFailed = s
      if (err.reason === "timeout" || err.reason === "network") {
        s.failures += 1
        s.downUntil = Date.now() + Math.min(30_000, 100 * 2 ** Math.min(s.failures, 9))
        // a connection that lost a query may be wedged: the next attempt on this server opens a fresh one
        conn.close()
        if (s.conn === conn) s.conn = undefined
      } else if (err.reason === "not_found" && needs !== undefined) {
        s.missingFrom = Math.min(s.missingFrom, needs)
      }
      throw err
    } finally {
      s.inFlight -= 1
    }
  }

  const retries = opts.retries ?? 8
  const retryBaseMs = opts.retryBaseMs ?? 100
  const retryMaxMs = opts.retryMaxMs ?? 5_000

  /** Waits `ms`, or rejects with the signal's reason when it aborts first. */
  const pause = (ms: number, signal: AbortSignal | undefined) =>
    new Promise<void>((resolve, reject) => {
      if (signal === undefined) {
        setTimeout(resolve, ms)
        return
      }
      if (signal.aborted) return reject(signal.reason)
      const onAbort = () => {
        clearTimeout(timer)
        reject(signal.reason)
      }
      const timer = setTimeout(() => {
        signal.removeEventListener("abort", onAbort)
        resolve()
      }, ms)
      signal.addEventListener("abort", onAbort, { once: true })
    })

  // Aborted by `close`: a query nobody waits for any more (a shared block fetch whose callers were interrupted) stops
  // retrying, and its wait ends, when the pool closes, instead of keeping the process up through its backoff.
  const closing = new AbortController()

  /**
   * Attempts until one answers: after failure n (from 0) of a retryable reason, a wait of min(base * 2^n, max)
   * jittered to 0.8-1.2 of it, at most `retries` times. A plain loop: a query that answers costs one attempt and no
   * schedule (BENCHMARKS.md, "Ingest: the producer's runtime operations on the liteserver source").
   */
  const ask = async <REQ, RES>(
    f: TLFunction<REQ, RES>,
    req: REQ,
    q: QueryOptions = {},
    validate?: Validate<RES>,
    signal?: AbortSignal
  ) => {
    const retryNotFound = q.retryNotFound === true
    const stop = signal === undefined ? closing.signal : AbortSignal.any([signal, closing.signal])
    for (let n = 0; ; n++) {
      if (stop.aborted) throw stop.reason
      try {
        return await attempt(f, req, q.needsSeqno, validate)
      } catch (e) {
        const err = e instanceof UpstreamError ? e : classify(e, "pool")
        if (closed || n >= retries || !isRetryable(err, retryNotFound)) throw err
        await pause(retryDelay(n, retryBaseMs, retryMaxMs), stop)
      }
    }
  }

  return {
    ask,
    query: (f, req, q = {}, validate) =>
      Effect.tryPromise({
        try: (signal) => ask(f, req, q, validate, signal),
        catch: (e) => (e instanceof UpstreamError ? e : classify(e, "pool"))
      }),
    noteHead: (i, seqno) => {
      const s = states[i]
      if (s === undefined) return
      s.head = Math.max(s.head, seqno)
      if (s.head >= s.missingFrom) s.missingFrom = Number.MAX_SAFE_INTEGER
    },
    requests: () => total,
    servers: () =>
      states.map((s) => ({
        address: addressText(s.address),
        requests: s.requests,
        healthy: s.downUntil <= Date.now(),
        head: s.head
      })),
    close: () => {
      closed = true
      closing.abort(new UpstreamError({ reason: "network", message: "the liteserver pool is closed" }))
      for (const s of states) s.conn?.close()
    }
  }
}
