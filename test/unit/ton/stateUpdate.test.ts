/**
 * Account states read from real blocks' state updates, checked against what the chain itself says about them: every
 * transaction's HASH_UPDATE names the Account cell before and after it, and its orig/end status. An account's state
 * after the block must be its last transaction's new hash with its end status; a state before the block, where the
 * update's old tree holds it, its first transaction's old hash with its orig status. The Account reader is also
 * compared with @ton/core's on full ShardAccount cells (tonutils-go's replay fixture).
 */
import fs from "node:fs"
import path from "node:path"
import { Cell, loadShardAccount } from "@ton/core"
import { describe, expect, it } from "vitest"
import { accountStateOf } from "../../../src/ton/accountState.js"
import { extractBlock } from "../../../src/ton/block.js"
import { decodeTransaction } from "../../../src/ton/decode.js"
import type { BlockIdExt, TransactionRecord } from "../../../src/ton/record.js"
import { listReal, ok, readRealJson, REAL } from "./support.js"

const blockFiles = listReal("blocks").filter((f) => /\.(boc|hex\.txt|b64\.txt)$/.test(f))

const readBlock = (f: string): Uint8Array | string => {
  const full = path.join(REAL, "blocks", f)
  if (f.endsWith(".boc")) return fs.readFileSync(full)
  const text = fs.readFileSync(full, "utf8").trim()
  return f.endsWith(".hex.txt") ? Buffer.from(text, "hex") : text
}

describe("account states from real blocks' state updates", () => {
  const totals = { accounts: 0, after: 0, before: 0, beforeExisting: 0 }
  for (const f of blockFiles) {
    it(`${f}: the after state of every changed account and the before states the update holds agree with its transactions`, () => {
      const x = ok(extractBlock(readBlock(f)))
      const h = x.header
      const id: BlockIdExt = { workchain: h.workchain, shard: h.shard, seqno: h.seqno, root_hash: h.root_hash, file_hash: h.file_hash }
      const first = new Map<string, TransactionRecord>()
      const last = new Map<string, TransactionRecord>()
      for (const t of x.transactions) {
        const r = ok(decodeTransaction(t.boc, { block: id, mc_block_seqno: h.seqno }))
        if (!first.has(r.account)) first.set(r.account, r)
        last.set(r.account, r)
      }
      expect(x.states.after.map((s) => s.account).sort()).toEqual([...last.keys()].sort())
      for (const s of x.states.after) {
        const tx = last.get(s.account)!
        expect(s.hash).toBe(tx.account_state_hash_after)
        expect(s.account_status).toBe(tx.end_status)
        expect(s.balance).toMatch(/^\d+$/)
        for (const v of Object.values(s.extra_currencies!)) expect(v).toMatch(/^\d+$/)
        expect(s.code_hash !== null).toBe(s.account_status === "active")
        expect(s.data_hash !== null).toBe(s.account_status === "active")
        expect(s.frozen_hash !== null).toBe(s.account_status === "frozen")
      }
      for (const s of x.states.before) {
        const tx = first.get(s.account)!
        expect(s.hash).toBe(tx.account_state_hash_before)
        expect(s.account_status).toBe(tx.orig_status)
      }
      // an account that did not exist is not in the old state at all
      for (const s of x.states.before) expect(first.get(s.account)!.orig_status).not.toBe("nonexist")
      totals.accounts += last.size
      totals.after += x.states.after.length
      totals.before += x.states.before.length
      totals.beforeExisting += [...first.values()].filter((t) => t.orig_status !== "nonexist").length
    })
  }

  it("reads extra currencies (a testnet account holding currency 100)", () => {
    const x = ok(extractBlock(readBlock("testnet__0_2000000000000000_37057705__ton4j-boc-15.hex.txt")))
    expect(x.states.after.map((s) => s.extra_currencies)).toEqual([{ "100": "22201000002" }])
  })

  it("finds states in every real block (the stored files keep their state updates)", () => {
    // printed for the record: how much of each side the updates hold
    console.log(
      `state updates of ${blockFiles.length} real blocks: ${totals.after}/${totals.accounts} after states, ` +
        `${totals.before}/${totals.beforeExisting} before states of accounts that existed`
    )
    expect(totals.after).toBe(totals.accounts)
    expect(totals.accounts).toBeGreaterThan(400)
    expect(totals.before).toBeGreaterThan(0)
  })
})

describe("the Account reader", () => {
  const fixture = readRealJson("tx-bocs/tonutils-go__transaction_replay_regression__mainnet-2txs-with-shard-accounts.json")
  const cells: Array<Cell> = fixture.accounts.flatMap((a: any) =>
    [a.from_shard_account_boc_base64, a.to_shard_account_boc_base64].map((b: string) => Cell.fromBase64(b))
  )

  it("agrees with @ton/core on full ShardAccount cells (global version 13 layout)", () => {
    expect(cells.length).toBe(4)
    for (const c of cells) {
      const account = c.refs[0]!
      const ref = loadShardAccount(c.beginParse()).account!
      const s = accountStateOf(account, "0:X")!
      expect(s).not.toBeNull()
      expect(s.hash).toBe(account.hash().toString("base64"))
      expect(s.balance).toBe(ref.storage.balance.coins.toString())
      const st = ref.storage.state
      expect(s.account_status).toBe(st.type)
      if (st.type === "active") {
        expect(s.code_hash).toBe(st.state.code?.hash().toString("base64") ?? null)
        expect(s.data_hash).toBe(st.state.data?.hash().toString("base64") ?? null)
      }
    }
  })

  it("reads account_none as a nonexistent account and refuses what is not an Account", () => {
    const none = new Cell({ bits: (() => { const b = Cell.EMPTY.asBuilder(); b.storeBit(0); return b.endCell().bits })() })
    expect(accountStateOf(none, "0:X")).toMatchObject({ account_status: "nonexist", balance: "0", code_hash: null })
    const account = cells[0]!.refs[0]!
    // the same bits with a byte more: not an Account
    const longer = account.asBuilder().storeUint(0, 8).endCell()
    expect(accountStateOf(longer, "0:X")).toBeNull()
  })
})
