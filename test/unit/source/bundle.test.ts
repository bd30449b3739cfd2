import { Cell } from "@ton/core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { chainStats, expectedBundle } from "../../../tools/fake/ChainData.js"
import { type FakeToncenter, startFakeToncenter } from "../../../tools/fake/server.js"
import { bundles } from "./support.js"

describe("bundle assembly against a generated chain with splits and merges", { timeout: 180_000 }, () => {
  let fake: FakeToncenter
  beforeAll(async () => {
    fake = await startFakeToncenter({
      chain: {
        kind: "generated",
        seed: 42,
        mcBlocks: 24,
        txPerBlock: 3,
        maxShards: 8,
        splitChance: 0.35,
        mergeChance: 0.3
      }
    })
  }, 300_000)
  afterAll(() => fake.stop())

  it("the chain really exercises splits, merges and multi-block masterchain blocks", () => {
    const stats = chainStats(fake.chain)
    expect(stats.splitChildren).toBeGreaterThan(2)
    expect(stats.merges).toBeGreaterThan(0)
    expect(stats.maxShards).toBeGreaterThan(2)
    const multi = [...fake.chain.masterchain.values()].filter((m) => m.shardBlocks.length > m.shardTops.length)
    expect(multi.length).toBeGreaterThan(3)
  })

  it("every bundle equals the chain's truth: blocks, tops, transactions and their bytes", async () => {
    const got = await bundles({ url: fake.url, rps: 0, concurrency: 6 }, fake.chain.first, fake.chain.last)
    const byHash = new Map([...fake.chain.blocks.values()].flatMap((b) => b.txs.map((t) => [t.hash, t] as const)))
    for (const b of got) {
      const want = expectedBundle(fake.chain, b.mc_seqno)
      expect(b.mc_block).toEqual(want.mc_block)
      expect(b.shard_blocks).toEqual(want.shard_blocks)
      expect(b.shard_tops).toEqual(want.shard_tops)
      expect(b.transactions.map((t) => t.hash)).toEqual(want.tx_hashes)
      for (const t of b.transactions) {
        const truth = byHash.get(t.hash)!
        expect(t.boc).toBe(truth.boc)
        expect(t.account).toBe(truth.account)
        expect(t.lt).toBe(truth.lt)
      }
    }
    // no block is committed twice and the walk missed none
    const committed = got.flatMap((b) =>
      [b.mc_block, ...b.shard_blocks].map((r) => `${r.id.workchain}:${r.id.shard}:${r.id.seqno}`)
    )
    expect(new Set(committed).size).toBe(committed.length)
    const expectedCount = [...fake.chain.blocks.values()].filter(
      (b) => b.record.mc_block_seqno >= fake.chain.first
    ).length
    expect(committed.length).toBe(expectedCount)
    // the recorded real transactions travel through with their original bytes
    const real = got.flatMap((b) => b.transactions).filter((t) => byHash.get(t.hash)!.origin !== "generated")
    expect(real.length).toBeGreaterThan(1000)
    for (const t of real.slice(0, 200)) expect(Cell.fromBase64(t.boc).hash().toString("base64")).toBe(t.hash)
  })

  it("is deterministic: the same seqno twice gives the same bundle", async () => {
    const [a] = await bundles({ url: fake.url, rps: 0 }, fake.chain.first + 5, fake.chain.first + 5)
    const [b] = await bundles({ url: fake.url, rps: 0, concurrency: 1 }, fake.chain.first + 5, fake.chain.first + 5)
    expect(JSON.stringify(a)).toBe(JSON.stringify(b))
  })
})

describe("getBlockTransactionsExt pagination", { timeout: 180_000 }, () => {
  let fake: FakeToncenter
  beforeAll(async () => {
    fake = await startFakeToncenter({
      chain: { kind: "generated", seed: 9, mcBlocks: 3, txPerBlock: 2, maxShards: 1, fixtures: false, bigBlockTxs: 600 }
    })
  }, 300_000)
  afterAll(() => fake.stop())

  const bigBlock = () => [...fake.chain.blocks.values()].reduce((a, b) => (a.txs.length > b.txs.length ? a : b))
  const bigSeqno = () => bigBlock().record.mc_block_seqno

  for (const pageSize of [256, 100, 7]) {
    it(`collects a block of more than 256 transactions with pages of ${pageSize}`, async () => {
      const big = bigBlock()
      expect(big.txs.length).toBeGreaterThan(256)
      fake.clearRequests()
      const [b] = await bundles({ url: fake.url, rps: 0, pageSize }, bigSeqno(), bigSeqno())
      expect(b!.transactions.map((t) => t.hash)).toEqual(expectedBundle(fake.chain, bigSeqno()).tx_hashes)
      const pages = fake.requests.filter(
        (r) =>
          r.endpoint === "getBlockTransactionsExt" &&
          r.query["seqno"] === String(big.record.id.seqno) &&
          r.query["workchain"] === "0"
      )
      expect(pages.length).toBe(Math.floor(big.txs.length / pageSize) + 1)
      expect(pages.every((p) => p.query["count"] === String(pageSize))).toBe(true)
      // the cursor is the previous page's last (account id, lt), not a transaction hash
      const second = pages[1]!
      const lastOfFirst = big.txs[pageSize - 1]!
      expect(second.query["after_lt"]).toBe(lastOfFirst.lt)
      expect(second.query["after_hash"]).toBe(lastOfFirst.account.split(":")[1])
    })
  }

  it("stops after the empty page when the block size is an exact multiple of the page", async () => {
    const exact = await startFakeToncenter({
      chain: { kind: "generated", seed: 9, mcBlocks: 3, txPerBlock: 0, maxShards: 1, fixtures: false, bigBlockTxs: 512 }
    })
    try {
      const big = [...exact.chain.blocks.values()].find((b) => b.txs.length === 512)!
      expect(big).toBeDefined()
      const seqno = big.record.mc_block_seqno
      const [b] = await bundles({ url: exact.url, rps: 0, pageSize: 256 }, seqno, seqno)
      expect(b!.transactions.map((t) => t.hash)).toEqual(expectedBundle(exact.chain, seqno).tx_hashes)
      const pages = exact.requests.filter(
        (r) =>
          r.endpoint === "getBlockTransactionsExt" &&
          r.query["seqno"] === String(big.record.id.seqno) &&
          r.query["workchain"] === "0"
      )
      // a full last page still says `incomplete`, so one more (empty) page confirms the end
      expect(pages.length).toBe(3)
    } finally {
      await exact.stop()
    }
  })
})
