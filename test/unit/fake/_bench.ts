import { generateChain } from "../../../src/fake/generate.js"
import { chainStats } from "../../../src/fake/ChainData.js"
const t0 = performance.now()
const c = generateChain({ seed: 77, mcBlocks: 40, txPerBlock: 20, fixtures: false, cacheAboveTxs: 1e9 })
const ms = performance.now() - t0
const s = chainStats(c)
console.log(ms.toFixed(0), "ms", s.txs, "tx", ((s.txs / ms) * 1000).toFixed(0), "tx/s")
