import { describe, expect, it } from "vitest"
import { flattenBundle } from "../../../src/flatten/index.js"
import { assembleBlock, assembleTransactions } from "../../../src/store/assemble.js"
import { realBlockBundles } from "./realBlocks.js"

describe("record -> rows -> record on decoded real mainnet blocks", () => {
  const { bundles } = realBlockBundles()

  it("covers the real blocks' transactions", () => {
    expect(bundles.reduce((n, b) => n + b.transactions.length, 0)).toBeGreaterThan(1300)
    expect(new Set(bundles.map((b) => b.mc_seqno)).size).toBe(bundles.length)
  })

  it.each(bundles.map((b) => [b.mc_seqno, b] as const))("masterchain %i reassembles exactly", (_seqno, b) => {
    const r = JSON.parse(JSON.stringify(flattenBundle(b))) as ReturnType<typeof flattenBundle>
    const contents = new Map(r.message_contents.map((c) => [c.hash, c.boc]))
    expect(assembleTransactions(r.transactions, r.messages, contents)).toStrictEqual(b.transactions)
    expect(r.blocks.map(assembleBlock)).toStrictEqual([b.mc_block, ...b.shard_blocks])
  })
})
