import { createHash } from "node:crypto"
import { mkdtempSync, readFileSync, rmSync } from "node:fs"
import os from "node:os"
import path from "node:path"
import { Cell, loadTransaction } from "@ton/core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startFakeToncenter } from "../../../../tools/fake/server.js"
import { chainFromBundles } from "../../../../tools/gen/chain.js"
import { loadFixtureTxs } from "../../../../tools/gen/fixtures.js"
import { generate, readBundles } from "../../../../tools/gen/generate.js"
import type { GenerateOptions, Manifest } from "../../../../tools/gen/generate.js"
import type { GenBundle } from "../../../../tools/gen/types.js"
import { blockKey } from "../../../../src/source/shard.js"
import { WALLET_CODE_HASHES } from "../../../../src/ton/v3.js"

/** @ton/core's account status names in toncenter's words. */
const STATUS = { uninitialized: "uninit", frozen: "frozen", active: "active", "non-existing": "nonexist" } as const
/** A transaction's account after it, read by the reference decoder. */
const afterOf = (boc: string) => {
  const tx = loadTransaction(Cell.fromBase64(boc).beginParse())
  return { hash: tx.stateUpdate.newHash.toString("base64"), status: STATUS[tx.endStatus] }
}

const tmp = mkdtempSync(path.join(os.tmpdir(), "gen-e2e-"))
const options: GenerateOptions = { seed: "e2e", txs: 5000, baseTxs: 900, worlds: 2, users: 60, lanes: 2, txPerMc: 40 }
let dir: string
let manifest: Manifest
const bundles: Array<GenBundle> = []

beforeAll(async () => {
  const r = await generate({ ...options, cacheDir: path.join(tmp, "a"), threads: false })
  dir = r.dir
  manifest = r.manifest
  for await (const b of readBundles(dir)) bundles.push(b)
}, 900_000)

afterAll(() => rmSync(tmp, { recursive: true, force: true }))

const fileDigest = (d: string, m: Manifest) =>
  m.chunks.map((c) => createHash("sha256").update(readFileSync(path.join(d, c.file))).digest("hex"))

