/**
 * Scripted upstream faults for the fake toncenter: which request of which endpoint misbehaves, and how.
 * Invariant: a plan is deterministic (it counts requests per endpoint, no randomness), so a test that survives a plan
 * once survives it every time, and the request log says exactly which requests were faulted.
 */

export type FaultKind =
  /** HTTP 429 with toncenter's proxy body. */
  | "rate_limit"
  /** An HTTP 5xx (default 500) in toncenter's error shape. */
  | "server_error"
  /** The normal answer, after `delayMs`. */
  | "slow"
  /** HTTP 200 whose body is not JSON. */
  | "malformed"
  /** HTTP 200 whose JSON body is cut short. */
  | "truncated"
  /** HTTP 200, `ok: true`, but the result lacks its fields. */
  | "missing_field"
  /** The connection is dropped without an answer. */
  | "reset"
  /** The block is reported missing, as a lagging liteserver behind toncenter's balancer does. */
  | "not_applied"

export interface FaultRule {
  /** v2 method name (e.g. "getBlockTransactionsExt"), "v3/<method>", or "*" for every endpoint. */
  readonly endpoint?: string
  readonly kind: FaultKind
  /** Fault every Nth request of the endpoint (N, 2N, ...). */
  readonly every?: number
  /** Fault requests number from .. from+count-1 of the endpoint (1-based): a burst. */
  readonly from?: number
  readonly count?: number
  readonly status?: number
  readonly delayMs?: number
}

export type FaultPlan = ReadonlyArray<FaultRule>

/** The first rule that applies to the n-th (1-based) request of `endpoint`. */
export const faultFor = (plan: FaultPlan, endpoint: string, n: number): FaultRule | undefined =>
  plan.find((r) => {
    if (r.endpoint !== undefined && r.endpoint !== "*" && r.endpoint !== endpoint) return false
    if (r.every !== undefined && r.every > 0 && n % r.every === 0) return true
    if (r.from !== undefined && n >= r.from && n < r.from + (r.count ?? 1)) return true
    return r.every === undefined && r.from === undefined
  })

/** Parses "kind[:every=N][:from=N][:count=N][:status=N][:delay=N][@endpoint]" items separated by commas. */
export const parseFaultPlan = (text: string): FaultPlan =>
  text
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s !== "")
    .map((item) => {
      const [spec, endpoint] = item.split("@") as [string, string | undefined]
      const [kind, ...parts] = spec.split(":")
      const kinds: ReadonlyArray<string> = [
        "rate_limit",
        "server_error",
        "slow",
        "malformed",
        "truncated",
        "missing_field",
        "reset",
        "not_applied"
      ]
      if (!kinds.includes(kind!)) throw new Error(`unknown fault kind ${kind}`)
      const num = (key: string): number | undefined => {
        const p = parts.find((x) => x.startsWith(`${key}=`))
        return p === undefined ? undefined : Number(p.slice(key.length + 1))
      }
      return {
        kind: kind as FaultKind,
        endpoint: endpoint ?? "*",
        every: num("every"),
        from: num("from"),
        count: num("count"),
        status: num("status"),
        delayMs: num("delay")
      }
    })
