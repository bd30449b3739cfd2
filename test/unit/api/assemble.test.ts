import { readFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { ApiError } from "../../../src/api/errors.js"
import { goJson, pythonJson, sortedRecord } from "../../../src/api/json.js"
import {
  cursorAfter,
  jsonRpcEnvelope,
  jsonRpcId,
  makeExtra,
  pageInfo,
  parseBlockTransactionsExt
} from "../../../src/api/assemble/v2.js"
import { blocksOfMc, noAddressBook, parsePaging, parseSort, renderV3Block } from "../../../src/api/assemble/v3.js"
import type { BlockRecord } from "../../../src/ton/record.js"
import { REAL_FIXTURES } from "./records.js"

const message = (f: () => unknown): string => {
  try {
    f()
  } catch (e) {
    expect(e).toBeInstanceOf(ApiError)
    return (e as ApiError).message
  }
  throw new Error("expected a rejection")
}

describe("v2 getBlockTransactionsExt request", () => {
  it("defaults count to 40 and sends no cursor when neither after_lt nor after_hash is given", () => {
    expect(parseBlockTransactionsExt({ workchain: "-1", shard: "-9223372036854775808", seqno: "39984096" })).toEqual({
      id: { workchain: -1, shard: "-9223372036854775808", seqno: 39984096 },
      hashes: null,
      after: null,
      count: 40
    })
  })

  it("uses the hashes only when both are given, and defaults each cursor half to zero like pytonlib", () => {
    const root = "b26/Pw8BYz6VY7RyYB/w2Nf8pKBebsg+H4rT1pH5ZEM="
    const q = { workchain: "0", shard: "-9223372036854775808", seqno: "1" }
    expect(parseBlockTransactionsExt({ ...q, root_hash: root }).hashes).toBeNull()
    expect(parseBlockTransactionsExt({ ...q, root_hash: root, file_hash: root }).hashes).toEqual({
      root_hash: root,
      file_hash: root
    })
    expect(parseBlockTransactionsExt({ ...q, after_lt: "5" }).after).toEqual({ account: "0".repeat(64), lt: "5" })
    expect(parseBlockTransactionsExt({ ...q, after_hash: "ab".repeat(32) }).after).toEqual({
      account: "AB".repeat(32),
      lt: "0"
    })
  })

  it("refuses counts outside 1..10000 and names every bad field", () => {
    const q = { workchain: "0", shard: "-9223372036854775808", seqno: "1" }
    expect(message(() => parseBlockTransactionsExt({ ...q, count: "0" }))).toBe("count: should be positive, got 0")
    expect(message(() => parseBlockTransactionsExt({ ...q, count: "10001" }))).toContain("less or equal 10000")
    expect(message(() => parseBlockTransactionsExt({ ...q, workchain: undefined }))).toBe("workchain: field required")
    expect(message(() => parseBlockTransactionsExt({ ...q, shard: "abc" }))).toContain("shard:")
    expect(message(() => parseBlockTransactionsExt({ ...q, root_hash: "xyz" }))).toContain("root_hash:")
  })
})

describe("v2 paging", () => {
  it("reports req_count = min(count, 256) and incomplete exactly when count transactions came back", () => {
    expect(pageInfo(40, 3)).toEqual({ req_count: 40, incomplete: false })
    expect(pageInfo(40, 40)).toEqual({ req_count: 40, incomplete: true })
    expect(pageInfo(1000, 510)).toEqual({ req_count: 256, incomplete: false })
    expect(pageInfo(256, 256)).toEqual({ req_count: 256, incomplete: true })
  })

  it("derives the next cursor from the last transaction's account and lt", () => {
    expect(cursorAfter({ account: "-1:3333aa", lt: "7" })).toEqual({ account: "3333AA", lt: "7" })
  })

  it("prints @extra as pytonlib does: float time, index, float random", () => {
    expect(makeExtra(1724745562699, 10, 5, 0.5335802192168009)).toBe("1724745572.699:5:0.5335802192168009")
    expect(makeExtra(1724745562000, 10, 0, 0.25)).toBe("1724745572.0:0:0.25")
    expect(makeExtra(1724745562000, 10, 0, 0)).toBe("1724745572.0:0:0.0")
    expect(makeExtra(Date.now(), 10, 0, Math.random())).toMatch(/^\d+\.\d+:\d+:\d\.\d+(e-\d+)?$/)
  })

  it("wraps JSON-RPC answers like ton-http-api: id as a string, nothing null", () => {
    expect(pythonJson(jsonRpcEnvelope({ ok: true, result: { a: 1 } }, jsonRpcId(1)))).toBe(
      '{"ok":true,"result":{"a":1},"id":"1","jsonrpc":"2.0"}'
    )
    expect(pythonJson(jsonRpcEnvelope({ ok: false, error: "Unknown method", code: 422 }, jsonRpcId(undefined)))).toBe(
      '{"ok":false,"error":"Unknown method","code":422,"jsonrpc":"2.0"}'
    )
    expect(() => jsonRpcId({})).toThrow(ApiError)
  })
})

describe("v3 paging", () => {
  it("follows ton-index-go: default 100, at least 1, refused above 1000, offset floored at 0", () => {
    expect(parsePaging({})).toEqual({ limit: 100, offset: 0, sort: "desc" })
    expect(parsePaging({ limit: "0", offset: "-5", sort: "A" })).toEqual({ limit: 1, offset: 0, sort: "asc" })
    expect(parsePaging({ limit: "1000", sort: "d" })).toEqual({ limit: 1000, offset: 0, sort: "desc" })
    expect(message(() => parsePaging({ limit: "1001" }))).toBe("limit is not allowed: 1001 > 1000")
    expect(message(() => parsePaging({ limit: "ten" }))).toContain("limit: must be a decimal integer")
    expect(message(() => parseSort("up"))).toBe("wrong value for sort parameter")
  })

  it("skips the address book on any non-empty, non-false flag", () => {
    expect(noAddressBook(undefined, undefined)).toBe(false)
    expect(noAddressBook("1", undefined)).toBe(true)
    expect(noAddressBook(undefined, "true")).toBe(true)
    expect(noAddressBook("false", undefined)).toBe(false)
  })
})

describe("v3 blocks", () => {
  const fixture = JSON.parse(
    readFileSync(join(REAL_FIXTURES, "v3/unknown-repo__v3_blocks_response_testnet__from-java-javadoc.json"), "utf8")
  ) as { blocks: Array<Record<string, any>> }

  const fromV3 = (b: Record<string, any>): BlockRecord & Record<string, unknown> => {
    const signed = (hex: string) => BigInt.asIntN(64, BigInt(`0x${hex}`)).toString()
    return {
      id: {
        workchain: b.workchain,
        shard: signed(b.shard),
        seqno: b.seqno,
        root_hash: b.root_hash,
        file_hash: b.file_hash
      },
      mc_block_seqno: b.masterchain_block_ref.seqno,
      global_id: b.global_id,
      version: b.version,
      flags: b.flags,
      after_merge: b.after_merge,
      after_split: b.after_split,
      before_split: b.before_split,
      want_merge: b.want_merge,
      want_split: b.want_split,
      key_block: b.key_block,
      vert_seqno: b.vert_seqno,
      validator_list_hash_short: b.validator_list_hash_short,
      gen_catchain_seqno: b.gen_catchain_seqno,
      min_ref_mc_seqno: b.min_ref_mc_seqno,
      prev_key_block_seqno: b.prev_key_block_seqno,
      gen_utime: Number(b.gen_utime),
      start_lt: b.start_lt,
      end_lt: b.end_lt,
      prev_blocks: b.prev_blocks.map((p: any) => ({ ...p, shard: signed(p.shard), root_hash: "", file_hash: "" })),
      tx_count: b.tx_count,
      vert_seqno_incr: b.vert_seqno_incr,
      master_ref_seqno: b.master_ref_seqno,
      rand_seed: b.rand_seed,
      created_by: b.created_by
    }
  }

  it("renders each real Block object byte for byte from a block record", () => {
    for (const b of fixture.blocks) expect(goJson(renderV3Block(fromV3(b)))).toBe(goJson(b))
  })

  it("orders the masterchain block first and shard blocks by unsigned shard, without duplicates", () => {
    const [b1, b2] = fixture.blocks.map(fromV3) as unknown as [BlockRecord, BlockRecord]
    const mc = { ...b1, id: { ...b1.id, workchain: -1, shard: "-9223372036854775808", seqno: 7 } }
    const high = { ...b1, id: { ...b1.id, shard: "-6917529027641081856" } }
    const out = blocksOfMc(mc, [high, b1, b2, b1])
    expect(out.map((b) => [b.id.workchain, b.id.shard, b.id.seqno])).toEqual([
      [-1, "-9223372036854775808", 7],
      [0, "2305843009213693952", 21188228],
      [0, "2305843009213693952", 21188229],
      [0, "-6917529027641081856", 21188229]
    ])
  })
})

describe("JSON dialects", () => {
  it("escapes like Go for v3 and like Python for v2", () => {
    const v = { comment: "a<b>&c\u2028\n\u0001é" }
    expect(goJson(v)).toBe('{"comment":"a\\u003cb\\u003e\\u0026c\\u2028\\n\\u0001é"}')
    expect(pythonJson(v)).toBe('{"comment":"a<b>&c\u2028\\n\\u0001é"}')
  })

  it("sorts map keys byte-wise like Go", () => {
    expect(
      Object.keys(
        sortedRecord([
          ["0:B", 1],
          ["-1:A", 2],
          ["0:A", 3]
        ])
      )
    ).toEqual(["-1:A", "0:A", "0:B"])
  })
})
