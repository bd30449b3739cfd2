/**
 * Message-body decoding (src/ton/bodies) against toncenter's rendering rules, read from its source (ton-index-go
 * detect/marker.go, ton-marker's decode_boc and special parsers, the tlbc printers writing to its JsonPrinter):
 * - every constructor prints as {"@type": name, fields...} (no "@type" for an anonymous `_` constructor), one without
 *   fields as {"@type": name}; Maybe/Either are their constructors (`nothing_from_maybe`, `something_from_maybe`,
 *   `first_from_either`, `second_from_either`) with the payload under `value`;
 * - integers are decimal strings, bit strings upper-case hex, VarUInteger is {"@type":"var_uint","len","value"};
 * - a cell (`Cell`, `^Cell`, `Maybe ^Cell`) prints as its base64 BOC, which is then replaced by its own decoding
 *   when it decodes (ten levels at most); a top-level text comment takes the back-compatible shape
 *   {"@type":"text_comment","comment":...,"type":"text_comment"}; an empty body is {"@type":"empty_cell"};
 *   anything that does not parse is null.
 * Real bodies come from the block fixtures (their transactions' messages, found by body hash); the jetton and NFT
 * expectations are rebuilt field by field with @ton/core's own TEP loaders and the rules above, and every decoded
 * real body is kept in a golden file.
 */
import {
  Address,
  beginCell,
  Cell,
  Dictionary,
  internal,
  loadTransaction,
  type Slice,
  storeMessageRelaxed
} from "@ton/core"
import { describe, expect, it, vi } from "vitest"
import { decodeBody, decodeBodyBoc, decodedBytes, knownOpcodes, opcodeName } from "../../../src/ton/bodies/decode.js"
import { interfacesOf } from "../../../src/ton/bodies/interfaces.js"
import { Interpreter } from "../../../src/ton/bodies/interpret.js"
import { renderAddressBookOf } from "../../../src/ton/v3.js"
import { expectGolden, readRealJson } from "./support.js"

const bodyOf = (file: string, txHash: string, bodyHash: string): Cell => {
  const j = readRealJson(`blocks/${file}.txs.json`)
  const t = j.transactions.find((x: any) => x.hash_b64 === txHash)
  expect(t, `${txHash} in ${file}`).toBeDefined()
  const tx = loadTransaction(Cell.fromBase64(t.boc_b64).beginParse())
  const msgs = [tx.inMessage, ...tx.outMessages.values()]
  const body = msgs.map((m) => m?.body).find((b) => b?.hash().toString("base64") === bodyHash)
  expect(body, `body ${bodyHash}`).toBeDefined()
  return body!
}

const LOCALNET = "localnet__0_8000000000000000_212538__ton4j-boc-17"
const BLOCK2 = "mainnet__0_8000000000000000_40484416__tongo-block-2"
const BLOCK3 = "mainnet__0_8000000000000000_40484438__tongo-block-3"
const TONCORE = "mainnet__0_8000000000000000_34703989__ton-core-block"

