import { Either } from "effect"
import { describe, expect, it } from "vitest"
import { normalizeAddress, parseAddress, rawLower, toFriendly, toV2Friendly } from "../../../src/ton/address.js"
import { goString } from "../../../src/ton/text.js"
import { goJsonStringify } from "../../../src/ton/v3.js"
import { readRealJson } from "./support.js"

describe("address forms", () => {
  const book: Record<string, { user_friendly: string }> = readRealJson(
    "v3/ton-org-docs__cookbook-traces__v3_traces__mc-52372896.json"
  ).address_book

  it("parses toncenter's user-friendly forms back to the raw upper-case key", () => {
    for (const [raw, entry] of Object.entries(book)) {
      const p = Either.getOrThrow(parseAddress(entry.user_friendly))
      expect(p.raw).toBe(raw)
      expect(toFriendly(raw, { bounceable: p.bounceable!, testnet: p.testnet! })).toBe(entry.user_friendly)
    }
  })

  it("accepts raw input in any case and normalizes it", () => {
    const raw = Object.keys(book)[0]!
    expect(Either.getOrThrow(normalizeAddress(raw.toLowerCase()))).toBe(raw)
    expect(rawLower(raw)).toBe(raw.toLowerCase())
  })

  it("prints v2 addresses bounceable and url-safe, never with the testnet flag", () => {
    const system = `-1:${"3".repeat(64)}`
    expect(toV2Friendly(system)).toBe("Ef8zMzMzMzMzMzMzMzMzMzMzMzMzMzMzMzMzMzMzMzMzM0vF")
    const wallet = "0:1C2201823E6DAE55FADD08CAD27845C77267C462D81B0620FE664DEE28BB8E34"
    expect(toFriendly(wallet, { bounceable: false, testnet: true }).startsWith("0Q")).toBe(true)
  })

  it("rejects garbage", () => {
    expect(Either.isLeft(parseAddress("hello"))).toBe(true)
    expect(Either.isLeft(parseAddress("0:1234"))).toBe(true)
    expect(Either.isLeft(parseAddress("EQ" + "A".repeat(46)))).toBe(true)
  })
})

describe("Go-compatible text", () => {
  it("turns each byte that starts no valid UTF-8 sequence into one U+FFFD, like Go", () => {
    expect(goString(Buffer.from("héllo"))).toBe("héllo")
    expect(goString(Buffer.from([0xe2, 0x82]))).toBe("\ufffd\ufffd")
    expect(goString(Buffer.from([0xf0, 0x9f, 0x98, 0x80]))).toBe("😀")
    expect(goString(Buffer.from([0xed, 0xa0, 0x80]))).toBe("\ufffd\ufffd\ufffd")
    expect(goString(Buffer.from([0xc0, 0xaf]))).toBe("\ufffd\ufffd")
  })

  it("escapes <, > and & as Go's encoding/json does", () => {
    expect(goJsonStringify({ comment: "<a & b>" })).toBe('{"comment":"\\u003ca \\u0026 b\\u003e"}')
  })
})
