/**
 * The progress line of long runs: masterchain seqno, blocks/s and tx/s over a recent window (not since start), lag
 * behind the target (the backfill's end or the upstream head) and ETA. Once caught up, finished or idle it says so
 * in one line and then stays quiet until something changes. Invariant: pure arithmetic over samples and explicit
 * times, so every line is testable without clocks or I/O.
 */

export interface ProgressSample {
  readonly atMs: number
  /** Cumulative counts since start. */
  readonly bundles: number
  readonly blocks: number
  readonly transactions: number
}

export interface ProgressView {
  readonly mcSeqno: number
  readonly blocksPerSec: number
  readonly txPerSec: number
  /** Masterchain blocks per second over the window: what the ETA divides by. */
  readonly mcPerSec: number
  /** Masterchain blocks behind the target; undefined without a target. */
  readonly lag: number | undefined
  /** Seconds until the target at the current rate; undefined when unknown or not converging. */
  readonly etaSec: number | undefined
}

/** Rates between two cumulative samples; lag and ETA of `mcSeqno` against `target`. */
export const progressView = (
  older: ProgressSample,
  newer: ProgressSample,
  mcSeqno: number,
  target: number | undefined
): ProgressView => {
  const dt = Math.max(1, newer.atMs - older.atMs) / 1000
  const mcPerSec = (newer.bundles - older.bundles) / dt
  const lag = target === undefined ? undefined : Math.max(0, target - mcSeqno)
  return {
    mcSeqno,
    blocksPerSec: (newer.blocks - older.blocks) / dt,
    txPerSec: (newer.transactions - older.transactions) / dt,
    mcPerSec,
    lag,
    etaSec: lag === undefined ? undefined : lag === 0 ? 0 : mcPerSec > 0 ? lag / mcPerSec : undefined
  }
}

export const formatDuration = (sec: number): string => {
  const s = Math.round(sec)
  if (s < 60) return `${s}s`
  if (s < 3600) return `${Math.floor(s / 60)}m ${s % 60}s`
  return `${Math.floor(s / 3600)}h ${Math.floor((s % 3600) / 60)}m`
}

const rate = (n: number): string => (n >= 100 ? n.toFixed(0) : n.toFixed(1))

export const formatProgress = (label: string, v: ProgressView, windowSec?: number): string =>
  [
    `${label} mc ${v.mcSeqno}`,
    `${rate(v.blocksPerSec)} blk/s`,
    `${rate(v.txPerSec)} tx/s${windowSec === undefined ? "" : ` (last ${Math.round(windowSec)}s)`}`,
    ...(v.lag === undefined ? [] : [`lag ${v.lag}`, `ETA ${v.etaSec === undefined ? "?" : formatDuration(v.etaSec)}`])
  ].join(" | ")

/**
 * Cumulative counts sampled at each record; rates are taken between now and the newest sample at least `windowMs`
 * old (or the start, before a window has passed), so a burst at start-up does not linger in the figure.
 */
export class ProgressTracker {
  private samples: Array<ProgressSample>
  private bundles = 0
  private blocks = 0
  private transactions = 0
  private mcSeqno = -1

  constructor(
    private readonly windowMs = 30_000,
    startMs = Date.now()
  ) {
    this.samples = [{ atMs: startMs, bundles: 0, blocks: 0, transactions: 0 }]
  }

  /** One masterchain bundle of `blocks` blocks (itself and its shard blocks) and `transactions` transactions. */
  record(mcSeqno: number, blocks: number, transactions: number, atMs: number): void {
    this.bundles += 1
    this.blocks += blocks
    this.transactions += transactions
    this.mcSeqno = Math.max(this.mcSeqno, mcSeqno)
    this.samples.push({ atMs, bundles: this.bundles, blocks: this.blocks, transactions: this.transactions })
    // Keep exactly one sample older than the window: the baseline of the rate.
    const cutoff = atMs - this.windowMs
    while (this.samples.length > 2 && this.samples[1]!.atMs <= cutoff) this.samples.shift()
  }

  totals(): { readonly mcSeqno: number; readonly bundles: number; readonly blocks: number; readonly transactions: number } {
    return { mcSeqno: this.mcSeqno, bundles: this.bundles, blocks: this.blocks, transactions: this.transactions }
  }

  /** Undefined before the first record. */
  view(target: number | undefined, nowMs: number): ProgressView | undefined {
    if (this.bundles === 0) return undefined
    const cutoff = nowMs - this.windowMs
    let base = this.samples[0]!
    for (const s of this.samples) if (s.atMs <= cutoff) base = s
    const now: ProgressSample = { atMs: nowMs, bundles: this.bundles, blocks: this.blocks, transactions: this.transactions }
    return progressView(base, now, this.mcSeqno, target)
  }

  /** Seconds the current rate is taken over (shorter than the window only in the first window after start). */
  windowSec(nowMs: number): number {
    const cutoff = nowMs - this.windowMs
    let base = this.samples[0]!
    for (const s of this.samples) if (s.atMs <= cutoff) base = s
    return Math.max(1, nowMs - base.atMs) / 1000
  }
}

type ReporterState =
  | { readonly kind: "starting" }
  | { readonly kind: "working" }
  | { readonly kind: "caught-up"; readonly mcSeqno: number }
  | { readonly kind: "idle"; readonly bundles: number }

/**
 * Decides what a periodic tick prints: a progress line while work is being done and the target is not reached;
 * one line on reaching the target (or on going idle without one); nothing while that stays true.
 */
export class ProgressReporter {
  private state: ReporterState = { kind: "starting" }
  private lastBundles = 0

  constructor(
    private readonly label: string,
    readonly tracker: ProgressTracker,
    /** Lag at or below which a follower counts as caught up (blocks arrive one at a time at the head). */
    private readonly caughtUpLag = 1
  ) {}

  /**
   * The line for this tick, or undefined to stay quiet. `finished` says the run reached its end (a backfill's last
   * block); `target` is the seqno the run is heading for, when known.
   */
  tick(nowMs: number, target: number | undefined, finished = false): string | undefined {
    const t = this.tracker.totals()
    const moved = t.bundles !== this.lastBundles
    this.lastBundles = t.bundles
    const view = this.tracker.view(target, nowMs)
    if (view === undefined) return undefined
    const totals = `${t.bundles} mc blocks, ${t.transactions} transactions so far`
    if (finished || (view.lag !== undefined && view.lag <= this.caughtUpLag)) {
      if (this.state.kind === "caught-up") return undefined
      this.state = { kind: "caught-up", mcSeqno: view.mcSeqno }
      return finished
        ? `${this.label} finished at mc ${view.mcSeqno} (${totals}); quiet until there is more to do`
        : `${this.label} caught up at mc ${view.mcSeqno} (${totals}); quiet while it keeps up`
    }
    if (!moved) {
      if (this.state.kind === "idle" && this.state.bundles === t.bundles) return undefined
      if (this.state.kind === "starting") return undefined
      this.state = { kind: "idle", bundles: t.bundles }
      const behind = view.lag === undefined ? "" : `, ${view.lag} behind mc ${target}`
      return `${this.label} idle at mc ${view.mcSeqno}${behind} (${totals}); quiet until it moves`
    }
    this.state = { kind: "working" }
    return formatProgress(this.label, view, this.tracker.windowSec(nowMs))
  }
}
