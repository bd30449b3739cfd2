/**
 * The quick start's data in the in-memory store: the bundled offline chain (recorded real transactions re-homed
 * into a small generated shard layout, what `npm start` ingests without TONCENTER_URL), decoded into canonical
 * records the way the producer decodes them. Invariant: only masterchain blocks with a complete bundle (first..last)
 * are added, so the store shows exactly what the pipeline would have marked done.
 */
import { Either } from "effect"
import { decodeTransaction } from "../../../src/ton/decode.js"
import type { BlockRecord, TransactionRecord } from "../../../src/ton/record.js"
import type { ChainBlock, ChainData } from "../../../tools/fake/ChainData.js"
import { fixturesChain } from "../../../tools/fake/server.js"
import { MemoryTxStore } from "../../../tools/fake/memoryStore.js"

const decodeBlock = (b: ChainBlock): TransactionRecord[] =>
  b.txs.map((t) => {
    const decoded = decodeTransaction(t.boc, { block: b.record.id, mc_block_seqno: b.record.mc_block_seqno })
    if (Either.isLeft(decoded)) throw new Error(`bundled tx ${t.hash} does not decode: ${decoded.left.message}`)
    return { ...decoded.right, trace_id: decoded.right.trace_id ?? decoded.right.hash }
  })

export const storeOfChain = (chain: ChainData): MemoryTxStore => {
  const store = new MemoryTxStore()
  for (let seqno = chain.first; seqno <= chain.last; seqno++) {
    const mc = chain.masterchain.get(seqno)!
    const blocks: ChainBlock[] = [mc.block, ...mc.shardBlocks]
    store.add({
      mc: mc.block.record,
      shardBlocks: mc.shardBlocks.map((b): BlockRecord => b.record),
      shardTops: mc.shardTops,
      transactions: blocks.flatMap(decodeBlock)
    })
  }
  return store
}

/** The bundled chain and a store holding it. */
export const bundledChainWorld = () => {
  const chain = fixturesChain()
  return { chain, store: storeOfChain(chain) }
}
