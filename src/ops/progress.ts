/**
 * The progress line of long runs: masterchain seqno, blocks/s, tx/s, lag behind the head and ETA, computed over a
 * sliding window. Invariant: pure arithmetic over samples, so the line is testable without clocks or I/O.
 */

export interface ProgressSample {
  readonly atMs: number
  readonly mcSeqno: number
  /** Cumulative counts since start. */
  readonly blocks: number
  readonly transactions: number
}

export interface ProgressView {
  readonly mcSeqno: number
  readonly blocksPerSec: number
  readonly txPerSec: number
  /** Masterchain blocks behind the head (or the backfill end). */
  readonly lag: number | undefined
  /** Seconds until the target at the current rate; undefined when unknown or not converging. */
  readonly etaSec: number | undefined
}

export const progressView = (
  older: ProgressSample,
  newer: ProgressSample,
  target: number | undefined
): ProgressView => {
  const dt = Math.max(1, newer.atMs - older.atMs) / 1000
  const mcRate = (newer.mcSeqno - older.mcSeqno) / dt
  const lag = target === undefined ? undefined : Math.max(0, target - newer.mcSeqno)
  return {
    mcSeqno: newer.mcSeqno,
    blocksPerSec: (newer.blocks - older.blocks) / dt,
    txPerSec: (newer.transactions - older.transactions) / dt,
    lag,
    etaSec: lag === undefined ? undefined : lag === 0 ? 0 : mcRate > 0 ? lag / mcRate : undefined
  }
}

export const formatDuration = (sec: number): string => {
  const s = Math.round(sec)
  if (s < 60) return `${s}s`
  if (s < 3600) return `${Math.floor(s / 60)}m ${s % 60}s`
  return `${Math.floor(s / 3600)}h ${Math.floor((s % 3600) / 60)}m`
}

export const formatProgress = (label: string, v: ProgressView): string =>
  [
    `${label} mc ${v.mcSeqno}`,
    `${v.blocksPerSec.toFixed(1)} blk/s`,
    `${v.txPerSec.toFixed(1)} tx/s`,
    `lag ${v.lag === undefined ? "?" : v.lag}`,
    `ETA ${v.etaSec === undefined ? "?" : formatDuration(v.etaSec)}`
  ].join(" | ")

/** Keeps the samples of the last `windowMs` (at least two) to compute a rate that follows changes. */
export class ProgressTracker {
  private samples: Array<ProgressSample> = []
  private blocks = 0
  private transactions = 0
  private mcSeqno = -1

  constructor(private readonly windowMs = 10_000) {}

  record(mcSeqno: number, blocks: number, transactions: number, atMs: number): void {
    this.blocks += blocks
    this.transactions += transactions
    this.mcSeqno = Math.max(this.mcSeqno, mcSeqno)
    this.samples.push({ atMs, mcSeqno: this.mcSeqno, blocks: this.blocks, transactions: this.transactions })
    const cutoff = atMs - this.windowMs
    while (this.samples.length > 2 && this.samples[1]!.atMs <= cutoff) this.samples.shift()
  }

  totals(): { readonly mcSeqno: number; readonly blocks: number; readonly transactions: number } {
    return { mcSeqno: this.mcSeqno, blocks: this.blocks, transactions: this.transactions }
  }

  view(target: number | undefined, nowMs: number): ProgressView | undefined {
    const first = this.samples[0]
    const last = this.samples[this.samples.length - 1]
    if (first === undefined || last === undefined) return undefined
    return progressView(first, { ...last, atMs: Math.max(nowMs, last.atMs) }, target)
  }
}
