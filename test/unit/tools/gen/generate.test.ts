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
})
