import path from "node:path"
import { fileURLToPath } from "node:url"
import { Cell, loadTransaction } from "@ton/core"
import type { Transaction } from "@ton/core"
import { WalletContractV3R2, WalletContractV4, WalletContractV5R1 } from "@ton/ton"
import { beforeAll, describe, expect, it } from "vitest"
import { expectGoldenText } from "../../../support/golden.js"
import { installFastCellHash } from "../../../../src/ton/fastHash.js"
import { OP } from "../../../../tools/gen/contracts.js"
import { Deriver } from "../../../../tools/gen/derive.js"
import { runWorld } from "../../../../tools/gen/world.js"
import type { WorldResult } from "../../../../tools/gen/world.js"
import { serializeBoc } from "../../../../src/ton/boc.js"

const here = path.dirname(fileURLToPath(import.meta.url))

installFastCellHash()

// 120 users make the payroll one highload message with 120 outputs; 1500 transactions run every action kind.
const SEED = "unit-1"
let world: WorldResult
let txs: Array<Transaction>

beforeAll(async () => {
  world = await runWorld({ seed: SEED, world: 0, targetTxs: 1500, users: 120 })
  txs = world.txs.map((t) => loadTransaction(t.cell.beginParse()))
}, 600_000)

const opOf = (body: Cell): number | null => (body.bits.length >= 32 ? body.beginParse().preloadUint(32) : null)

describe("emulated world", () => {
  it("executes every scripted action without a rejected external", () => {
    expect(world.rejected).toBe(0)
    expect(world.txs.length).toBeGreaterThanOrEqual(1500)
    for (const name of ["highload_payout", "activate_wallet", "comment_transfer", "jetton_mint", "jetton_transfer",
      "nft_mint", "nft_transfer", "bounce_to_nowhere", "logger_event", "tick_tock"]) {
      expect(world.actions[name], name).toBeGreaterThan(0)
    }
  })

  it("contains every kind of transaction the chain has, checked by decoding the BOCs", { timeout: 600_000 }, () => {
    const d = (t: Transaction) => t.description
    const generic = txs.filter((t) => d(t).type === "generic")
    type Compute = { type: string; reason?: string; exitCode?: number }
    const computeOf = (t: Transaction): Compute | null =>
      d(t).type === "generic" ? (d(t) as unknown as { computePhase: Compute }).computePhase : null
    expect(txs.some((t) => d(t).type === "tick-tock")).toBe(true)
    expect(generic.some((t) => (d(t) as { aborted: boolean }).aborted)).toBe(true)
    expect(generic.some((t) => computeOf(t)?.reason === "no-state")).toBe(true)
    expect(generic.some((t) => computeOf(t)?.reason === "no-gas")).toBe(true)
    expect(generic.some((t) => computeOf(t)?.type === "vm" && computeOf(t)?.exitCode !== 0)).toBe(true)
    expect(txs.some((t) => t.inMessage?.info.type === "internal" && t.inMessage.info.bounced)).toBe(true)
    expect(txs.some((t) => [...t.outMessages.values()].some((m) => m.info.type === "external-out"))).toBe(true)
    expect(Math.max(...txs.map((t) => t.outMessagesCount))).toBeGreaterThanOrEqual(100)

    const inOps = new Set(txs.map((t) => (t.inMessage ? opOf(t.inMessage.body) : null)))
    for (const op of [OP.jettonTransfer, OP.jettonInternalTransfer, OP.jettonNotify, OP.excesses, OP.nftTransfer,
      OP.nftOwnershipAssigned, OP.jettonMint, OP.nftMint]) {
      expect(inOps.has(op), `opcode 0x${op.toString(16)}`).toBe(true)
    }
    const comments = txs
      .flatMap((t) => (t.inMessage?.info.type === "internal" ? [t.inMessage.body] : []))
      .filter((b) => opOf(b) === 0)
      .map((b) => b.beginParse().skip(32).loadStringTail())
    expect(comments.some((c) => c.startsWith("gift #"))).toBe(true)

    // Deploys with a state init, one per wallet version, recognised by the code cell they carry.
    const deployedCode = new Set(
      txs.flatMap((t) => (t.inMessage?.init?.code && t.oldStatus !== "active" ? [t.inMessage.init.code.hash().toString("hex")] : []))
    )
    const key = Buffer.alloc(32)
    for (const code of [
      WalletContractV3R2.create({ workchain: 0, publicKey: key }).init.code,
      WalletContractV4.create({ workchain: 0, publicKey: key }).init.code,
      WalletContractV5R1.create({ workchain: 0, publicKey: key }).init.code
    ]) {
      expect(deployedCode.has(code.hash().toString("hex"))).toBe(true)
    }
    expect(txs.some((t) => t.oldStatus !== "active" && t.endStatus === "active" && t.inMessage?.init)).toBe(true)
  })

  it("is deterministic: a shorter run of the same seed is a prefix, another seed differs", async () => {
    const again = await runWorld({ seed: SEED, world: 0, targetTxs: 300, users: 120 })
    const n = again.txs.length
    expect(n).toBeGreaterThanOrEqual(300)
    expect(again.txs.map((t) => t.cell.hash().toString("base64"))).toEqual(
      world.txs.slice(0, n).map((t) => t.cell.hash().toString("base64"))
    )
    const other = await runWorld({ seed: "unit-2", world: 0, targetTxs: 50, users: 120 })
    const mine = new Set(world.txs.map((t) => t.cell.hash().toString("base64")))
    expect(other.txs.some((t) => mine.has(t.cell.hash().toString("base64")))).toBe(false)
  }, 600_000)

  it("matches the golden hashes of the seed (emulator or script changes show up here)", () => {
    const actual = {
      txs: world.txs.length,
      actions: world.actions,
      first: world.txs.slice(0, 12).map((t) => t.cell.hash().toString("base64")),
      last: world.txs.slice(-4).map((t) => t.cell.hash().toString("base64"))
    }
    expectGoldenText(path.join(here, "golden"), "world-unit-1", JSON.stringify(actual, null, 2) + "\n")
  })
})

