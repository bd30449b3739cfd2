import { describe, expect, it } from "vitest"
import { Arranger } from "../../../../tools/gen/arrange.js"
import { Rng } from "../../../../tools/gen/rng.js"
import type { GenBundle, GenTx } from "../../../../tools/gen/types.js"
import { blockKey, compareBlockIds } from "../../../../src/source/shard.js"

// A synthetic lt-ordered stream: arrangement does not look inside BOCs, so placeholders keep this test fast.
const stream = (n: number, seed: string): Array<GenTx> => {
  const rng = new Rng(seed)
  const accounts = Array.from({ length: 300 }, () =>
    Array.from({ length: 8 }, () => rng.next().toString(16).padStart(8, "0")).join("").toUpperCase()
  )
  const out: Array<GenTx> = []
  let lt = 60_000_000_000_000n
  let now = 1_760_000_000
  for (let i = 0; i < n; i++) {
    lt += 1_000_000n
    if (rng.chance(0.2)) now += 1
    const mc = rng.chance(0.05)
    out.push({
      account: mc ? `-1:${"3".repeat(64)}` : `0:${rng.pick(accounts)}`,
      workchain: mc ? -1 : 0,
      lt: lt.toString(),
      hash: `h${i}`,
      boc: "",
      now,
      origin: "generated"
    })
  }
  return out
}

const arrange = (txs: ReadonlyArray<GenTx>, txPerMc = 60): Array<GenBundle> => {
  const a = new Arranger({ seed: "arr", txPerMc })
  const out: Array<GenBundle> = []
  for (const t of txs) {
    a.push(t)
    out.push(...a.take())
  }
  a.flush()
  out.push(...a.take())
  return out
}

const shardCovers = (shard: string, account: string): boolean => {
  const s = BigInt.asUintN(64, BigInt(shard))
  const low = s & -s
  const len = 63 - (low.toString(2).length - 1)
  const top = BigInt("0x" + account.split(":")[1]!.slice(0, 16))
  return len === 0 || top >> BigInt(64 - len) === s >> BigInt(64 - len)
}

describe("Arranger", () => {
  const txs = stream(30_000, "s1")
  const bundles = arrange(txs)
  const real = bundles.slice(1)

  it("puts every transaction in exactly one block, in a shard that covers its account", () => {
    const seen = bundles.flatMap((b) => b.transactions.map((t) => t.hash))
    expect(seen.length).toBe(txs.length)
    expect(new Set(seen).size).toBe(txs.length)
    for (const b of bundles) {
      for (const t of b.transactions) {
        if (t.block.workchain === -1) expect(t.account.startsWith("-1:")).toBe(true)
        else expect(shardCovers(t.block.shard, t.account)).toBe(true)
      }
    }
  })

  it("commits 1-16 shard blocks per masterchain block, several per shard at times, ordered like the project", () => {
    for (const b of bundles) {
      expect(b.shard_blocks.length).toBeGreaterThanOrEqual(1)
      expect(b.shard_blocks.length).toBeLessThanOrEqual(16)
      const sorted = [...b.shard_blocks].sort((x, y) => compareBlockIds(x.id, y.id))
      expect(b.shard_blocks.map((x) => blockKey(x.id))).toEqual(sorted.map((x) => blockKey(x.id)))
      const counts = b.shard_blocks.map((x) => b.transactions.filter((t) => blockKey(t.block) === blockKey(x.id)).length)
      expect(b.shard_blocks.map((x) => x.tx_count)).toEqual(counts)
    }
    expect(real.some((b) => new Set(b.shard_blocks.map((x) => x.id.shard)).size < b.shard_blocks.length)).toBe(true)
  })

  it("splits and merges shards with TON's flags and seqno rules, and every prev link points back", () => {
    const known = new Map<string, { seqno: number; mc: number }>()
    let splits = 0
    let merges = 0
    for (const b of bundles) {
      for (const x of b.shard_blocks) {
        for (const p of x.prev_blocks) {
          const prev = known.get(blockKey(p))
          expect(prev, `prev of ${blockKey(x.id)}`).toBeDefined()
          expect(prev!.mc).toBeLessThanOrEqual(b.mc_seqno)
        }
        if (x.after_merge) {
          merges += 1
          expect(x.prev_blocks.length).toBe(2)
          expect(x.id.seqno).toBe(Math.max(...x.prev_blocks.map((p) => p.seqno)) + 1)
        } else if (b !== bundles[0]) {
          expect(x.prev_blocks.length).toBe(1)
          expect(x.id.seqno).toBe(x.prev_blocks[0]!.seqno + 1)
        }
        if (x.after_split) {
          splits += 1
          expect(x.id.shard).not.toBe(x.prev_blocks[0]!.shard)
        }
        known.set(blockKey(x.id), { seqno: x.id.seqno, mc: b.mc_seqno })
      }
      // Tops are the newest block of every shard at this point.
      for (const top of b.shard_tops) expect(known.has(blockKey(top))).toBe(true)
    }
    expect(splits).toBeGreaterThan(0)
    expect(merges).toBeGreaterThan(0)
  })

  it("keeps each block's transactions in (account, lt) order and masterchain time increasing", () => {
    let lastUtime = 0
    for (const b of bundles) {
      expect(b.mc_block.gen_utime).toBeGreaterThan(lastUtime)
      lastUtime = b.mc_block.gen_utime
      for (let i = 1; i < b.transactions.length; i++) {
        const x = b.transactions[i - 1]!
        const y = b.transactions[i]!
        if (blockKey(x.block) !== blockKey(y.block)) continue
        expect(x.account < y.account || (x.account === y.account && BigInt(x.lt) < BigInt(y.lt))).toBe(true)
      }
    }
    expect(bundles[0]!.transactions.length).toBe(0)
    expect(bundles.slice(1).every((b, i) => b.mc_block.prev_blocks[0]!.seqno === bundles[i]!.mc_seqno)).toBe(true)
  })

  it("is a function of its seed and input", () => {
    expect(JSON.stringify(arrange(txs.slice(0, 5000)))).toBe(JSON.stringify(arrange(txs.slice(0, 5000))))
  })
})
