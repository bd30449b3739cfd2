/**
 * Hands generated bundles to the fake toncenter: builds its ChainData (blocks by id, masterchain map, first/last)
 * from a generated directory, so `startFakeToncenter({ chain })` serves the generated chain over the toncenter API.
 * Invariant: the first bundle (the genesis block of empty shard blocks) becomes the chain's base, served but not a
 * complete bundle; every later bundle maps 1:1 onto a ChainMasterchain with the same blocks and transactions, and its
 * account states onto the chain's states as of that masterchain block.
 */
import type { ChainAccountState, ChainBlock, ChainData, ChainMasterchain, ChainTx } from "../fake/ChainData.js"
import { blockKey } from "../../src/source/shard.js"
import type { BlockRecord } from "../../src/ton/record.js"
import { readBundles, readManifest } from "./generate.js"
import type { GenBundle } from "./types.js"

/** Accumulates bundles in masterchain order into the fake's chain model. */
export class ChainBuilder {
  private readonly masterchain = new Map<number, ChainMasterchain>()
  private readonly blocks = new Map<string, ChainBlock>()
  private readonly states = new Map<string, Array<ChainAccountState>>()
  private base = -1
  private last = -1

  add(b: GenBundle): void {
    const byBlock = new Map<string, Array<ChainTx>>()
    for (const t of b.transactions) {
      const key = blockKey(t.block)
      let list = byBlock.get(key)
      if (list === undefined) byBlock.set(key, (list = []))
      list.push({ account: t.account, lt: t.lt, hash: t.hash, boc: t.boc, now: t.now, origin: t.origin })
    }
    const block = (record: BlockRecord): ChainBlock => {
      const cb = { record, txs: byBlock.get(blockKey(record.id)) ?? [] }
      this.blocks.set(blockKey(record.id), cb)
      return cb
    }
    this.masterchain.set(b.mc_seqno, {
      seqno: b.mc_seqno,
      block: block(b.mc_block),
      shardTops: b.shard_tops,
      shardBlocks: b.shard_blocks.map(block)
    })
    const stateOf = new Map((b.account_states ?? []).map((s) => [s.account, s]))
    for (const account of Object.keys(b.code_hashes ?? {})) {
      let list = this.states.get(account)
      if (list === undefined) this.states.set(account, (list = []))
      list.push({ mcSeqno: b.mc_seqno, account, state: stateOf.get(account) ?? null })
    }
    if (this.base < 0) this.base = b.mc_seqno
    this.last = b.mc_seqno
  }

  build(name: string, network = "mainnet"): ChainData {
    const { masterchain, blocks, base, last, states } = this
    return { name, network, base, first: base + 1, last, masterchain, blocks, ...(states.size > 0 ? { states } : {}) }
  }
}

export const chainFromBundles = (bundles: Iterable<GenBundle>, name: string, network = "mainnet"): ChainData => {
  const builder = new ChainBuilder()
  for (const b of bundles) builder.add(b)
  return builder.build(name, network)
}

/** The whole generated directory in memory (about 1.5 KB per transaction). */
export const loadGeneratedChain = async (dir: string): Promise<ChainData> => {
  const manifest = readManifest(dir)
  const builder = new ChainBuilder()
  for await (const b of readBundles(dir)) builder.add(b)
  return builder.build(`generated seed ${manifest.seed}, ${manifest.txs} transactions`)
}