describe("replicas of the emulated world", () => {
  const hexOf = (t: Transaction) => t.address.toString(16).padStart(64, "0")

  it("replica 0 is the emulator's output bit for bit", () => {
    const d = new Deriver({ seed: SEED, hubs: new Set(world.hubs), ltSpan: 10n ** 15n, timeSpan: 10 ** 6, lanes: 2 })
    for (const t of world.txs) {
      const r = d.derive(t, 0)
      expect(r.cell.hash().equals(t.cell.hash())).toBe(true)
    }
  }, 600_000)

  it("derives distinct, decodable transactions whose per-account chains link up", () => {
    const lanes = 2
    const hubs = new Set(world.hubs)
    const derivers = [0, 1].map(() => new Deriver({ seed: SEED, hubs, ltSpan: 10n ** 12n, timeSpan: 10 ** 6, lanes }))
    const hashes = new Set<string>()
    const byAccount = new Map<string, Array<Transaction>>()
    for (let k = 0; k < 3; k++) {
      for (const t of world.txs) {
        const r = derivers[k % lanes]!.derive(t, k)
        // Through the node-order serializer and back: the BOC we hand out decodes to the same cell.
        const cell = Cell.fromBoc(serializeBoc(r.cell))[0]!
        expect(cell.hash().equals(r.cell.hash())).toBe(true)
        hashes.add(cell.hash().toString("base64"))
        const tx = loadTransaction(cell.beginParse())
        expect(tx.lt).toBe(r.lt)
        const key = `${k % lanes}/${t.workchain}:${hexOf(tx)}`
        let list = byAccount.get(key)
        if (!list) byAccount.set(key, (list = []))
        list.push(tx)
      }
    }
    expect(hashes.size).toBe(world.txs.length * 3)
    let linked = 0
    for (const list of byAccount.values()) {
      for (let i = 1; i < list.length; i++) {
        const prev = list[i - 1]!
        const cur = list[i]!
        expect(cur.lt > prev.lt).toBe(true)
        expect(cur.prevTransactionLt).toBe(prev.lt)
        expect(cur.prevTransactionHash).toBe(BigInt("0x" + prev.hash().toString("hex")))
        expect(cur.stateUpdate.oldHash.equals(prev.stateUpdate.newHash)).toBe(true)
        linked += 1
      }
    }
    expect(linked).toBeGreaterThan(world.txs.length)
    // Hubs keep their address within a lane; users get a fresh one in every replica.
    const accountsPerReplica = new Set([...byAccount.keys()].map((k) => k.split("/")[1]))
    expect(accountsPerReplica.size).toBeGreaterThan(2.5 * new Set(txs.map(hexOf)).size)
  }, 600_000)

  it("keeps internal messages consistent: each one's destination account receives it in the same replica", () => {
    const d = new Deriver({ seed: SEED, hubs: new Set(world.hubs), ltSpan: 10n ** 12n, timeSpan: 10 ** 6, lanes: 2 })
    for (const t of world.txs) d.derive(t, 0)
    const sent = new Map<string, string>()
    const received = new Map<string, string>()
    for (const t of world.txs) {
      const tx = loadTransaction(d.derive(t, 1).cell.beginParse())
      for (const m of tx.outMessages.values()) {
        if (m.info.type === "internal") sent.set(`${m.info.createdLt}`, m.info.dest.toRawString())
      }
      if (tx.inMessage?.info.type === "internal") received.set(`${tx.inMessage.info.createdLt}`, `${t.workchain}:${hexOf(tx)}`)
    }
    let matched = 0
    for (const [lt, dest] of sent) {
      const at = received.get(lt)
      if (at !== undefined) {
        expect(at).toBe(dest)
        matched += 1
      }
    }
    expect(matched).toBeGreaterThan(sent.size * 0.9)
  }, 600_000)
})
