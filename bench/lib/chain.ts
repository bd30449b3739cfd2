// The generated chain the ingest benchmarks share (tools/fake/mixedChain.ts; the differential tests use it too).
import { assembleBundle, pipelineDecode } from "../../src/producer/assemble.js"
import { installFastCellHash } from "../../src/ton/fastHash.js"
import type { MasterchainBundle } from "../../src/ton/record.js"
import { assignTraceIds } from "../../src/trace/traceIds.js"
import { rawBundle } from "../../test/support/pipeline/chainUpstream.js"
import { mixedChain } from "../../tools/fake/mixedChain.js"

export { mixedChain as benchChain } from "../../tools/fake/mixedChain.js"

/** Every bundle of the chain decoded by the producer's decoder, with the trace ids its publish step gives them. */
export const benchBundles = (seed: number, mc: number, tx: number): Array<MasterchainBundle> => {
  installFastCellHash()
  const chain = mixedChain(seed, mc, tx)
  const raw: Array<MasterchainBundle> = []
  for (let s = chain.first; s <= chain.last; s++) {
    const r = rawBundle(chain, s)
    if (r !== undefined) raw.push(assembleBundle(r, "mainnet", pipelineDecode).bundle)
  }
  const traced = assignTraceIds(raw.map((b) => b.transactions), { get: () => undefined }, "own-hash")
  return raw.map((b, k) => ({ ...b, transactions: traced[k]! }))
}
