/**
 * The consumer's in-memory batch: bundles taken from Kafka but not yet in ClickHouse, keyed by mc seqno so that a
 * redelivery (after a rebalance or a failed flush) replaces rather than duplicates. Invariant: the offset to commit
 * for each partition after a flush is one past that partition's highest offset in the batch, never past a bundle that
 * is not in it (a bundle topic with several partitions gives each its own committed offset).
 */
import type { MasterchainBundle } from "../ton/record.js"

export interface Buffered {
  readonly bundle: MasterchainBundle
  readonly digest: string
  readonly offset: bigint
  /** Partition of the bundle topic the record came from (0 when the topic has one). */
  readonly partition?: number
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
  private readonly skipped = new Map<number, bigint>()

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
  skip(offset: bigint, partition = 0): void {
    const previous = this.skipped.get(partition)
    if (previous === undefined || offset > previous) this.skipped.set(partition, offset)
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

  /**
   * Whether a record of `bytes` would take the batch past `batchBytes`: it is then written first, so that a batch
   * holds its bound's bytes at most (a single larger record alone), not its bound and one more record.
   */
  wouldPass(bytes: number, batchBytes: number): boolean {
    return this.items.size > 0 && this.byteCount + bytes > batchBytes
  }

  due(batchRows: number, batchMs: number, nowMs: number, batchBytes = Number.POSITIVE_INFINITY): boolean {
    if (this.items.size === 0) return this.skipped.size > 0
    return (
      this.rowCount >= batchRows || this.byteCount >= batchBytes || nowMs - (this.startedAt ?? nowMs) >= batchMs
    )
  }

  /** The batch in mc order and the offsets to commit once it is stored (`commitOffset`: partition 0's). */
  take(): {
    readonly items: ReadonlyArray<Buffered>
    readonly commitOffset: bigint | undefined
    readonly commitOffsets: ReadonlyMap<number, bigint>
  } {
    const items = [...this.items.values()].sort((a, b) => a.bundle.mc_seqno - b.bundle.mc_seqno)
    const highest = new Map(this.skipped)
    for (const i of items) {
      const p = i.partition ?? 0
      const m = highest.get(p)
      if (m === undefined || i.offset > m) highest.set(p, i.offset)
    }
    const commitOffsets = new Map([...highest].map(([p, o]) => [p, o + 1n] as const))
    this.items.clear()
    this.skipped.clear()
    this.rowCount = 0
    this.byteCount = 0
    this.startedAt = undefined
    return { items, commitOffset: commitOffsets.get(0), commitOffsets }
  }

  clear(): void {
    this.take()
  }
}
