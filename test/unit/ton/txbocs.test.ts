/**
 * Standalone transaction BOCs from other projects: hashes stated by their sources, account-state hashes checked
 * against the ShardAccount BOCs before and after (tonutils-go replay data), and phase facts the zeta-chain
 * descriptions state (a failed transaction, a bounce).
 */
import { Address, CellType } from "@ton/core"
import { describe, expect, it } from "vitest"
import { parseBoc, serializeBocBase64 } from "../../../src/ton/boc.js"
import { decodeTransaction } from "../../../src/ton/decode.js"
import type { BlockIdExt } from "../../../src/ton/record.js"
import { listReal, ok, readRealJson } from "./support.js"

const blockFor = (workchain: number): BlockIdExt => ({
  workchain,
  shard: "-9223372036854775808",
  seqno: 0,
  root_hash: "",
  file_hash: ""
})
const ctxFor = (raw: string) => ({ block: blockFor(Address.parseRaw(raw).workChain), mc_block_seqno: 0 })
const hexHash = (b64: string) => Buffer.from(b64, "base64").toString("hex")

describe("BOC vectors with hashes stated by their sources", () => {
  const file = "tx-bocs/boc-vectors__tx-and-message-bocs-with-verified-hashes.json"
  const vectors = (readRealJson(file).vectors as Array<any>).filter((v) => v.kind === "transaction")

  it("decodes every transaction vector to the stated hash", () => {
    expect(vectors.length).toBeGreaterThanOrEqual(9)
    for (const v of vectors) {
      const rec = ok(decodeTransaction(v.boc_base64, { block: blockFor(0), mc_block_seqno: 0 }))
      expect(rec.hash).toBe(v.verified_root_cell_hash_b64)
      expect(rec.boc).toBe(v.boc_base64)
    }
  })
})

describe("tonutils-go replay data (mainnet)", () => {
  const file = "tx-bocs/tonutils-go__transaction_replay_regression__mainnet-2txs-with-shard-accounts.json"
  const data = readRealJson(file)

  for (const acc of data.accounts as Array<any>) {
    it(`account state hashes of ${acc.address} equal the Account cells before and after`, () => {
      const rec = ok(decodeTransaction(acc.first_tx.expected_tx_boc_base64, ctxFor(acc.address)))
      expect(hexHash(rec.hash)).toBe(acc.first_tx.expected_tx_hash)
      expect(rec.lt).toBe(String(acc.first_tx.lt))
      expect(String(rec.now)).toBe(String(acc.first_tx.now))
      expect(rec.account).toBe(acc.address.toUpperCase().replace("0X", "0x"))
      const before = ok(parseBoc(acc.from_shard_account_boc_base64)).refs[0]!
      expect(rec.account_state_hash_before).toBe(before.hash().toString("base64"))
      expect(rec.description.storage_ph?.storage_fees_collected).toBe(String(acc.first_tx.storage_fees))
      // Its state init references the code as a library cell: kept, and serialized like any other cell.
      const init = ok(parseBoc(rec.in_msg!.init_state!.boc))
      expect(init.hash().toString("base64")).toBe(rec.in_msg!.init_state!.hash)
      expect(init.refs.some((c) => c.type === CellType.Library)).toBe(true)
      expect(serializeBocBase64(init)).toBe(rec.in_msg!.init_state!.boc)
    })
  }
})

describe("zeta-chain testnet transactions", () => {
  const files = listReal("tx-bocs/zeta-chain-node__testnet")
  const load = (f: string) => {
    const j = readRealJson(`tx-bocs/zeta-chain-node__testnet/${f}`)
    const rec = ok(decodeTransaction(Buffer.from(j.boc, "hex").toString("base64"), ctxFor(j.account)))
    return { j, rec }
  }

  it("decodes every one to its hash, lt and account", () => {
    expect(files.length).toBe(9)
    for (const f of files) {
      const { j, rec } = load(f)
      expect(hexHash(rec.hash)).toBe(j.hash)
      expect(rec.lt).toBe(String(j.logicalTime))
      expect(rec.account.toLowerCase()).toBe(j.account)
    }
  })

  it("the failed transaction is aborted with a non-zero exit code", () => {
    const { rec } = load(files.find((f) => f.includes("failed"))!)
    const c = rec.description.compute_ph!
    expect(rec.description.aborted).toBe(true)
    expect(c.skipped === false && c.exit_code !== 0).toBe(true)
  })

  it("the bounced transaction has a bounce phase and sends a bounced message back", () => {
    const { rec } = load(files.find((f) => f.includes("bounced"))!)
    expect(rec.description.bounce?.type).toBe("ok")
    expect(rec.out_msgs.some((m) => m.bounced === true && m.destination === rec.in_msg!.source)).toBe(true)
  })
})
