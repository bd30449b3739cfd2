import { createHash } from "node:crypto"
import { Either } from "effect"
import { describe, expect, it } from "vitest"
import { extractBlock, toBlockRecord } from "../../../../src/ton/block.js"
import { blockKey } from "../../../../src/source/shard.js"
import type { ChainData } from "../../../../tools/fake/ChainData.js"
import { generateChain } from "../../../../tools/fake/generate.js"
import { withBlockFiles } from "../../../../tools/fake/liteserver/blocks.js"
import { fixturesChain } from "../../../../tools/fake/server.js"

const check = (source: ChainData) => {
  const { chain, files } = withBlockFiles(source)
  let blocks = 0
  for (let m = chain.first; m <= chain.last; m++) {
    const mc = chain.masterchain.get(m)!
    const before = source.masterchain.get(m)!
    expect(mc.shardBlocks.length).toBe(before.shardBlocks.length)
    for (const b of [mc.block, ...mc.shardBlocks]) {
      const file = files.get(blockKey(b.record.id))!
      expect(createHash("sha256").update(file).digest("base64")).toBe(b.record.id.file_hash)
      const x = extractBlock(file)
      if (Either.isLeft(x)) throw new Error(x.left.message)
      expect(toBlockRecord(x.right.header, m)).toEqual(b.record)
      expect(x.right.transactions.map((t) => [t.account, t.lt, t.hash, t.boc])).toEqual(
        b.txs.map((t) => [t.account, t.lt, t.hash, t.boc])
      )
      blocks += 1
    }
    // the masterchain block describes exactly the tops the chain lists
    const x = extractBlock(files.get(blockKey(mc.block.record.id))!)
    if (Either.isLeft(x)) throw new Error(x.left.message)
    const tops = x.right.header.shards!.map((s) => ({
      workchain: s.workchain,
      shard: s.shard,
      seqno: s.seqno,
      root_hash: s.root_hash,
      file_hash: s.file_hash
    }))
    expect(new Set(tops.map((t) => JSON.stringify(t)))).toEqual(
      new Set(mc.shardTops.map((t) => JSON.stringify({ ...t })))
    )
  }
  expect(blocks).toBeGreaterThan(chain.last - chain.first)
  // the transactions themselves are unchanged, only their BOC layout may follow the node's cell order
  const hashes = (c: ChainData) => [...c.blocks.values()].flatMap((b) => b.txs.map((t) => t.hash)).sort()
  expect(hashes(chain)).toEqual(hashes(source))
}

describe("block files of fake chains", () => {
  it("give back every record and transaction of the fixtures chain through extractBlock", () => {
    check(fixturesChain())
  })

  it("do so for a generated chain with splits and merges", () => {
    const c = generateChain({
      seed: 5,
      mcBlocks: 12,
      txPerBlock: 3,
      maxShards: 8,
      splitChance: 0.4,
      mergeChance: 0.3,
      fixtures: false
    })
    const merges = [...c.blocks.values()].filter((b) => b.record.after_merge).length
    const splits = [...c.blocks.values()].filter((b) => b.record.after_split).length
    expect(merges).toBeGreaterThan(0)
    expect(splits).toBeGreaterThan(0)
    check(c)
  })
})
