/**
 * MasterchainBundle -> its `mc_blocks_done` completion marker. Deterministic (no wall-clock column) so a replayed
 * marker is the same row and merges away.
 */
import type { MasterchainBundle } from "../ton/record.js"

export interface McBlockDoneRow {
  readonly mc_seqno: number
  readonly block_count: number
  readonly tx_count: number
}

export const mcBlockDoneRow = (b: MasterchainBundle): McBlockDoneRow => ({
  mc_seqno: b.mc_seqno,
  block_count: 1 + b.shard_blocks.length,
  tx_count: b.transactions.length
})
