/**
 * The chain the fake toncenter serves: masterchain blocks, the shard blocks each commits, and every block's
 * transactions as BOCs. It is also the expected truth tests compare the source's bundles against.
 * Invariant: block ids are unique, every prev link of a committed shard block points at a block of the same or an
 * earlier masterchain block, and each block's transactions are sorted (account, lt) exactly as toncenter pages them.
 */
import type { AccountStateRecord, BlockIdExt, BlockRecord } from "../../src/ton/record.js"
import { blockKey, compareBlockIds } from "../../src/source/shard.js"

export interface ChainTx {
  /** "wc:HEX" upper case. */
  readonly account: string
  readonly lt: string
  /** Standard base64 of the transaction cell hash. */
  readonly hash: string
  /** Base64 BOC served byte for byte. */
  readonly boc: string
  readonly now: number
  /** Where it came from: a fixture file name, or "generated". */
  readonly origin: string
}

export interface ChainBlock {
  /** `tx_count` equals `txs.length`; `mc_block_seqno` is the committing masterchain block. */
  readonly record: BlockRecord
  readonly txs: ReadonlyArray<ChainTx>
}

export interface ChainMasterchain {
  readonly seqno: number
  readonly block: ChainBlock
  /** What v2 `/shards?seqno=` returns for this masterchain block. */
  readonly shardTops: ReadonlyArray<BlockIdExt>
  /** Every shard block this masterchain block commits, ordered (workchain, shard, seqno). */
  readonly shardBlocks: ReadonlyArray<ChainBlock>
}

export interface ChainData {
  readonly name: string
  readonly network: string
  /** Masterchain seqno whose shard tops start the chain: served, but not a complete bundle. */
  readonly base: number
  /** First and last masterchain seqno with a complete bundle. */
  readonly first: number
  readonly last: number
  readonly masterchain: ReadonlyMap<number, ChainMasterchain>
  /** Every block by `blockKey`. */
  readonly blocks: ReadonlyMap<string, ChainBlock>
  /**
   * Account states by account ("wc:HEX"), each as of the masterchain block after which the account was in it, in
   * masterchain order: what toncenter v3 `accountStates` answers. Absent for chains without states.
   */
  readonly states?: ReadonlyMap<string, ReadonlyArray<ChainAccountState>>
}

export interface ChainAccountState {
  readonly mcSeqno: number
  readonly account: string
  /** Null: the account does not exist after that block (answered with status nonexist and no state hash). */
  readonly state: AccountStateRecord | null
}

/** What a correct source must return for one masterchain seqno. */
export interface ExpectedBundle {
  readonly mc_block: BlockRecord
  readonly shard_blocks: ReadonlyArray<BlockRecord>
  readonly shard_tops: ReadonlyArray<BlockIdExt>
  /** Transaction hashes in bundle order: masterchain block first, then shard blocks, each (account, lt). */
  readonly tx_hashes: ReadonlyArray<string>
  readonly tx_hashes_by_block: Readonly<Record<string, ReadonlyArray<string>>>
}

export const expectedBundle = (chain: ChainData, mcSeqno: number): ExpectedBundle => {
  const mc = chain.masterchain.get(mcSeqno)
  if (mc === undefined || mcSeqno < chain.first) throw new Error(`masterchain block ${mcSeqno} has no bundle`)
  const blocks = [mc.block, ...mc.shardBlocks]
  return {
    mc_block: mc.block.record,
    shard_blocks: mc.shardBlocks.map((b) => b.record),
    shard_tops: mc.shardTops,
    tx_hashes: blocks.flatMap((b) => b.txs.map((t) => t.hash)),
    tx_hashes_by_block: Object.fromEntries(blocks.map((b) => [blockKey(b.record.id), b.txs.map((t) => t.hash)]))
  }
}

export const chainStats = (chain: ChainData) => {
  let blocks = 0
  let txs = 0
  let maxShards = 0
  let splits = 0
  let merges = 0
  let maxBlockTxs = 0
  for (const [seqno, mc] of chain.masterchain) {
    if (seqno < chain.first) continue
    maxShards = Math.max(maxShards, mc.shardTops.length)
    for (const b of [mc.block, ...mc.shardBlocks]) {
      blocks += 1
      txs += b.txs.length
      maxBlockTxs = Math.max(maxBlockTxs, b.txs.length)
      if (b.record.after_split) splits += 1
      if (b.record.after_merge) merges += 1
    }
  }
  return { mcBlocks: chain.last - chain.first + 1, blocks, txs, maxShards, splitChildren: splits, merges, maxBlockTxs }
}

export const compareTx = (a: ChainTx, b: ChainTx): number => {
  if (a.account !== b.account) return a.account < b.account ? -1 : 1
  const x = BigInt(a.lt)
  const y = BigInt(b.lt)
  return x < y ? -1 : x > y ? 1 : 0
}

/** Plain JSON form for the on-disk cache of large generated chains. */
export interface ChainJson {
  readonly name: string
  readonly network: string
  readonly base: number
  readonly first: number
  readonly last: number
  readonly masterchain: ReadonlyArray<{
    readonly seqno: number
    readonly block: ChainBlock
    readonly shardTops: ReadonlyArray<BlockIdExt>
    readonly shardBlocks: ReadonlyArray<ChainBlock>
  }>
}

export const chainToJson = (chain: ChainData): ChainJson => ({
  name: chain.name,
  network: chain.network,
  base: chain.base,
  first: chain.first,
  last: chain.last,
  masterchain: [...chain.masterchain.values()]
})

export const chainFromJson = (json: ChainJson): ChainData => {
  const masterchain = new Map<number, ChainMasterchain>()
  const blocks = new Map<string, ChainBlock>()
  for (const mc of json.masterchain) {
    masterchain.set(mc.seqno, mc)
    blocks.set(blockKey(mc.block.record.id), mc.block)
    for (const b of mc.shardBlocks) blocks.set(blockKey(b.record.id), b)
  }
  return {
    name: json.name,
    network: json.network,
    base: json.base,
    first: json.first,
    last: json.last,
    masterchain,
    blocks
  }
}

export const sortBlocks = (bs: Array<ChainBlock>): Array<ChainBlock> =>
  bs.sort((a, b) => compareBlockIds(a.record.id, b.record.id))