/** One real body of each kind the fixtures hold: [name, block file, tx hash, body hash]. */
const REAL_BODIES: ReadonlyArray<readonly [string, string, string, string]> = [
  ["empty", LOCALNET, "lpbdk58vnEU14ISbRhFo1ZH8Bdjui7F9h5sHsk7eeG8=", "lqKW0iTyhcZ77pPDD4owkVfw2qNdxbh+QQt4YwoJz8c="],
  ["text_comment", LOCALNET, "FKMwga1qyZkUVLFBix7u5kdjcxBtGrsWytUSUNkHPLY=", "qMol9aLVYvRYWx5gk7pJ1JrVK1b9ViFdGcWA0Ue3tfI="],
  ["wallet_v3", LOCALNET, "FKMwga1qyZkUVLFBix7u5kdjcxBtGrsWytUSUNkHPLY=", "z0lkgwNJhi86luuhr2BQv6YK031LMdCJ9153MrJDEPk="],
  ["wallet_v4", LOCALNET, "+6TammeRfJPa/LeZ5nNAhDSWCg8eorjB2q1qEXIxWjM=", "SA2lQwMKkQL+ZVj6Vsq8OQ0hxFiNHjH+MQW5As187ac="],
  ["wallet_v1_v2", LOCALNET, "iii4Qa2kOizi0c1Xre3tvHNVqeW1WFIK4zfJZYq1sus=", "rBErMbF6khsyRJmq33EqvcLW7qikFIuNsyQEHG4qpw8="],
  ["wallet_v5", LOCALNET, "w+PRDa+a+fPcnuxKkbvvNcgOvJ21gwY4EyM8r1bs8nk=", "obs8BFn+IvGmy6cP+sLNQ6VgBNdxhM8a3P/XnD/Yzz0="],
  ["jetton_burn_notification", LOCALNET, "8EWMOpAXMeG5DLhfQSHvrWRoQ6PMgT1Rip0ZPk053HA=", "FWyOrlJS+LmpYiPue7iqG1gRbzjpDWlYUmiguR1lHYI="],
  ["excess", LOCALNET, "igA8IdBZG3JGZhyP4/NIF0sLR6iRD0hfdc6R1GZ7hBU=", "la37uGspaEdb70INRgaUtfLiBGlqXsrLMlKwhwvngQY="],
  ["jetton_transfer_ref_payload", BLOCK2, "0DC8atqCAH8eIFAMbsQPfVTD+YgSg0AgqTUODgjAmR8=", "PdUY1New2OYrUTU+Em0rf4mwnyknm9peEcjMLspZQ6w="],
  ["jetton_internal_transfer", BLOCK2, "BKqUj1htvEOu/qEANGDE8orboDZhLRD24oIlvigMdZs=", "Hf0ACBe5QT82OdJyTdADCKjmhPcqZZSV2utMDHxAx14="],
  ["jetton_notify_ref_payload", BLOCK2, "TPzJJ5yyp4nNPcngw4JxvF3pqV4/LUEeVKDu8VtohTY=", "bxcXVVIHsggsKXFJyLnwpZcjSRrgP1uV89AoRGQZMOM="],
  ["nft_transfer_ref_payload", BLOCK2, "olKWXTGtVEuZCO4imfVzLGQPvj3l4Z00GLUD3KQHw60=", "bLGCrEgAm/EpdMZe3K9n8SMJcwukuEN10kKr633xo0A="],
  ["bounce", BLOCK2, "olKWXTGtVEuZCO4imfVzLGQPvj3l4Z00GLUD3KQHw60=", "yokHwxCg1U960OcbxvivHvsAa7HpAGpPOxnzCHXDnY8="],
  ["jetton_transfer_inline_payload", BLOCK3, "UXVeziIJyzb6SHBNpP8ikFERKWoKzu1GlnR3EK5Pwn8=", "wJ042545m6jmrr3FL9eUJnPOHbNujt0ZNFp2fNDY4qE="],
  ["jetton_notify_inline_payload", BLOCK3, "UXVeziIJyzb6SHBNpP8ikFERKWoKzu1GlnR3EK5Pwn8=", "S6ZbkfK9q0Pjuhc+XwzcrgdcrxbNHnan5z52BWvR6v8="],
  ["nft_transfer_inline_payload", TONCORE, "RUHGn95ybsBpi+c0lvY7bNANk4NVgpG6hM7uTZcQVb4=", "6M4N/tZIZKCK8sfM9VO/qrqIfUwbeOzOOdzLhkpeV+w="],
  ["nft_ownership_assigned", TONCORE, "MwZt/q2m0lG5r+JU2rxaIrMTGyIqz+jHY3sY1BN+/Lc=", "W9nAyoBNwRWrc8IRMROheslC0AkzEU/ZpdIdoWLY9yc="]
]

