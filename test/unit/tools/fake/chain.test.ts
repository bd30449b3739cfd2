import { Cell, Dictionary, loadTransaction } from "@ton/core"
import { beforeAll, describe, expect, it } from "vitest"
import { type ChainData, chainStats, chainToJson, compareTx } from "../../../../tools/fake/ChainData.js"
import { buildChain, forgetGeneratedChains, generateChain } from "../../../../tools/fake/generate.js"
import { prefixLength } from "../../../../src/source/shard.js"

const opts = { seed: 11, mcBlocks: 20, txPerBlock: 6, maxShards: 8, splitChance: 0.35, mergeChance: 0.3 }

describe("generated chains", { timeout: 180_000 }, () => {
  let chain: ChainData
  beforeAll(() => {
    chain = generateChain(opts)
  }, 300_000)

  it("are deterministic for a seed and differ across seeds", () => {
    const small = { ...opts, mcBlocks: 4, fixtures: false }
    const a = JSON.stringify(chainToJson(buildChain(small)))
    expect(JSON.stringify(chainToJson(buildChain(small)))).toBe(a)
    expect(JSON.stringify(chainToJson(generateChain(small)))).toBe(a)
    expect(JSON.stringify(chainToJson(buildChain({ ...small, seed: 12 })))).not.toBe(a)
  })

  it("survive the on-disk cache unchanged", () => {
    const small = { ...opts, mcBlocks: 3, fixtures: false, cacheAboveTxs: 0 }
    const fresh = JSON.stringify(chainToJson(buildChain(small)))
    expect(JSON.stringify(chainToJson(generateChain(small)))).toBe(fresh)
    // the second call in a fresh memory reads the file the first one left
    forgetGeneratedChains()
    expect(JSON.stringify(chainToJson(generateChain(small)))).toBe(fresh)
  })

  it("link every committed shard block to blocks of the same or earlier masterchain blocks", () => {
    for (const [seqno, mc] of chain.masterchain) {
      for (const b of mc.shardBlocks) {
        expect(b.record.mc_block_seqno).toBe(seqno)
        for (const p of b.record.prev_blocks) {
          const prev = chain.blocks.get(`${p.workchain}:${p.shard}:${p.seqno}`)
          expect(prev, `prev of ${b.record.id.shard}:${b.record.id.seqno}`).toBeDefined()
          expect(prev!.record.id.root_hash).toBe(p.root_hash)
          expect(prev!.record.mc_block_seqno).toBeLessThanOrEqual(seqno)
          expect(prev!.record.id.seqno).toBeLessThan(b.record.id.seqno)
        }
        expect(b.record.prev_blocks.length).toBe(b.record.after_merge ? 2 : seqno === chain.base ? 0 : 1)
      }
      // the tops partition the workchain: their shares of the id space sum to one
      const share = mc.shardTops.reduce((s, t) => s + 2 ** -prefixLength(t.shard), 0)
      expect(share).toBe(1)
      for (const t of mc.shardTops)
        expect(chain.blocks.get(`${t.workchain}:${t.shard}:${t.seqno}`)!.record.mc_block_seqno).toBeLessThanOrEqual(
          seqno
        )
    }
    const stats = chainStats(chain)
    expect(stats.splitChildren).toBeGreaterThan(0)
    expect(stats.merges).toBeGreaterThan(0)
  })

  it("hold real transaction cells: hashes match BOCs, unique, sorted (account, lt) per block", () => {
    const seen = new Set<string>()
    for (const b of chain.blocks.values()) {
      expect(b.record.tx_count).toBe(b.txs.length)
      for (const t of b.txs) {
        expect(BigInt(t.lt)).toBeGreaterThan(BigInt(b.record.start_lt))
        expect(BigInt(t.lt)).toBeLessThan(BigInt(b.record.end_lt))
      }
      for (let i = 1; i < b.txs.length; i++) expect(compareTx(b.txs[i - 1]!, b.txs[i]!)).toBeLessThan(0)
      for (const t of b.txs) {
        expect(seen.has(t.hash)).toBe(false)
        seen.add(t.hash)
        expect(t.account.startsWith(`${b.record.id.workchain}:`)).toBe(true)
      }
    }
    for (const b of [...chain.blocks.values()].slice(0, 40)) {
      for (const t of b.txs) {
        const cell = Cell.fromBase64(t.boc)
        expect(cell.hash().toString("base64")).toBe(t.hash)
        const tx = loadTransaction(cell.beginParse())
        expect(tx.lt.toString()).toBe(t.lt)
        expect(`${b.record.id.workchain}:${tx.address.toString(16).padStart(64, "0").toUpperCase()}`).toBe(t.account)
      }
    }
  })

  it("mix message kinds, deploys, aborts, bounces and parent-child message links", () => {
    const sent = new Set<string>()
    const received: Array<string> = []
    const seen = { extIn: 0, init: 0, extOut: 0, internal: 0, comment: 0, aborted: 0, bounced: 0, tickTock: 0 }
    const generated = [...chain.blocks.values()].flatMap((b) => b.txs).filter((t) => t.origin === "generated")
    for (const t of generated) {
      const cell = Cell.fromBase64(t.boc)
      const tx = loadTransaction(cell.beginParse())
      const msgs = cell.refs[0]!.beginParse()
      const inCell = msgs.loadMaybeRef()
      if (inCell) received.push(inCell.hash().toString("hex"))
      for (const r of collectOutCells(cell)) sent.add(r)
      const d = tx.description
      if (d.type === "tick-tock") seen.tickTock++
      if (d.type === "generic" && d.aborted) seen.aborted++
      const inMsg = tx.inMessage
      if (inMsg?.info.type === "external-in") seen.extIn++
      if (inMsg?.init) seen.init++
      if (inMsg?.info.type === "internal") {
        seen.internal++
        if (inMsg.info.bounced) seen.bounced++
        const body = inMsg.body.beginParse()
        if (body.remainingBits >= 32 && body.preloadUint(32) === 0) seen.comment++
      }
      for (const m of tx.outMessages.values()) if (m.info.type === "external-out") seen.extOut++
    }
    for (const [k, v] of Object.entries(seen)) expect(v, k).toBeGreaterThan(0)
    const linked = received.filter((h) => sent.has(h)).length
    expect(linked).toBeGreaterThan(10)
    const fixtures = [...chain.blocks.values()].flatMap((b) => b.txs).filter((t) => t.origin !== "generated")
    expect(fixtures.length).toBeGreaterThan(1000)
  })
})

/** Hashes of the message cells in the transaction's out_msgs dictionary (values are references to messages). */
const collectOutCells = (cell: Cell): Array<string> => {
  const msgs = cell.refs[0]!.beginParse()
  msgs.loadMaybeRef()
  const dict = msgs.loadDict(Dictionary.Keys.Uint(15), {
    serialize: (c: Cell, b) => void b.storeRef(c),
    parse: (sl) => sl.loadRef()
  })
  return dict.values().map((c) => c.hash().toString("hex"))
}