describe("generate", () => {
  it("writes exactly the requested number of distinct transactions, the real fixture ones first", () => {
    const txs = bundles.flatMap((b) => b.transactions)
    expect(manifest.txs).toBe(5000)
    expect(txs.length).toBe(5000)
    expect(new Set(txs.map((t) => t.hash)).size).toBe(5000)
    const fixtures = loadFixtureTxs()
    expect(fixtures.length).toBeGreaterThan(1000)
    expect(manifest.fixtureTxs).toBe(fixtures.length)
    const served = new Map(txs.map((t) => [t.hash, t]))
    for (const f of fixtures) expect(served.get(f.hash)?.boc).toBe(f.boc)
    expect(manifest.replicas).toBeGreaterThan(1)
    expect(manifest.bundles).toBe(bundles.length)
  })

  it("serves BOCs whose cell hash, account, lt and now match the listed fields", () => {
    for (const b of bundles) {
      for (const t of b.transactions) {
        const cell = Cell.fromBase64(t.boc)
        expect(cell.hash().toString("base64")).toBe(t.hash)
        const tx = loadTransaction(cell.beginParse())
        expect(tx.lt.toString()).toBe(t.lt)
        expect(tx.now).toBe(t.now)
        expect(`${t.block.workchain}:${tx.address.toString(16).padStart(64, "0").toUpperCase()}`).toBe(t.account)
      }
    }
  })

  it("is reused from the cache, and threads only change speed: a threaded run writes the same bytes", async () => {
    const again = await generate({ ...options, cacheDir: path.join(tmp, "a"), threads: false })
    expect(again.dir).toBe(dir)
    const threaded = await generate({ ...options, cacheDir: path.join(tmp, "b"), threads: true })
    expect(threaded.manifest.seconds.baseCached).toBe(false)
    expect(fileDigest(threaded.dir, threaded.manifest)).toEqual(fileDigest(dir, manifest))
  }, 900_000)

  it("loads into the fake toncenter, which serves every block's transactions", async () => {
    const chain = chainFromBundles(bundles, "e2e")
    expect(chain.first).toBe(bundles[0]!.mc_seqno + 1)
    const fake = await startFakeToncenter({ chain })
    try {
      const info = (await (await fetch(`${fake.url}/api/v2/getMasterchainInfo`)).json()) as { result: { last: { seqno: number } } }
      expect(info.result.last.seqno).toBe(bundles[bundles.length - 1]!.mc_seqno)
      const b = bundles[Math.floor(bundles.length / 2)]!
      for (const block of [b.mc_block, ...b.shard_blocks]) {
        const id = block.id
        const q = `workchain=${id.workchain}&shard=${id.shard}&seqno=${id.seqno}&count=1000`
        const res = (await (await fetch(`${fake.url}/api/v2/getBlockTransactionsExt?${q}`)).json()) as {
          result: { transactions: Array<{ transaction_id: { hash: string } }> }
        }
        const expected = b.transactions.filter((t) => blockKey(t.block) === blockKey(id)).map((t) => t.hash)
        expect(res.result.transactions.map((t) => t.transaction_id.hash)).toEqual(expected)
      }
    } finally {
      await fake.stop()
    }
  })

  it("carries, for every account a bundle touches, the state its last transaction there leaves and its code", () => {
    for (const b of bundles) {
      const last = new Map<string, (typeof b.transactions)[number]>()
      for (const t of b.transactions) {
        const seen = last.get(t.account)
        if (seen === undefined || BigInt(t.lt) > BigInt(seen.lt)) last.set(t.account, t)
      }
      const exists = [...last.keys()].filter((a) => afterOf(last.get(a)!.boc).status !== "nonexist")
      expect(b.account_states.map((s) => s.account)).toEqual(exists.sort())
      expect(Object.keys(b.code_hashes).sort()).toEqual([...last.keys()].sort())
      for (const a of last.keys()) if (!exists.includes(a)) expect(b.code_hashes[a]).toBeNull()
      for (const s of b.account_states) {
        const after = afterOf(last.get(s.account)!.boc)
        expect(s.hash).toBe(after.hash)
        expect(s.account_status).toBe(after.status)
        expect(b.code_hashes[s.account]).toBe(s.code_hash)
        // only an active account has code and data
        expect(s.code_hash !== null).toBe(s.account_status === "active")
        expect(s.data_hash !== null).toBe(s.account_status === "active")
        expect(s.balance).toMatch(/^\d+$/)
      }
    }
    expect(manifest.accountStates).toBe(bundles.reduce((n, b) => n + b.account_states.length, 0))
  })

  it("mixes wallets on shared codes (some the address book's), contracts, deployments and upgrades", () => {
    const history = new Map<string, Array<string | null>>()
    for (const b of bundles) {
      for (const s of b.account_states) {
        const h = history.get(s.account) ?? []
        h.push(s.code_hash)
        history.set(s.account, h)
      }
    }
    const latest = [...history.values()].map((h) => h[h.length - 1]!).filter((c): c is string => c !== null)
    const byCode = new Map<string, number>()
    for (const c of latest) byCode.set(c, (byCode.get(c) ?? 0) + 1)
    const known = latest.filter((c) => WALLET_CODE_HASHES.has(c)).length
    // most active accounts are wallets on the rule's codes; the rest are bounceable contracts
    expect(known / latest.length).toBeGreaterThan(0.35)
    expect(known / latest.length).toBeLessThan(0.8)
    // shared codes: the ten most used codes cover most accounts, and many codes are used once
    const counts = [...byCode.values()].sort((a, b) => b - a)
    expect(counts.slice(0, 10).reduce((a, b) => a + b, 0) / latest.length).toBeGreaterThan(0.6)
    expect(counts.filter((n) => n === 1).length).toBeGreaterThan(10)
    const changes = (h: ReadonlyArray<string | null>, from: "none" | "code") =>
      h.some((c, i) => i > 0 && c !== null && c !== h[i - 1] && (h[i - 1] === null) === (from === "none"))
    const histories = [...history.values()]
    expect(histories.filter((h) => changes(h, "none")).length, "deployments").toBeGreaterThan(0)
    const upgrades = histories.filter((h) => changes(h, "code")).length
    expect(upgrades, "upgrades").toBeGreaterThan(0)
    expect(upgrades, "upgrades are rare").toBeLessThan(histories.length / 20)
    expect(histories.filter((h) => h.includes(null)).length, "accounts without code").toBeGreaterThan(0)
  })

  it("serves each bundle's states to the v3 accountStates request the source sends for it", async () => {
    const chain = chainFromBundles(bundles, "e2e")
    const fake = await startFakeToncenter({ chain })
    try {
      const ask = async (addresses: ReadonlyArray<string>) => {
        const q = addresses.map((a) => `address=${encodeURIComponent(a)}`).join("&")
        const res = (await (await fetch(`${fake.url}/api/v3/accountStates?${q}&include_boc=false`)).json()) as {
          accounts: Array<{ address: string; account_state_hash: string; status: string; code_hash: string | null }>
        }
        return res.accounts
      }
      let checked = 0
      for (const b of bundles.slice(1)) {
        // the source asks for a bundle's accounts sorted, in batches of 100
        const accounts = [...new Set(b.transactions.map((t) => t.account))].sort().slice(0, 100)
        if (accounts.length < 3) continue
        const answered = await ask(accounts)
        // a nonexistent account: no state hash, status nonexist
        const state = new Map(b.account_states.map((s) => [s.account, s]))
        expect(answered.map((a) => [a.address, a.account_state_hash, a.status, a.code_hash])).toEqual(
          accounts.map((a) => {
            const s = state.get(a)
            return s === undefined ? [a, null, "nonexist", null] : [a, s.hash, s.account_status, s.code_hash]
          })
        )
        checked += 1
      }
      expect(checked).toBeGreaterThan(bundles.length / 2)
    } finally {
      await fake.stop()
    }
  })
})