const real = (name: string): Cell => {
  const row = REAL_BODIES.find((r) => r[0] === name)!
  return bodyOf(row[1], row[2], row[3])
}

// ---- the rules, applied with @ton/core's loaders (an independent reading of the same bits)

const varUint = (v: bigint) => ({
  "@type": "var_uint",
  len: String(v === 0n ? 0 : Math.ceil(v.toString(16).length / 2)),
  value: v.toString()
})
const addr = (a: Address | null) =>
  a === null
    ? { "@type": "addr_none" }
    : {
        "@type": "addr_std",
        anycast: { "@type": "nothing_from_maybe" },
        workchain_id: String(a.workChain),
        address: a.hash.toString("hex").toUpperCase()
      }
const isMarkerBoc = (s: unknown): boolean => typeof s === "string" && s.startsWith("te6ccgEB")
const inlineOrRef = (s: Slice): { either: string; cell: Cell } =>
  s.loadBit() ? { either: "second_from_either", cell: s.loadRef() } : { either: "first_from_either", cell: s.asCell() }

describe("real jetton, NFT and wallet bodies decode to toncenter's shapes", () => {
  it("jetton_transfer with its comment in a ref: every field by the rules", () => {
    const body = real("jetton_transfer_ref_payload")
    const s = body.beginParse()
    expect(s.loadUint(32)).toBe(0x0f8a7ea5)
    const queryId = s.loadUintBig(64)
    const amount = s.loadCoins()
    const destination = s.loadAddress()
    const response = s.loadMaybeAddress()
    const custom = s.loadMaybeRef()
    const forwardTon = s.loadCoins()
    const fwd = inlineOrRef(s)
    expect(custom).toBeNull()
    expect(fwd.either).toBe("second_from_either")
    const fs = fwd.cell.beginParse()
    expect(fs.loadUint(32)).toBe(0)
    expect(decodeBody(body)).toEqual({
      "@type": "jetton_transfer",
      query_id: queryId.toString(),
      amount: varUint(amount),
      destination: addr(destination),
      response_destination: addr(response),
      custom_payload: { "@type": "nothing_from_maybe" },
      forward_ton_amount: varUint(forwardTon),
      forward_payload: { "@type": "second_from_either", value: { "@type": "text_comment", text: fs.loadStringTail() } }
    })
  })

  it("jetton_notify with an inline payload: the payload is the rest of the body, decoded in place", () => {
    const body = real("jetton_notify_inline_payload")
    const s = body.beginParse()
    expect(s.loadUint(32)).toBe(0x7362d09c)
    const queryId = s.loadUintBig(64)
    const amount = s.loadCoins()
    const sender = s.loadAddress()
    const fwd = inlineOrRef(s)
    expect(fwd.either).toBe("first_from_either")
    const decoded = decodeBody(body) as any
    expect(decoded["@type"]).toBe("jetton_notify")
    expect(decoded.query_id).toBe(queryId.toString())
    expect(decoded.amount).toEqual(varUint(amount))
    expect(decoded.sender).toEqual(addr(sender))
    expect(decoded.forward_payload["@type"]).toBe("first_from_either")
    // the inline rest is printed as a cell and replaced by its decoding when it decodes, else kept as its BOC
    const rest = decodeBody(fwd.cell)
    if (rest === null) expect(isMarkerBoc(decoded.forward_payload.value)).toBe(true)
    else expect(decoded.forward_payload.value).toEqual((rest as any).type ? { "@type": "text_comment", text: (rest as any).comment } : rest)
  })

  it("nft_transfer: new owner, response destination, no custom payload, forward amount", () => {
    const body = real("nft_transfer_ref_payload")
    const s = body.beginParse()
    expect(s.loadUint(32)).toBe(0x5fcc3d14)
    const queryId = s.loadUintBig(64)
    const newOwner = s.loadAddress()
    const response = s.loadMaybeAddress()
    const custom = s.loadMaybeRef()
    const forwardAmount = s.loadCoins()
    const fwd = inlineOrRef(s)
    const decoded = decodeBody(body) as any
    expect(Object.keys(decoded)).toEqual([
      "@type",
      "query_id",
      "new_owner",
      "response_destination",
      "custom_payload",
      "forward_amount",
      "forward_payload"
    ])
    expect(decoded.query_id).toBe(queryId.toString())
    expect(decoded.new_owner).toEqual(addr(newOwner))
    expect(decoded.response_destination).toEqual(addr(response))
    expect(decoded.custom_payload).toEqual(custom === null ? { "@type": "nothing_from_maybe" } : expect.anything())
    expect(decoded.forward_amount).toEqual(varUint(forwardAmount))
    expect(decoded.forward_payload["@type"]).toBe(fwd.either)
  })

  it("a text comment at the top gets toncenter's back-compatible shape", () => {
    const body = real("text_comment")
    const text = body.beginParse().skip(32).loadStringTail()
    expect(decodeBody(body)).toEqual({ "@type": "text_comment", comment: text, type: "text_comment" })
    expect(Object.keys(decodeBody(body)!)).toEqual(["@type", "comment", "type"])
  })

  it("an empty body is empty_cell; excess and burn notification carry their query ids", () => {
    expect(decodeBody(real("empty"))).toEqual({ "@type": "empty_cell" })
    const excess = real("excess")
    expect(decodeBody(excess)).toEqual({
      "@type": "excess",
      query_id: excess.beginParse().skip(32).loadUintBig(64).toString()
    })
    const burn = decodeBody(real("jetton_burn_notification")) as any
    expect(Object.keys(burn)).toEqual(["@type", "query_id", "amount", "sender", "response_destination"])
  })

  it("signed wallet externals: v3, v4 (simple_send), v1/v2, v5 and highload v3 by their layouts", () => {
    const types = ["wallet_v3", "wallet_v4", "wallet_v1_v2", "wallet_v5"].map((n) => (decodeBody(real(n)) as any)["@type"])
    expect(types).toEqual(["wallet_signed_v3", "wallet_signed_v4", "wallet_signed_v1_v2", "w5_external_signed_request"])
    const v4 = decodeBody(real("wallet_v4")) as any
    expect(v4.op["@type"]).toBe("simple_send")
    const msg = v4.op.msgs.msg_1
    expect(Object.keys(msg)).toEqual(["mode", "msg"])
    expect(msg.msg["@type"]).toBe("message")
    expect(msg.msg.info["@type"]).toBe("int_msg_info")
    expect(msg.msg.info.ihr_disabled).toBe(true)
    expect(v4.signature).toMatch(/^[0-9A-F]{128}$/)
    // highload v3: the external carries one internal request whose action list is counted from its cells
    const tx = "PQXdG39luPFBlAiogcgjBZHb/nL763AWgPBg/KPsXMA="
    const external = decodeBody(bodyOf(LOCALNET, tx, "ZF1lSsBJHbrphCFPvIiRUNUrfdy4lcpabQC6+IHPzZw=")) as any
    expect(external["@type"]).toBe("highload_wallet_signed_v3")
    expect(Object.keys(external.msg_inner)).toEqual([
      "subwallet_id",
      "message_to_send",
      "send_mode",
      "query_id",
      "created_at",
      "timeout"
    ])
    expect(external.msg_inner.message_to_send.body.value["@type"]).toBe("highload_v3_internal_request")
    const internal = decodeBody(bodyOf(LOCALNET, tx, "7xqLWfCEHT4ApdrLKkzafKRoXA58SOnaHnYWZvdKdHk=")) as any
    expect(internal["@type"]).toBe("highload_v3_internal_request")
    expect(internal.actions["@type"]).toBe("out_list")
  })

  it("every real body decodes to its committed golden", () => {
    const all: Record<string, unknown> = {}
    for (const [name] of REAL_BODIES) all[name] = decodeBody(real(name))
    for (const [name, v] of Object.entries(all)) expect(v, name).not.toBeNull()
    expectGolden("decoded-bodies", all)
  })
})

