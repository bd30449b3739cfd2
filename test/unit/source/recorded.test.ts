// The source's response schemas against recorded real toncenter v2 answers (test/fixtures/real/v2).
import { readFileSync } from "node:fs"
import path from "node:path"
import { Cell } from "@ton/core"
import { Schema } from "effect"
import { describe, expect, it } from "vitest"
import { fixturesDir } from "../../../tools/fake/fixtures.js"
import {
  BlockHeaderJson,
  BlockTransactionsExtJson,
  Envelope,
  MasterchainInfoJson,
  ShardsJson
} from "../../../src/source/schemas.js"
import { normalizeAccount, toBlockRecord } from "../../../src/source/Toncenter.js"

const recorded = (name: string) => {
  const env = Schema.decodeUnknownSync(Envelope)(JSON.parse(readFileSync(path.join(fixturesDir(), "v2", name), "utf8")))
  expect(env.ok).toBe(true)
  return env.result
}

describe("recorded toncenter v2 responses", () => {
  it("masterchain info", () => {
    const info = Schema.decodeUnknownSync(MasterchainInfoJson)(
      recorded("getblock-docs__v2_getMasterchainInfo__mainnet.json")
    )
    expect(info.last.seqno).toBe(30517698)
  })

  it("block headers become block records", () => {
    const h = Schema.decodeUnknownSync(BlockHeaderJson)(
      recorded("blockpi-official-docs__v2_getBlockHeader__mainnet_mc-39984096.json")
    )
    const r = toBlockRecord(h, 39984096, 4)
    expect(r).toMatchObject({
      id: { workchain: -1, shard: "-9223372036854775808", seqno: 39984096 },
      mc_block_seqno: 39984096,
      global_id: -239,
      want_merge: true,
      key_block: false,
      gen_catchain_seqno: 600633,
      validator_list_hash_short: -2039098909,
      min_ref_mc_seqno: 39984087,
      prev_key_block_seqno: 39983536,
      start_lt: "48756940000000",
      end_lt: "48756940000004",
      gen_utime: 1724744427,
      tx_count: 4
    })
    expect(r.prev_blocks.map((p) => p.seqno)).toEqual([39984095])
    const other = Schema.decodeUnknownSync(BlockHeaderJson)(
      recorded("getblock-docs__v2_getBlockHeader__mainnet_mc-30497145.json")
    )
    expect(toBlockRecord(other, 30497145, 0).id.root_hash).toBe("2a8ZfAc+YN+hWDxtnlj+lsmPxDljA1ur8XVvL52UB2s=")
  })

  it("shard tops", () => {
    const four = Schema.decodeUnknownSync(ShardsJson)(recorded("drpc-nextra__v2_shards__mainnet_Nov2024.json"))
    expect(four.shards.map((s) => s.shard)).toEqual([
      "2305843009213693952",
      "6917529027641081856",
      "-6917529027641081856",
      "-2305843009213693952"
    ])
    const one = Schema.decodeUnknownSync(ShardsJson)(recorded("getblock-docs__v2_shards__mainnet_mc-30497145.json"))
    expect(one.shards.length).toBe(1)
  })

  it("block transactions: accounts normalized to upper case, hashes are the BOCs' root hashes", () => {
    const page = Schema.decodeUnknownSync(BlockTransactionsExtJson)(
      recorded("blockpi-official-docs__v2_getBlockTransactionsExt__mc-39984096.json")
    )
    expect(page.incomplete).toBe(false)
    expect(page.transactions.length).toBeGreaterThan(0)
    for (const tx of page.transactions) {
      const account = normalizeAccount(tx)!
      expect(account).toMatch(/^-1:[0-9A-F]{64}$/)
      expect(Cell.fromBase64(tx.data).hash().toString("base64")).toBe(tx.transaction_id.hash)
      // the friendly address alone gives the same account
      const { account: _ignored, ...withoutAccount } = tx
      expect(normalizeAccount(withoutAccount)).toBe(account)
    }
  })

  it("rejects a transaction page without BOCs (what an abbreviated answer looks like) as a schema failure", () => {
    const abbreviated = {
      id: { workchain: -1, shard: "-9223372036854775808", seqno: 1, root_hash: "x", file_hash: "y" },
      incomplete: false,
      transactions: [{ transaction_id: { lt: "1", hash: "h" } }]
    }
    expect(() => Schema.decodeUnknownSync(BlockTransactionsExtJson)(abbreviated)).toThrow()
  })
})
