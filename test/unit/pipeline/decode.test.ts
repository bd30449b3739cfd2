/**
 * The decoder the pipeline runs keeps real transactions whose message bodies hold exotic cells (toncenter serves them)
 * and still classifies bad input, so only undecodable data reaches the dead-letter topic.
 */
import fs from "node:fs"
import path from "node:path"
import { Either } from "effect"
import { describe, expect, it } from "vitest"
import { pipelineDecode } from "../../../src/producer/assemble.js"

const fixtures = path.resolve(import.meta.dirname, "../../fixtures/real")
const ctx = {
  block: { workchain: 0, shard: "-9223372036854775808", seqno: 1, root_hash: "A".repeat(43) + "=", file_hash: "A".repeat(43) + "=" },
  mc_block_seqno: 1
}

describe("pipelineDecode", () => {
  it("keeps a real testnet transaction whose in-message body is a Merkle proof", () => {
    const f = JSON.parse(fs.readFileSync(path.join(fixtures, "tx-bocs/ton-core__tx_with_merkle_body__testnet.json"), "utf8"))
    const r = pipelineDecode(Buffer.from(f.boc, "hex").toString("base64"), ctx)
    if (Either.isLeft(r)) throw new Error(`expected a record, got ${r.left.reason}: ${r.left.message}`)
    expect(Buffer.from(r.right.hash, "base64").toString("hex")).toBe(f.hash)
    expect(r.right.in_msg).not.toBeNull()
  })

  it("computes on-chain hashes with the fast cell hash installed (every transaction of a real block)", () => {
    const f = JSON.parse(
      fs.readFileSync(path.join(fixtures, "blocks/mainnet__0_8000000000000000_30816553__tongo-block-1.txs.json"), "utf8")
    )
    expect(f.transactions.length).toBeGreaterThan(300)
    for (const t of f.transactions) {
      const r = pipelineDecode(t.boc_b64, ctx)
      if (Either.isLeft(r)) throw new Error(`${t.hash_b64}: ${r.left.reason}`)
      expect(r.right.hash).toBe(t.hash_b64)
      expect(r.right.lt).toBe(t.lt)
    }
  })

  it("still refuses input that is not a transaction", () => {
    const r = pipelineDecode("not base64 at all!", ctx)
    expect(Either.isLeft(r)).toBe(true)
  })
})
