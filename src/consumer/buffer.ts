/**
 * The consumer's in-memory batch: bundles taken from Kafka but not yet in ClickHouse, keyed by mc seqno so that a
 * redelivery (after a rebalance or a failed flush) replaces rather than duplicates. Invariant: the offset to commit
 * after a flush is one past the highest offset in the batch, never past a bundle that is not in it.
 */
import type { MasterchainBundle } from "../ton/record.js"

export interface Buffered {
  readonly bundle: MasterchainBundle
  readonly digest: string
  readonly offset: bigint
  readonly rows: number
  /** Size of the Kafka value: the decoded bundle takes about as much heap (its base64 BOCs dominate). */
  readonly bytes: number
}

/** Rows a bundle will produce, roughly: the flush threshold needs an estimate, not the flattening itself. */
export const estimateRows = (b: MasterchainBundle): number =>
  1 +
  b.shard_blocks.length * 2 +
  b.transactions.reduce((n, tx) => n + 2 + (tx.in_msg === null ? 0 : 2) + tx.out_msgs.length * 2, 0) +
  b.account_states.length

export class BatchBuffer {
  private readonly items = new Map<number, Buffered>()
  private rowCount = 0
  private byteCount = 0
  private startedAt: number | undefined
  private skippedOffset: bigint | undefined

  add(item: Buffered, nowMs: number): void {
    const previous = this.items.get(item.bundle.mc_seqno)
    if (previous !== undefined) {
      this.rowCount -= previous.rows
      this.byteCount -= previous.bytes
    }
    this.items.set(item.bundle.mc_seqno, item)
    this.rowCount += item.rows
    this.byteCount += item.bytes
    this.startedAt ??= nowMs
  }

  /** A record that will never be stored (undecodable): committing past it is safe once the batch before it is. */
  skip(offset: bigint): void {
    if (this.skippedOffset === undefined || offset > this.skippedOffset) this.skippedOffset = offset
  }

  get size(): number {
    return this.items.size
  }

  get rows(): number {
    return this.rowCount
  }

  get bytes(): number {
    return this.byteCount
  }

  due(batchRows: number, batchMs: number, nowMs: number, batchBytes = Number.POSITIVE_INFINITY): boolean {
    if (this.items.size === 0) return this.skippedOffset !== undefined
    return (
      this.rowCount >= batchRows || this.byteCount >= batchBytes || nowMs - (this.startedAt ?? nowMs) >= batchMs
    )
  }

  /** The batch in mc order and the offset to commit once it is stored. */
  take(): { readonly items: ReadonlyArray<Buffered>; readonly commitOffset: bigint | undefined } {
    const items = [...this.items.values()].sort((a, b) => a.bundle.mc_seqno - b.bundle.mc_seqno)
    const maxOffset = items.reduce<bigint | undefined>(
      (m, i) => (m === undefined || i.offset > m ? i.offset : m),
      this.skippedOffset
    )
    this.items.clear()
    this.skippedOffset = undefined
    this.rowCount = 0
    this.byteCount = 0
    this.startedAt = undefined
    return { items, commitOffset: maxOffset === undefined ? undefined : maxOffset + 1n }
  }

  clear(): void {
    this.take()
  }
}