describe("the decoding rules on built bodies", () => {
  const owner = Address.parse("0:" + "11".repeat(32))
  const comment = (text: string) => beginCell().storeUint(0, 32).storeStringTail(text).endCell()

  it("names opcodes as toncenter does and leaves unknown ones null", () => {
    expect(opcodeName(0x0f8a7ea5)).toBe("jetton_transfer")
    expect(opcodeName(0x178d4519)).toBe("jetton_internal_transfer")
    expect(opcodeName(0x7362d09c)).toBe("jetton_notify")
    expect(opcodeName(0xd53276db)).toBe("excess")
    expect(opcodeName(0x5fcc3d14)).toBe("nft_transfer")
    expect(opcodeName(0x05138d91)).toBe("nft_ownership_assigned")
    expect(opcodeName(0x2fcb26a2)).toBe("get_static_data")
    expect(opcodeName(0x8b771735)).toBe("report_static_data")
    expect(opcodeName(0x0)).toBe("text_comment")
    expect(opcodeName(0x12345678)).toBeNull()
    expect(opcodeName(null)).toBeNull()
    expect(knownOpcodes().size).toBeGreaterThan(25)
  })

  it("a nested comment keeps the plain TL-B shape; a Maybe ^Cell payload is the referenced cell, decoded", () => {
    const body = beginCell()
      .storeUint(0x0f8a7ea5, 32)
      .storeUint(7, 64)
      .storeCoins(0)
      .storeAddress(owner)
      .storeAddress(null)
      .storeMaybeRef(beginCell().storeUint(0xd53276db, 32).storeUint(9, 64).endCell())
      .storeCoins(1)
      .storeBit(1)
      .storeRef(comment("hi <&>"))
      .endCell()
    expect(decodeBody(body)).toEqual({
      "@type": "jetton_transfer",
      query_id: "7",
      amount: { "@type": "var_uint", len: "0", value: "0" },
      destination: addr(owner),
      response_destination: { "@type": "addr_none" },
      custom_payload: { "@type": "something_from_maybe", value: { "@type": "excess", query_id: "9" } },
      forward_ton_amount: { "@type": "var_uint", len: "1", value: "1" },
      forward_payload: { "@type": "second_from_either", value: { "@type": "text_comment", text: "hi <&>" } }
    })
  })

  it("a cell that does not decode stays its BOC without index or CRC", () => {
    const opaque = beginCell().storeUint(0xdeadbeef, 32).storeUint(1, 8).endCell()
    const body = beginCell()
      .storeUint(0x595f07bc, 32)
      .storeUint(1, 64)
      .storeCoins(5)
      .storeAddress(owner)
      .storeMaybeRef(opaque)
      .endCell()
    const d = decodeBody(body) as any
    expect(d["@type"]).toBe("jetton_burn")
    expect(d.custom_payload["@type"]).toBe("something_from_maybe")
    expect(d.custom_payload.value).toBe(opaque.toBoc({ idx: false, crc32: false }).toString("base64"))
  })

  it("nested cells are expanded ten levels below the top body, then left as BOCs", () => {
    let inner: Cell = beginCell().storeUint(0xd53276db, 32).storeUint(0, 64).endCell()
    for (let i = 0; i < 12; i++) {
      inner = beginCell().storeUint(0x05138d91, 32).storeUint(i, 64).storeAddress(owner).storeBit(1).storeRef(inner).endCell()
    }
    let d = decodeBody(inner) as any
    let levels = 0
    while (typeof d === "object" && d["@type"] === "nft_ownership_assigned") {
      d = d.forward_payload.value
      levels++
    }
    // the top body plus eleven expansions (depths 0..10), so the twelfth wrapper's payload, the excess, stays a BOC
    expect(levels).toBe(12)
    expect(isMarkerBoc(d)).toBe(true)
  })

  it("SBT and NFT static-data bodies", () => {
    const item = 2n ** 200n + 5n
    const info = beginCell()
      .storeUint(0x0dd607e3, 32)
      .storeUint(3, 64)
      .storeUint(item, 256)
      .storeAddress(owner)
      .storeAddress(owner)
      .storeRef(beginCell().storeUint(1, 8).endCell())
      .storeUint(0, 64)
      .storeBit(0)
      .endCell()
    const d = decodeBody(info) as any
    expect(Object.keys(d)).toEqual(["@type", "query_id", "item_id", "initiator", "owner", "data", "revoked_at", "content"])
    expect(d.item_id).toBe(item.toString())
    expect(d.revoked_at).toBe("0")
    expect(d.content).toEqual({ "@type": "nothing_from_maybe" })
    const report = beginCell().storeUint(0x8b771735, 32).storeUint(1, 64).storeUint(42, 256).storeAddress(owner).endCell()
    expect(decodeBody(report)).toEqual({
      "@type": "report_static_data",
      query_id: "1",
      index: "42",
      collection: addr(owner)
    })
    const request = beginCell()
      .storeUint(0xd0c3bfea, 32)
      .storeUint(1, 64)
      .storeAddress(owner)
      .storeRef(Cell.EMPTY)
      .storeBit(1)
      .endCell()
    expect((decodeBody(request) as any).with_content).toBe(true)
    expect((decodeBody(request) as any).forward_payload).toEqual({ "@type": "empty_cell" })
  })

  it("a decoding with nothing to expand is the interpreter's value itself; one with a cell below is a copy", () => {
    const construct = vi.spyOn(Interpreter.prototype, "construct")
    try {
      const plain = decodeBody(beginCell().storeUint(0xd53276db, 32).storeUint(9, 64).endCell())
      expect(plain).toEqual({ "@type": "excess", query_id: "9" })
      expect(plain).toBe(construct.mock.results[0]!.value)
      construct.mockClear()
      const comment = beginCell().storeUint(0, 32).storeStringTail("in a ref").endCell()
      const nested = decodeBody(
        beginCell().storeUint(0x7362d09c, 32).storeUint(1, 64).storeCoins(5).storeAddress(owner).storeBit(1).storeRef(comment).endCell()
      ) as any
      expect(JSON.stringify(nested)).toContain('{"@type":"text_comment","text":"in a ref"}')
      expect(nested).not.toBe(construct.mock.results[0]!.value)
    } finally {
      construct.mockRestore()
    }
  })

  it("bodies that do not fit, short bodies, bad UTF-8 and unknown opcodes are null", () => {
    expect(decodeBody(beginCell().storeUint(0x0f8a7ea5, 32).storeUint(1, 64).endCell())).toBeNull()
    expect(decodeBody(beginCell().storeUint(1, 16).endCell())).toBeNull()
    expect(decodeBody(beginCell().storeUint(0, 32).storeBuffer(Buffer.from([0xff, 0xfe])).endCell())).toBeNull()
    expect(decodeBody(beginCell().storeUint(0x12345678, 32).storeUint(0, 64).endCell())).toBeNull()
    expect(decodeBodyBoc("not a boc")).toBeNull()
  })

  it("an encrypted comment keeps its cipher text as a cell under an anonymous key", () => {
    const d = decodeBody(beginCell().storeUint(0x2167da4b, 32).storeUint(0xabcdef, 24).endCell()) as any
    expect(Object.keys(d)).toEqual(["@type", "cipher_text"])
    expect(Object.keys(d.cipher_text)).toEqual([""])
    expect(isMarkerBoc(d.cipher_text[""])).toBe(true)
  })
})

