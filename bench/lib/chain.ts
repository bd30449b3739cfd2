// The generated chain the ingest benchmarks share (tools/fake/mixedChain.ts; the differential tests use it too).
import { INSERT_ORDER, type TableName, visitBundleRows } from "../../src/flatten/bundle.js"
import { encoderFor, type RowEncoder } from "../../src/sink/encode.js"
import type { pipelineDecode } from "../../src/producer/assemble.js"
import type { MasterchainBundle } from "../../src/ton/record.js"
import type { ChainData } from "../../tools/fake/ChainData.js"
import { Either } from "effect"
import { type BlockFilesBundle, blockFile } from "../../src/source/liteserver/blockFiles.js"
import { blockKey } from "../../src/source/shard.js"
import { withBlockFiles } from "../../tools/fake/liteserver/blocks.js"
import { loadGeneratedChain } from "../../tools/gen/chain.js"

export { mixedChain as benchChain } from "../../tools/fake/mixedChain.js"

/** Every bundle of the chain decoded by the producer's decoder, with the trace ids its publish step gives them. */
export { chainBundles as benchBundles } from "../../test/support/pipeline/chainBundles.js"

/** Every transaction BOC of a chain with the block context the producer's decoder takes, in chain order. */
export const chainTransactionBocs = (chain: ChainData): Array<[string, Parameters<typeof pipelineDecode>[1]]> => {
  const all: Array<[string, Parameters<typeof pipelineDecode>[1]]> = []
  for (let seq = chain.first; seq <= chain.last; seq++) {
    const mc = chain.masterchain.get(seq)
    if (mc === undefined) continue
    for (const b of [mc.block, ...mc.shardBlocks]) {
      for (const tx of b.txs) all.push([tx.boc, { block: b.record.id, mc_block_seqno: seq }])
    }
  }
  return all
}

/** One encoded insert of a table, as the sink hands it to the engine. */
export interface EncodedTableInsert {
  readonly table: TableName
  readonly columns: ReadonlyArray<string>
  readonly format: RowEncoder["format"]
  readonly body: Buffer
}

/**
 * The bundles' rows built and encoded as a single node's sink makes them (the page rows included), in `batches`
 * batches of consecutive bundles, each batch's tables in insert order.
 */
export const encodedBatches = (
  bundles: ReadonlyArray<MasterchainBundle>,
  batches: number,
  encoder: (table: TableName) => RowEncoder = encoderFor
): Array<Array<EncodedTableInsert>> => {
  const perBatch = Math.ceil(bundles.length / batches)
  const out: Array<Array<EncodedTableInsert>> = []
  for (let i = 0; i < bundles.length; i += perBatch) {
    const encoders = new Map<TableName, RowEncoder>(INSERT_ORDER.map((t) => [t, encoder(t)]))
    visitBundleRows(bundles.slice(i, i + perBatch), (table, row) => encoders.get(table)!.add(row), undefined, { pageKv: true })
    const one: Array<EncodedTableInsert> = []
    for (const table of INSERT_ORDER) {
      const e = encoders.get(table)!
      if (e.rows === 0) continue
      const { columns, body } = e.finish()
      one.push({ table, columns, format: e.format, body })
    }
    out.push(one)
  }
  return out
}

/**
 * A generated chain's first `mc` masterchain blocks (all when `mc` is not above 0) as the liteserver source hands them
 * to the decode worker: each block's file and its shard blocks' files, in seqno order; with the chain's network.
 */
export const generatedBlockFileBundles = async (
  genDir: string,
  mc: number
): Promise<{ readonly bundles: Array<BlockFilesBundle>; readonly network: string }> => {
  const lite = withBlockFiles(await loadGeneratedChain(genDir))
  const chain = lite.chain
  const seqnos = [...chain.masterchain.keys()].sort((a, b) => a - b)
  const bundles: Array<BlockFilesBundle> = []
  for (const seqno of seqnos.slice(0, mc > 0 ? mc : seqnos.length)) {
    const block = chain.masterchain.get(seqno)!
    const files = [block.block, ...block.shardBlocks].map((b) => {
      const f = blockFile(b.record.id, lite.files.get(blockKey(b.record.id))!)
      if (Either.isLeft(f)) throw f.left
      return f.right
    })
    bundles.push({ mc_seqno: seqno, blocks: files, shard_tops: block.shardTops, states: "block" })
  }
  return { bundles, network: chain.network }
}
