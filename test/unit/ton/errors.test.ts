/**
 * Bad input never throws out of the decoder: each case comes back as a DecodeError with a reason and the offending
 * hash or position.
 */
import fs from "node:fs"
import path from "node:path"
import {
  beginCell,
  Cell,
  loadTransactionDescription,
  storeTransactionActionPhase,
  storeTransactionBouncePhase,
  storeTransactionCreditPhase,
  storeTransactionsStoragePhase
} from "@ton/core"
import { describe, expect, it } from "vitest"
import { extractBlock } from "../../../src/ton/block.js"
import { parseBoc, serializeBocBase64 } from "../../../src/ton/boc.js"
import { renderV2Transaction } from "../../../src/ton/v2.js"
import { renderV3Transaction } from "../../../src/ton/v3.js"
import { decodeTransaction } from "../../../src/ton/decode.js"
import type { BlockIdExt } from "../../../src/ton/record.js"
import { err, ok, readRealJson, REAL } from "./support.js"

const block: BlockIdExt = { workchain: 0, shard: "-9223372036854775808", seqno: 1, root_hash: "", file_hash: "" }
const ctx = { block, mc_block_seqno: 1 }
const BLOCKPI = "v2/blockpi-official-docs__v2_getBlockTransactionsExt__mc-39984096.json"
const blockpi = readRealJson(BLOCKPI).result.transactions

describe("decodeTransaction on bad input", () => {
  it("not base64", () => {
    const e = err(decodeTransaction("this is not base64!", ctx))
    expect(e.reason).toBe("not_base64")
    expect(e.position).toBe("char 4")
  })

  it("a truncated BOC, with the byte offset where it ends", () => {
    const bytes = Buffer.from(blockpi[1].data, "base64")
    const e = err(decodeTransaction(bytes.subarray(0, bytes.length - 30).toString("base64"), ctx))
    expect(e.reason).toBe("truncated")
    expect(e.position).toBe(`byte ${bytes.length - 30}`)
  })

  it("a valid BOC that is not a transaction (a message body), with its hash", () => {
    const body = readRealJson("v3/ton-org-docs__cookbook-traces__v3_traces__mc-52372896.json").traces[0].transactions[
      "JKLx78g5+AGy2rTB6htpE8HTCVHNs5EPP6dMbmuv5Sw="
    ].in_msg.message_content
    const e = err(decodeTransaction(body.body, ctx))
    expect(e.reason).toBe("not_a_transaction")
    expect(e.hash).toBe(body.hash)
  })

  it("a transaction tag with garbage after it", () => {
    const cell = beginCell().storeUint(7, 4).storeUint(1, 20).endCell()
    const e = err(decodeTransaction(serializeBocBase64(cell), ctx))
    expect(e.reason).toBe("not_a_transaction")
    expect(e.hash).toBe(cell.hash().toString("base64"))
  })

  it("exotic cells (Merkle proofs) in a message body: rejected with the transaction hash and the cell path", () => {
    const f = readRealJson("tx-bocs/ton-core__tx_with_merkle_body__testnet.json")
    const b64 = Buffer.from(f.boc, "hex").toString("base64")
    const e = err(decodeTransaction(b64, ctx))
    expect(e.reason).toBe("exotic_cell")
    expect(Buffer.from(e.hash!, "base64").toString("hex")).toBe(f.hash)
    expect(e.position).toBe("in_msg.body/0/0")
    expect(e.message).toContain("type 3")
  })

  it("exotic bodies are decoded on request, their cells kept as they are", () => {
    const f = readRealJson("tx-bocs/ton-core__tx_with_merkle_body__testnet.json")
    const rec = ok(decodeTransaction(Buffer.from(f.boc, "hex").toString("base64"), ctx, { exoticBodies: "keep" }))
    expect(Buffer.from(rec.hash, "base64").toString("hex")).toBe(f.hash)
    const body = ok(parseBoc(rec.in_msg!.body.boc))
    expect(body.hash().toString("base64")).toBe(rec.in_msg!.body.hash)
    expect(serializeBocBase64(body)).toBe(rec.in_msg!.body.boc)
    expect(renderV2Transaction(rec).in_msg!.body_hash).toBe(rec.in_msg!.body.hash)
    expect(renderV3Transaction(rec, new Map()).out_msgs.length).toBe(rec.out_msgs.length)
  })

  it("a message cell that is not a message, inside an otherwise valid transaction", () => {
    // Rebuild a real transaction with its in-message replaced by a cell holding an invalid address tag.
    const tx = Cell.fromBase64(blockpi[1].data)
    const msgs = tx.refs[0]!
    const badMsg = beginCell().storeUint(0, 4).storeUint(1, 2).storeUint(0, 10).endCell()
    const newMsgs = beginCell().storeBits(msgs.bits).storeRef(badMsg).endCell()
    const forged = beginCell()
      .storeBits(tx.bits)
      .storeRef(newMsgs)
      .storeRef(tx.refs[1]!)
      .storeRef(tx.refs[2]!)
      .endCell()
    const e = err(decodeTransaction(serializeBocBase64(forged), ctx))
    expect(e.reason).toBe("bad_message")
    expect(e.position).toBe("in_msg")
    expect(e.hash).toBe(forged.hash().toString("base64"))
  })

  it("nothing throws for a batch of random bytes", () => {
    let seed = 7
    const rnd = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) & 0xff
    for (let i = 0; i < 200; i++) {
      const bytes = Buffer.from(Array.from({ length: 10 + (i % 50) }, rnd))
      if (i % 2 === 0) bytes.writeUInt32BE(0xb5ee9c72, 0)
      expect(() => decodeTransaction(bytes.toString("base64"), ctx)).not.toThrow()
      expect(() => extractBlock(bytes)).not.toThrow()
    }
  })
})

