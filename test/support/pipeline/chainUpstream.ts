// An in-process Upstream over a generated chain, and expectations derived from the chain, for pipeline tests that
// do not need the HTTP layer. The chain is the truth: block ids and transaction hashes come from it, not from us.
import { Effect } from "effect"
import type { ChainData } from "../../../tools/fake/ChainData.js"
import { UpstreamError, type RawMasterchainBundle, type UpstreamService } from "../../../src/source/Upstream.js"

export const rawBundle = (chain: ChainData, seqno: number): RawMasterchainBundle | undefined => {
  const mc = chain.masterchain.get(seqno)
  if (mc === undefined || seqno < chain.first || seqno > chain.last) return undefined
  const blocks = [mc.block, ...mc.shardBlocks]
  return {
    mc_seqno: seqno,
    mc_block: mc.block.record,
    shard_blocks: mc.shardBlocks.map((b) => b.record),
    shard_tops: mc.shardTops,
    transactions: blocks.flatMap((b) =>
      b.txs.map((t) => ({ block: b.record.id, account: t.account, lt: t.lt, hash: t.hash, boc: t.boc }))
    ),
    account_states: [],
    code_hashes: {}
  }
}

export const chainUpstream = (chain: ChainData, head: () => number = () => chain.last): UpstreamService => ({
  head: Effect.sync(head),
  bundle: (seqno) => {
    const raw = seqno <= head() ? rawBundle(chain, seqno) : undefined
    return raw === undefined
      ? Effect.fail(new UpstreamError({ reason: "not_found", message: `mc ${seqno} not in the chain` }))
      : Effect.succeed(raw)
  }
})

export interface Expected {
  readonly mcSeqnos: ReadonlyArray<number>
  /** "wc:shard:seqno:root_hash" of every block (masterchain and shard), sorted. */
  readonly blocks: ReadonlyArray<string>
  /** Transaction hashes, sorted. */
  readonly txHashes: ReadonlyArray<string>
}

export const expectedFrom = (chain: ChainData, from = chain.first, to = chain.last): Expected => {
  const mcSeqnos: Array<number> = []
  const blocks: Array<string> = []
  const txHashes: Array<string> = []
  for (let s = from; s <= to; s++) {
    const mc = chain.masterchain.get(s)!
    mcSeqnos.push(s)
    for (const b of [mc.block, ...mc.shardBlocks]) {
      const id = b.record.id
      blocks.push(`${id.workchain}:${id.shard}:${id.seqno}:${id.root_hash}`)
      for (const t of b.txs) txHashes.push(t.hash)
    }
  }
  return { mcSeqnos, blocks: blocks.sort(), txHashes: txHashes.sort() }
}
