// The generated chain the ingest benchmarks and the differential tests share: four to eight basechain shards, up to
// two blocks per shard per masterchain block, the recorded real transactions mixed in, nothing cached on disk.
import type { ChainData } from "./ChainData.js"
import { generateChain } from "./generate.js"

export const mixedChain = (seed: number, mcBlocks: number, txPerBlock: number): ChainData =>
  generateChain({
    seed,
    mcBlocks,
    txPerBlock,
    initialShards: 4,
    maxShards: 8,
    maxBlocksPerShard: 2,
    fixtures: true,
    network: "mainnet",
    cacheAboveTxs: 0
  })
