import { describe, expect, it } from "vitest"
import { BIG_MC, appFor, bigBlockWorld } from "./world.js"

const SHARD = "-9223372036854775808"

describe("paging through the real 510-transaction block (tongo block 3)", () => {
  const { store, shardBlock, txs } = bigBlockWorld()
  const app = appFor(store)
  const expected = [...txs]
    .sort((a, b) => {
      const x = a.account.split(":")[1]!
      const y = b.account.split(":")[1]!
      return x < y ? -1 : x > y ? 1 : Number(BigInt(a.lt) - BigInt(b.lt))
    })
    .map((t) => t.hash)

  it("holds 510 transactions over many accounts (the walk below is not trivial)", () => {
    expect(txs).toHaveLength(510)
    const perAccount = new Map<string, number>()
    for (const t of txs) perAccount.set(t.account, (perAccount.get(t.account) ?? 0) + 1)
    expect(perAccount.size).toBeGreaterThan(10)
    // accounts with several transactions make the cursor's lt half matter, not just its account half
    expect(Math.max(...perAccount.values())).toBeGreaterThan(2)
  })

  for (const count of [1, 2, 40, 256, 1000]) {
    it(`v2: count=${count} visits every transaction exactly once, in (account, lt) order`, async () => {
      const seen: string[] = []
      let cursor = ""
      let pages = 0
      for (;;) {
        const res = await app.inject(
          `/api/v2/getBlockTransactionsExt?workchain=0&shard=${SHARD}&seqno=${shardBlock.id.seqno}&count=${count}${cursor}`
        )
        expect(res.statusCode).toBe(200)
        const r = res.json().result
        pages++
        expect(r.req_count).toBe(Math.min(count, 256))
        expect(r.transactions.length).toBeLessThanOrEqual(count)
        expect(r.incomplete).toBe(r.transactions.length === count)
        seen.push(...r.transactions.map((t: any) => t.transaction_id.hash))
        if (!r.incomplete) break
        const last = r.transactions.at(-1)
        cursor = `&after_lt=${last.transaction_id.lt}&after_hash=${last.account.split(":")[1]}`
        expect(pages).toBeLessThan(600)
      }
      expect(seen).toEqual(expected)
      expect(pages).toBe(Math.floor(510 / count) + 1)
    })
  }

  for (const sort of ["asc", "desc"] as const) {
    it(`v3: limit/offset pages (${sort}) visit every transaction once, by lt then account`, async () => {
      const seen: Array<{ lt: string; account: string; hash: string }> = []
      for (let offset = 0; ; offset += 100) {
        const res = await app.inject(
          `/api/v3/masterchainBlockShardState?seqno=${BIG_MC}&limit=100&offset=${offset}&sort=${sort}`
        )
        const page = res.json().transactions
        seen.push(...page)
        if (page.length < 100) break
      }
      expect(seen.map((t) => t.hash).sort()).toEqual([...expected].sort())
      const dir = sort === "asc" ? 1n : -1n
      for (let i = 1; i < seen.length; i++) {
        const d = (BigInt(seen[i]!.lt) - BigInt(seen[i - 1]!.lt)) * dir
        expect(d > 0n || (d === 0n && seen[i]!.account > seen[i - 1]!.account)).toBe(true)
      }
    })
  }
})
