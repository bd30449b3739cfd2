/**
 * Every real block in test/fixtures/real/blocks is extracted and every transaction decoded. The `.txs.json` files
 * (derived with @ton/core by the fixtures' author) give the expected transaction list, header summary and per-tx
 * facts. Their `boc_b64` is byte-identical to ours except for trees with heavy subtrees (more than 63 cells counted
 * with repetition): there the author's serializer skipped the node's weight rule that moves such subtrees first,
 * which boc.test.ts shows the node applies (indexer and tonlib BOCs). For those only the cells (root hash and size)
 * are compared.
 */
import fs from "node:fs"
import path from "node:path"
import { Cell } from "@ton/core"
import { describe, expect, it } from "vitest"
import { extractBlock, toBlockRecord } from "../../../src/ton/block.js"
import { parseBoc } from "../../../src/ton/boc.js"
import { decodeTransaction } from "../../../src/ton/decode.js"
import type { BlockIdExt, TransactionRecord } from "../../../src/ton/record.js"
import { renderV2Transaction } from "../../../src/ton/v2.js"
import { renderV3Transaction } from "../../../src/ton/v3.js"
import { listReal, ok, readRealJson, REAL } from "./support.js"

const blockFiles = listReal("blocks").filter((f) => /\.(boc|hex\.txt|b64\.txt)$/.test(f))

const readBlock = (f: string): Uint8Array | string => {
  const full = path.join(REAL, "blocks", f)
  if (f.endsWith(".boc")) return fs.readFileSync(full)
  const text = fs.readFileSync(full, "utf8").trim()
  return f.endsWith(".hex.txt") ? Buffer.from(text, "hex") : text
}

const summaryOf = (f: string): any | null => {
  const name = f.replace(/\.(boc|hex\.txt|b64\.txt)$/, "").replace(/__no-txs$/, "")
  const candidates = listReal("blocks").filter((x) => x === `${name}.txs.json`)
  return candidates.length === 1 ? readRealJson(`blocks/${candidates[0]}`) : null
}

const hexToB64 = (hex: string) => Buffer.from(hex, "hex").toString("base64")

/** Size of the tree when shared subtrees are counted each time they are referenced, capped to stop early. */
const treeWeight = (c: Cell, cap = 1000): number => {
  let n = 1
  for (const r of c.refs) {
    n += treeWeight(r, cap)
    if (n > cap) return n
  }
  return n
}

const STATUS: Record<string, string> = {
  active: "active",
  frozen: "frozen",
  uninitialized: "uninit",
  "non-existing": "nonexist"
}
const BOUNCE: Record<string, string> = { negfunds: "negative-funds", nofunds: "no-funds", ok: "ok" }
const idOf = (h: BlockIdExt): BlockIdExt => ({
  workchain: h.workchain,
  shard: h.shard,
  seqno: h.seqno,
  root_hash: h.root_hash,
  file_hash: h.file_hash
})