describe("address-book interfaces from code hashes", () => {
  it("known wallet and jetton-wallet codes name their interface; no code gives null, nothing known or others []", () => {
    expect(interfacesOf("/rX/aCDi/w2Ug+fg1iyBfYRniftK5YDIeIZtlZ2r1cA=")).toEqual(["wallet_v4r2"])
    expect(interfacesOf("IINLe3KxEhR+Gy+0V7hOdNGjDwT3N9T2KmaOlVLSty8=")).toEqual(["wallet_v5r1"])
    expect(interfacesOf("jSjqQht36AX+pSrPM1KWSZ8Drsjp/SHdtfJWSqZcSN4=")).toEqual(["jetton_wallet_v2"])
    expect(interfacesOf("AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=")).toEqual([])
    // ton-index-go: a state row with neither code hash nor method ids skips detection (null); no row at all is []
    expect(interfacesOf(null)).toBeNull()
    expect(interfacesOf(undefined)).toEqual([])
  })

  it("the address book tells an account without code from one the store knows nothing of", () => {
    const a = "0:" + "A".repeat(64)
    const b = "0:" + "B".repeat(64)
    const c = "0:" + "C".repeat(64)
    const codes = new Map<string, string | null>([
      [a, "/rX/aCDi/w2Ug+fg1iyBfYRniftK5YDIeIZtlZ2r1cA="],
      [b, null]
    ])
    const book = renderAddressBookOf([a, b, c], codes, { testnet: false })
    expect(book[a]!.interfaces).toEqual(["wallet_v4r2"])
    expect(book[b]!.interfaces).toBeNull()
    expect(book[c]!.interfaces).toEqual([])
  })
})

