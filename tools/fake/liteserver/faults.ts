/**
 * Scripted faults for the local liteserver: which query of which method misbehaves, and how.
 * Invariant: a plan is deterministic (it counts queries per method and server, no randomness), so a test that
 * survives a plan once survives it every time.
 */

export type LiteFaultKind =
  /** No answer at all: the client's query times out. */
  | "timeout"
  /** The TCP connection is dropped on receipt of the query. */
  | "drop"
  /** liteServer.error with `code` (default 651, the "not in db" answer of a lagging server). */
  | "error"
  /** The normal answer, after `delayMs`. */
  | "slow"
  /** A block query answered with another block's id and data: what a careful client must refuse. */
  | "wrong_block"

export interface LiteFaultRule {
  /** Lite API method without the `liteServer.` prefix (e.g. "getBlock"), or "*" / absent for every method. */
  readonly method?: string
  readonly kind: LiteFaultKind
  /** Fault every Nth query of the method (N, 2N, ...). */
  readonly every?: number
  /** Fault queries number from .. from+count-1 of the method (1-based). */
  readonly from?: number
  readonly count?: number
  readonly delayMs?: number
  readonly code?: number
}

export type LiteFaultPlan = ReadonlyArray<LiteFaultRule>

export const liteFaultFor = (plan: LiteFaultPlan, method: string, n: number): LiteFaultRule | undefined =>
  plan.find((r) => {
    if (r.method !== undefined && r.method !== "*" && r.method !== method) return false
    if (r.every !== undefined && r.every > 0 && n % r.every === 0) return true
    if (r.from !== undefined && n >= r.from && n < r.from + (r.count ?? 1)) return true
    return r.every === undefined && r.from === undefined
  })
