/**
 * Optional API keys and per-key rate limits, checked before any route runs.
 * Invariants: with no keys configured the API is open; with keys, a request must carry a known key
 * (X-API-Key header or api_key query) or get toncenter's 401; each key (or client address when keys are
 * off) may make at most `perSecond` requests per second on average, with bursts of the same size.
 */
import type { FastifyRequest } from "fastify"
import { ApiError } from "./errors.js"

export const API_KEY_ERROR = "API key does not exist"
export const RATE_LIMIT_ERROR = "Ratelimit exceeded"

/** Paths that stay reachable without a key and without counting (probes, metrics scrapes, docs). */
export const isOpenPath = (url: string): boolean => {
  const path = url.split("?", 1)[0]!
  return path === "/health" || path === "/metrics" || path === "/api/openapi.json" || path === "/api/docs"
}

export const requestKey = (req: FastifyRequest): string | undefined => {
  const header = req.headers["x-api-key"]
  if (typeof header === "string" && header !== "") return header
  const q = req.query as Record<string, unknown> | undefined
  const fromQuery = q?.api_key
  return typeof fromQuery === "string" && fromQuery !== "" ? fromQuery : undefined
}

/** Token bucket per client: capacity = rate, refilled continuously. */
export class RateLimiter {
  private readonly buckets = new Map<string, { tokens: number; at: number }>()

  constructor(
    private readonly perSecond: number,
    private readonly nowMs: () => number,
    private readonly maxClients = 100_000
  ) {}

  take(client: string): boolean {
    const now = this.nowMs()
    const b = this.buckets.get(client)
    if (b === undefined) {
      if (this.buckets.size >= this.maxClients) this.evictFull(now)
      this.buckets.set(client, { tokens: this.perSecond - 1, at: now })
      return true
    }
    b.tokens = Math.min(this.perSecond, b.tokens + ((now - b.at) / 1000) * this.perSecond)
    b.at = now
    if (b.tokens < 1) return false
    b.tokens -= 1
    return true
  }

  // A full bucket carries no information, so forgetting it changes nothing for its client.
  private evictFull(now: number): void {
    for (const [k, b] of this.buckets) {
      if (b.tokens + ((now - b.at) / 1000) * this.perSecond >= this.perSecond) this.buckets.delete(k)
    }
    if (this.buckets.size >= this.maxClients) this.buckets.clear()
  }
}

export interface Gate {
  readonly keys: ReadonlySet<string>
  readonly limiter: RateLimiter | null
}

export const makeGate = (keys: ReadonlyArray<string>, perSecond: number, nowMs: () => number): Gate => ({
  keys: new Set(keys),
  limiter: perSecond > 0 ? new RateLimiter(perSecond, nowMs) : null
})

/** Throws the ApiError a request deserves, if any. */
export const checkGate = (gate: Gate, req: FastifyRequest): void => {
  if (isOpenPath(req.url)) return
  const key = requestKey(req)
  if (gate.keys.size > 0 && (key === undefined || !gate.keys.has(key))) {
    throw new ApiError({ reason: "unauthorized", message: API_KEY_ERROR })
  }
  if (
    gate.limiter !== null &&
    !gate.limiter.take(key !== undefined && gate.keys.has(key) ? `key:${key}` : `ip:${req.ip}`)
  ) {
    throw new ApiError({ reason: "rate_limited", message: RATE_LIMIT_ERROR })
  }
}
