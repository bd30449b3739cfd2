// The chain of the kill tests, shared by the test and its child processes (same options => same chain).
import type { GenerateOptions } from "../../../tools/fake/generate.js"

export const chaosChainOptions = (seed: number, mcBlocks: number): GenerateOptions => ({
  seed,
  mcBlocks,
  txPerBlock: 4,
  initialShards: 2,
  maxShards: 8,
  splitChance: 0.3,
  mergeChance: 0.3,
  maxBlocksPerShard: 3,
  fixtures: true,
  network: "testnet",
  // Cached on disk: every child process of the kill tests needs the same chain and should not rebuild it.
  cacheAboveTxs: 0
})