describe("descriptions @ton/core does not know", () => {
  it("an ordinary transaction skipped with cskip_suspended$110 decodes with reason suspended", () => {
    // A real no_gas skip from a fixture block, its description rewritten with the suspended reason.
    const file = path.join(REAL, "blocks/mainnet__0_8000000000000000_40484416__tongo-block-2.boc")
    const block = ok(extractBlock(fs.readFileSync(file)))
    const source = block.transactions.find((t) => {
      const d = ok(decodeTransaction(t.boc, ctx)).description
      return d.compute_ph?.skipped === true && d.bounce !== undefined && d.credit_ph !== undefined
    })!
    const tx = Cell.fromBase64(source.boc)
    const d = loadTransactionDescription(tx.refs[2]!.beginParse())
    if (d.type !== "generic") throw new Error("expected trans_ord")
    const b = beginCell().storeUint(0, 4).storeBit(d.creditFirst)
    b.storeBit(!!d.storagePhase)
    if (d.storagePhase) b.store(storeTransactionsStoragePhase(d.storagePhase))
    b.storeBit(!!d.creditPhase)
    if (d.creditPhase) b.store(storeTransactionCreditPhase(d.creditPhase))
    b.storeBit(false).storeUint(0b110, 3)
    b.storeBit(!!d.actionPhase)
    if (d.actionPhase) b.storeRef(beginCell().store(storeTransactionActionPhase(d.actionPhase)))
    b.storeBit(d.aborted)
    b.storeBit(!!d.bouncePhase)
    if (d.bouncePhase) b.store(storeTransactionBouncePhase(d.bouncePhase))
    b.storeBit(d.destroyed)
    const forged = beginCell()
      .storeBits(tx.bits)
      .storeRef(tx.refs[0]!)
      .storeRef(tx.refs[1]!)
      .storeRef(b.endCell())
      .endCell()
    const original = ok(decodeTransaction(source.boc, ctx)).description
    const rec = ok(decodeTransaction(serializeBocBase64(forged), ctx))
    expect(rec.description).toEqual({ ...original, compute_ph: { skipped: true, reason: "suspended" } })
  })
})

describe("extractBlock on bad input", () => {
  it("a transaction is not a block", () => {
    const e = err(extractBlock(blockpi[0].data))
    expect(e.reason).toBe("not_a_block")
    expect(e.hash).toBe(blockpi[0].transaction_id.hash)
  })
})