describe("dictionaries: highload v2 bodies and extra currencies", () => {
  const to = Address.parse("0:" + "22".repeat(32))
  const relaxed = (body: Cell) =>
    beginCell()
      .store(storeMessageRelaxed(internal({ to, value: 5n, bounce: false, body })))
      .endCell()
  const highloadV2 = (n: number) => {
    const dict = Dictionary.empty(Dictionary.Keys.Int(16), {
      serialize: (v: Cell, b) => b.storeUint(3, 8).storeRef(v),
      parse: (s) => s.loadRef()
    })
    for (let i = 0; i < n; i++) dict.set(i, relaxed(beginCell().storeUint(0, 32).storeStringTail(`m${i}`).endCell()))
    return beginCell().storeBuffer(Buffer.alloc(64, 7)).storeUint(698983191, 32).storeUint(123, 64).storeDict(dict).endCell()
  }

  it("a dictionary whose cells repeat (one message sent 256 times) is read once per distinct cell, printed in full", () => {
    // A BOC stores identical subtrees once: keys 0..255 with one value give 8 fork levels of identical cells.
    const one = relaxed(beginCell().storeUint(0, 32).storeStringTail("same").endCell())
    const dict = Dictionary.empty(Dictionary.Keys.Int(16), {
      serialize: (v: Cell, b) => b.storeUint(3, 8).storeRef(v),
      parse: (s) => s.loadRef()
    })
    for (let i = 0; i < 256; i++) dict.set(i, one)
    const body = beginCell().storeBuffer(Buffer.alloc(64, 7)).storeUint(698983191, 32).storeUint(9, 64).storeDict(dict)
    const cell = Cell.fromBoc(body.endCell().toBoc())[0]!
    const construct = vi.spyOn(Interpreter.prototype, "construct")
    const d = decodeBody(cell) as any
    const reads = construct.mock.calls.length
    construct.mockRestore()
    const leaves: Array<any> = []
    const walk = (edge: any) => {
      if (edge.node["@type"] === "hashmap_node_leaf") leaves.push(edge.node.value)
      else {
        walk(edge.node.left)
        walk(edge.node.right)
      }
    }
    walk(d.payload.root)
    expect(leaves).toHaveLength(256)
    expect(new Set(leaves.map((l) => JSON.stringify(l))).size).toBe(1)
    expect(leaves[255].msg.body.value).toEqual({ "@type": "text_comment", text: "same" })
    // the whole answer as text: every leaf written out, as the marker's printer walks the tree
    expect(JSON.stringify(d).split('"text":"same"')).toHaveLength(257)
    // one read of the repeated message (and its parts), not 256
    expect(reads).toBeLessThan(40)
  })

  it("a highload v2 external prints its message dictionary edge by edge, each message decoded", () => {
    const d = decodeBody(highloadV2(3)) as any
    expect(Object.keys(d)).toEqual(["@type", "signature", "subwallet_id", "query_id", "payload"])
    expect(d["@type"]).toBe("highload_wallet_signed_v2")
    expect(d.query_id).toBe("123")
    expect(d.payload["@type"]).toBe("hashmap_root")
    const leaves: Array<any> = []
    const walk = (edge: any) => {
      expect(edge["@type"]).toBe("hashmap_edge")
      expect(edge.label["@type"]).toMatch(/^hashmap_label_(short|long|same)$/)
      if (edge.node["@type"] === "hashmap_node_leaf") leaves.push(edge.node.value)
      else {
        expect(edge.node["@type"]).toBe("hashmap_node_fork")
        walk(edge.node.left)
        walk(edge.node.right)
      }
    }
    walk(d.payload.root)
    expect(leaves.map((l) => l.msg.body.value)).toEqual(
      [0, 1, 2].map((i) => ({ "@type": "text_comment", text: `m${i}` }))
    )
    expect(leaves.every((l) => l.mode === "3")).toBe(true)
    // the first edge of keys 0..2 (16-bit): a common prefix of 14 zero bits, as a label of zeros
    expect(d.payload.root.label).toEqual({ "@type": "hashmap_label_same", v: false, n: "14" })
  })

  it("an empty highload v2 dictionary is hashmap_empty", () => {
    expect((decodeBody(highloadV2(0)) as any).payload).toEqual({ "@type": "hashmap_empty" })
  })

  it("extra currencies in a wallet's message are read as a dictionary of VarUInteger 32", () => {
    const info = beginCell()
      .storeUint(0, 1)
      .storeBit(1)
      .storeBit(0)
      .storeBit(0)
      .storeUint(0, 2)
      .storeAddress(to)
      .storeCoins(1)
      .storeDict(
        Dictionary.empty(Dictionary.Keys.Uint(32), Dictionary.Values.BigVarUint(5)).set(7, 100n)
      )
      .storeCoins(0)
      .storeCoins(0)
      .storeUint(0, 64)
      .storeUint(0, 32)
      .storeBit(0)
      .storeBit(0)
      .endCell()
    const body = beginCell()
      .storeBuffer(Buffer.alloc(64, 1))
      .storeUint(1, 32)
      .storeUint(2, 32)
      .storeUint(3, 32)
      .storeUint(3, 8)
      .storeRef(info)
      .endCell()
    const d = decodeBody(body) as any
    expect(d["@type"]).toBe("wallet_signed_v3")
    const other = d.msgs.msg_1.msg.info.value.other
    expect(other["@type"]).toBe("extra_currencies")
    const edge = other.dict.root
    expect(edge.label).toEqual({ "@type": "hashmap_label_long", n: "32", s: "00000007" })
    expect(edge.node).toEqual({
      "@type": "hashmap_node_leaf",
      value: { "@type": "var_uint", len: "1", value: "100" }
    })
  })
})

describe("decodedBytes (the body memo's weight)", () => {
  it("grows with every string, key and nested object of a decoding", () => {
    const small = decodedBytes({ "@type": "text_comment", comment: "hi" })
    const large = decodedBytes({ "@type": "text_comment", comment: "x".repeat(10_000) })
    expect(large - small).toBe(10_000 - 2)
    const nested = decodedBytes({ a: { b: { c: "d" } } })
    expect(nested).toBeGreaterThan(decodedBytes({ a: "d" }) + 2 * 16)
    expect(decodedBytes(null)).toBeGreaterThan(0)
  })
})
