/**
 * The in-memory store (the reference the ClickHouse read paths are compared with) holding `bundles` as the producer
 * publishes them: each masterchain block with its shard blocks, shard tops, transactions, account states and code
 * hashes.
 */
import type { MasterchainBundle } from "../../src/ton/record.js"
import { MemoryTxStore } from "../../tools/fake/memoryStore.js"

export const memoryStoreOf = (bundles: ReadonlyArray<MasterchainBundle>): MemoryTxStore =>
  new MemoryTxStore(
    bundles.map((b) => ({
      mc: b.mc_block,
      shardBlocks: b.shard_blocks,
      shardTops: b.shard_tops,
      transactions: b.transactions,
      accountStates: b.account_states,
      codeHashes: b.code_hashes
    }))
  )