describe("block extraction", () => {
  it("finds every block file of the fixtures", () => {
    expect(blockFiles.length).toBe(14)
  })

  for (const f of blockFiles) {
    describe(f, () => {
      const block = ok(extractBlock(readBlock(f)))
      const summary = summaryOf(f)

      it("reads the header", () => {
        const h = block.header
        expect(h.tx_count).toBe(block.transactions.length)
        expect(h.prev_blocks.length).toBe(h.after_merge ? 2 : 1)
        if (f.includes("__no-txs")) expect(block.transactions).toEqual([])
        if (f.includes("tongo-block-4")) expect(h.after_merge).toBe(true)
        if (summary === null) return
        const s = summary.block
        expect({
          global_id: h.global_id,
          workchain: h.workchain,
          shard: h.shard,
          seqno: h.seqno,
          root_hash: h.root_hash,
          gen_utime: h.gen_utime,
          start_lt: h.start_lt,
          end_lt: h.end_lt,
          key_block: h.key_block,
          after_merge: h.after_merge,
          after_split: h.after_split,
          before_split: h.before_split,
          tx_count: h.tx_count
        }).toEqual({
          global_id: s.global_id,
          workchain: s.workchain,
          shard: s.shard_signed_decimal,
          seqno: s.seqno,
          root_hash: s.root_hash_b64,
          gen_utime: s.gen_utime,
          start_lt: s.start_lt,
          end_lt: s.end_lt,
          key_block: s.key_block,
          after_merge: s.after_merge,
          after_split: s.after_split,
          before_split: s.before_split,
          tx_count: s.tx_count
        })
        const ref = (r: any) => ({
          end_lt: r.end_lt,
          seqno: r.seq_no,
          root_hash: hexToB64(r.root_hash),
          file_hash: hexToB64(r.file_hash)
        })
        expect(h.master_ref).toEqual(s.master_ref === null ? null : ref(s.master_ref))
        const prev = h.prev_blocks.map(({ end_lt, seqno, root_hash, file_hash }) => ({
          end_lt,
          seqno,
          root_hash,
          file_hash
        }))
        expect(prev).toEqual(s.prev.map(ref))
        expect(h.gen_software).toEqual(s.gen_software)
        if (s.shard_hashes_in_mc_extra === null) {
          expect(h.shards === null || h.workchain === -1).toBe(true)
        } else {
          expect(
            h.shards!.map((d) => ({
              workchain: d.workchain,
              shard: BigInt.asUintN(64, BigInt(d.shard)).toString(16).padStart(16, "0"),
              seqno: d.seqno,
              reg_mc_seqno: d.reg_mc_seqno,
              start_lt: d.start_lt,
              end_lt: d.end_lt,
              root_hash: d.root_hash,
              file_hash: d.file_hash
            }))
          ).toEqual(
            s.shard_hashes_in_mc_extra.map((d: any) => ({
              workchain: d.workchain,
              shard: d.shard,
              seqno: d.seqno,
              reg_mc_seqno: d.reg_mc_seqno,
              start_lt: d.start_lt,
              end_lt: d.end_lt,
              root_hash: hexToB64(d.root_hash),
              file_hash: hexToB64(d.file_hash)
            }))
          )
        }
      })

      if (summary === null) return

      it("extracts the transactions in (account, lt) order with their hashes", () => {
        expect(block.transactions.map((t) => [t.account.toLowerCase(), t.lt, t.hash])).toEqual(
          summary.transactions.map((t: any) => [t.account.toLowerCase(), t.lt, t.hash_b64])
        )
      })

      it("serializes each transaction like the node (derived BOCs differ only on heavy trees)", () => {
        for (let i = 0; i < block.transactions.length; i++) {
          const ours = block.transactions[i]!.boc
          const theirs = summary.transactions[i].boc_b64 as string
          if (ours === theirs) continue
          const a = ok(parseBoc(ours))
          const b = ok(parseBoc(theirs))
          expect(a.hash().equals(b.hash())).toBe(true)
          expect(Buffer.from(ours, "base64").length).toBe(Buffer.from(theirs, "base64").length)
          expect(treeWeight(a)).toBeGreaterThan(63)
        }
      })

      it("decodes every transaction and agrees with the per-transaction facts", () => {
        const h = block.header
        const ctx = { block: idOf(h), mc_block_seqno: 0 }
        const records: Array<TransactionRecord> = block.transactions.map((t) => ok(decodeTransaction(t.boc, ctx)))
        records.forEach((r, i) => {
          const s = summary.transactions[i]
          expect(r.hash).toBe(s.hash_b64)
          expect(r.now).toBe(s.now)
          expect(r.orig_status).toBe(STATUS[s.orig_status])
          expect(r.end_status).toBe(STATUS[s.end_status])
          expect(r.description.type).toBe(s.descr === "generic" ? "ord" : "tick_tock")
          const inType = s.in_msg === null ? null : s.in_msg === "internal" ? "int" : "ext_in"
          expect(r.in_msg === null ? null : r.in_msg.type).toBe(inType)
          if ("in_op" in s) expect(`0x${(r.in_msg!.opcode! >>> 0).toString(16).padStart(8, "0")}`).toBe(s.in_op)
          else if (r.in_msg) expect(r.in_msg.opcode).toBeNull()
          if ("in_bounced" in s) expect(r.in_msg!.bounced).toBe(s.in_bounced)
          if ("in_has_init" in s) expect(r.in_msg!.init_state !== null).toBe(s.in_has_init)
          expect(r.out_msgs.length).toBe(s.out_msgs)
          expect(r.out_msgs.map((m) => (m.type === "int" ? "internal" : "external-out"))).toEqual(s.out_types)
          if ("compute" in s) {
            const c = r.description.compute_ph!
            const compute = c.skipped
              ? `skipped:${c.reason.replace("_", "-")}`
              : `vm:${c.exit_code}:${c.success ? "ok" : "fail"}`
            expect(compute).toBe(s.compute)
            expect(r.description.action ? (r.description.action.success ? "ok" : "fail") : null).toBe(s.action)
            const b = r.description.bounce
            expect(b ? BOUNCE[b.type] : null).toBe(s.bounce_phase)
            expect(r.description.aborted).toBe(s.aborted)
            expect(r.description.destroyed).toBe(s.destroyed)
          }
          // Both renderers accept every real transaction.
          expect(renderV2Transaction(r).transaction_id.hash).toBe(r.hash)
          expect(renderV3Transaction(r, new Map()).out_msgs.length).toBe(r.out_msgs.length)
        })
      })
    })
  }
})

describe("toBlockRecord", () => {
  it("maps a shard block header, prev ids in the same shard", () => {
    const b = ok(extractBlock(readBlock("mainnet__0_8000000000000000_34703989__ton-core-block.b64.txt")))
    const rec = toBlockRecord(b.header, 29045030)
    const shard = "-9223372036854775808"
    expect(rec.id).toMatchObject({ workchain: 0, shard, seqno: 34703989, root_hash: b.header.root_hash })
    expect(rec.prev_blocks).toHaveLength(1)
    expect(rec.prev_blocks[0]).toMatchObject({ workchain: 0, shard: "-9223372036854775808", seqno: 34703988 })
    expect(rec.tx_count).toBe(7)
    expect(rec.mc_block_seqno).toBe(29045030)
  })

  it("gives a merged block the two child shards as prev blocks", () => {
    const b = ok(extractBlock(readBlock("mainnet__0_0d83800000000000_4168601__tongo-block-4__no-txs.boc")))
    const rec = toBlockRecord(b.header, 0)
    const u = (s: string) => BigInt.asUintN(64, BigInt(s)).toString(16).padStart(16, "0")
    expect(u(rec.id.shard)).toBe("0d83800000000000")
    expect(rec.prev_blocks.map((p) => u(p.shard))).toEqual(["0d83400000000000", "0d83c00000000000"])
  })
})
