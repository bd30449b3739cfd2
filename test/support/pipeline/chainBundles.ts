// A generated chain's bundles as the pipeline stores them: decoded by the producer's decoder, with the trace ids its
// publish step gives them (the benchmarks and the tests that store a whole chain share this one definition).
import { assembleBundle, pipelineDecode } from "../../../src/producer/assemble.js"
import { installFastCellHash } from "../../../src/ton/fastHash.js"
import type { MasterchainBundle } from "../../../src/ton/record.js"
import { assignTraceIds } from "../../../src/trace/traceIds.js"
import { mixedChain } from "../../../tools/fake/mixedChain.js"
import { rawBundle } from "./chainUpstream.js"

/** Every bundle of `mixedChain(seed, mc, tx)`, decoded and traced. */
export const chainBundles = (seed: number, mc: number, tx: number): Array<MasterchainBundle> => {
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
