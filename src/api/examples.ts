/**
 * The example block the OpenAPI document and the docs page name: the newest stored masterchain block that holds
 * transactions, found in the running store, so every example answers 200 on whatever data this server has.
 * Invariant: at most `window` store reads per new masterchain block; a store failure yields no example, never an
 * error (the documentation must stay readable while the store is down).
 */
import type { ExampleBlock } from "./openapi.js"
import type { TxStore } from "../store/TxStore.js"

const MC_SHARD = "-9223372036854775808"

/** How far back from the newest block to look for one with transactions (every real masterchain block has some). */
const WINDOW = 64

export const findExampleBlock = async (store: TxStore, window = WINDOW): Promise<ExampleBlock | null> => {
  const last = await store.lastDoneMcSeqno()
  if (last === null) return null
  for (let seqno = last; seqno >= Math.max(0, last - window); seqno--) {
    const [tx] = await store.transactionsByMcSeqno(seqno, { limit: 1, offset: 0, sort: "desc" })
    if (tx !== undefined) {
      return { mc_seqno: seqno, block: { workchain: tx.block.workchain, shard: tx.block.shard, seqno: tx.block.seqno } }
    }
  }
  return { mc_seqno: last, block: { workchain: -1, shard: MC_SHARD, seqno: last } }
}

/** findExampleBlock, asked again only when the newest stored masterchain block changes. */
export const exampleSource = (store: TxStore): (() => Promise<ExampleBlock | null>) => {
  let cached: { last: number | null; example: ExampleBlock | null } | undefined
  return async () => {
    try {
      const last = await store.lastDoneMcSeqno()
      if (cached === undefined || cached.last !== last) cached = { last, example: await findExampleBlock(store) }
      return cached.example
    } catch {
      return null
    }
  }
}
