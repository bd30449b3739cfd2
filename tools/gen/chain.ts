/**
 * Hands generated bundles to the fake toncenter: builds its ChainData (blocks by id, masterchain map, first/last)
 * from a generated directory, so `startFakeToncenter({ chain })` serves the generated chain over the toncenter API.
 * Invariant: the first bundle (the genesis block of empty shard blocks) becomes the chain's base, served but not a
 * complete bundle; every later bundle maps 1:1 onto a ChainMasterchain with the same blocks and transactions.
 */
import type { ChainBlock, ChainData, ChainMasterchain, ChainTx } from "../fake/ChainData.js"
import { blockKey } from "../../src/source/shard.js"
import type { BlockRecord } from "../../src/ton/record.js"
import { readBundles, readManifest } from "./generate.js"
import type { GenBundle } from "./types.js"

/** Accumulates bundles in masterchain order into the fake's chain model. */
export class ChainBuilder {
  private readonly masterchain = new Map<number, ChainMasterchain>()
  private readonly blocks = new Map<string, ChainBlock>()
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
    if (this.base < 0) this.base = b.mc_seqno
    this.last = b.mc_seqno
  }

  build(name: string, network = "mainnet"): ChainData {
    const { masterchain, blocks, base, last } = this
    return { name, network, base, first: base + 1, last, masterchain, blocks }
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
