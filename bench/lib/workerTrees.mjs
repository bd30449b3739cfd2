// Two checkouts' compiled trees side by side in one process, for the benches that compare what the producer's decode
// worker does in each (bench/workerTrees.mjs: its CPU; bench/workerTreesBytes.mjs: its output's bytes): each tree's
// modules loaded from its own dist/ (its @ton/core patched by its own fastHash), and a generated chain's masterchain
// blocks as the block files the liteserver source hands the worker.
import { join } from "node:path"
import { Either } from "effect"

/** The worker's modules of the checkout `dir` (built with its own `npm run build`), its cell hashing installed. */
export const loadTree = async (dir) => {
  const m = {
    prepare: (await import(`${dir}/dist/src/producer/assemble.js`)).prepare,
    assembleBlockFiles: (await import(`${dir}/dist/src/producer/blockFiles.js`)).assembleBlockFiles,
    blockFile: (await import(`${dir}/dist/src/source/liteserver/blockFiles.js`)).blockFile,
    tx: await import(`${dir}/dist/src/kafka/transactions.js`),
    install: (await import(`${dir}/dist/src/ton/fastHash.js`)).installFastCellHash
  }
  m.install()
  return m
}

/**
 * The chain written by `npm run generate` in `genDir`, read with this checkout's (`root`) tools: its network, its
 * masterchain seqnos in order (the first `mc` of them when mc > 0), and `bundleOf(tree, seqno)`: that block's
 * bundle request as `tree` reads its block files.
 */
export const loadChain = async (root, genDir, mc = 0) => {
  const { loadGeneratedChain } = await import(join(root, "dist/tools/gen/chain.js"))
  const { withBlockFiles } = await import(join(root, "dist/tools/fake/liteserver/blocks.js"))
  const { blockKey } = await import(join(root, "dist/src/source/shard.js"))
  const lite = withBlockFiles(await loadGeneratedChain(genDir))
  const chain = lite.chain
  let seqnos = [...chain.masterchain.keys()].sort((x, y) => x - y)
  if (mc > 0) seqnos = seqnos.slice(0, mc)
  const bundleOf = (t, seqno) => {
    const m = chain.masterchain.get(seqno)
    const files = [m.block, ...m.shardBlocks].map((b) => {
      const f = t.blockFile(b.record.id, lite.files.get(blockKey(b.record.id)))
      if (Either.isLeft(f)) throw f.left
      return f.right
    })
    return { mc_seqno: seqno, blocks: files, shard_tops: m.shardTops, states: "block" }
  }
  return { network: chain.network, seqnos, bundleOf }
}
