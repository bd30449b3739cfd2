import { describe, expect, it } from "vitest"
import { ApiError } from "../../../src/api/errors.js"
import {
  hashBytes,
  parseAccountId,
  parseHash,
  parseLt,
  parseShard,
  requiredInt,
  single,
  INT32_MAX,
  INT32_MIN
} from "../../../src/api/assemble/params.js"
import { parseJsonExact } from "../../../src/api/assemble/jsonBody.js"
import { shardHex } from "../../../src/ton/v3.js"

const rejects = (f: () => unknown, fragment: string) => {
  try {
    f()
  } catch (e) {
    expect(e).toBeInstanceOf(ApiError)
    expect((e as ApiError).reason).toBe("invalid_parameter")
    expect((e as ApiError).message).toContain(fragment)
    return
  }
  throw new Error("expected a rejection")
}

describe("integer parameters", () => {
  it("accepts decimal integers inside the range and names the parameter otherwise", () => {
    expect(requiredInt("seqno", "39984096", 0n, INT32_MAX)).toBe(39984096)
    expect(requiredInt("workchain", "-1", INT32_MIN, INT32_MAX)).toBe(-1)
    expect(requiredInt("workchain", "+0", INT32_MIN, INT32_MAX)).toBe(0)
    rejects(() => requiredInt("seqno", undefined, 0n, INT32_MAX), "seqno: field required")
    rejects(() => requiredInt("seqno", "", 0n, INT32_MAX), "seqno: field required")
    rejects(() => requiredInt("seqno", "1.5", 0n, INT32_MAX), "seqno: must be a decimal integer")
    rejects(() => requiredInt("seqno", "1e3", 0n, INT32_MAX), "seqno: must be a decimal integer")
    rejects(() => requiredInt("seqno", "0x10", 0n, INT32_MAX), "seqno: must be a decimal integer")
    rejects(() => requiredInt("seqno", "1 OR 1=1", 0n, INT32_MAX), "seqno: must be a decimal integer")
    rejects(() => requiredInt("seqno", "-1", 0n, INT32_MAX), "out of range")
    rejects(() => requiredInt("seqno", "2147483648", 0n, INT32_MAX), "out of range")
    rejects(() => requiredInt("seqno", "9".repeat(200), 0n, INT32_MAX), "must be a decimal integer")
    rejects(() => single("seqno", ["1", "2"]), "given more than once")
    rejects(() => single("seqno", 2 ** 60), "not an exact integer")
    rejects(() => single("seqno", { a: 1 }), "must be a scalar")
  })

  it("keeps shard ids exact as signed 64-bit decimals and prints them as unsigned hex", () => {
    expect(parseShard("shard", "-9223372036854775808")).toBe("-9223372036854775808")
    expect(parseShard("shard", "2305843009213693952")).toBe("2305843009213693952")
    expect(parseShard("shard", "+0002305843009213693952")).toBe("2305843009213693952")
    rejects(() => parseShard("shard", "9223372036854775808"), "out of range")
    rejects(() => parseShard("shard", "0"), "not a shard id")
    rejects(() => parseShard("shard", "8000000000000000x"), "must be a decimal integer")
    expect(shardHex("-9223372036854775808")).toBe("8000000000000000")
    expect(shardHex("2305843009213693952")).toBe("2000000000000000")
    expect(shardHex("-6917529027641081856")).toBe("A000000000000000")
  })

  it("takes logical times as unsigned 63-bit decimals", () => {
    expect(parseLt("after_lt", "48756940000001")).toBe("48756940000001")
    expect(parseLt("after_lt", undefined)).toBeUndefined()
    rejects(() => parseLt("after_lt", "-5"), "out of range")
  })
})

describe("hashes and account ids", () => {
  const hex = "6f6ebf3f0f01633e9563b472601ff0d8d7fca4a05e6ec83e1f8ad3d691f96443"
  const std = "b26/Pw8BYz6VY7RyYB/w2Nf8pKBebsg+H4rT1pH5ZEM="
  const url = "b26_Pw8BYz6VY7RyYB_w2Nf8pKBebsg-H4rT1pH5ZEM="

  it("accepts hex, base64 and url-safe base64 and normalizes to standard base64", () => {
    expect(parseHash("root_hash", std)).toBe(std)
    expect(parseHash("root_hash", url)).toBe(std)
    expect(parseHash("root_hash", hex)).toBe(std)
    expect(parseHash("root_hash", hex.toUpperCase())).toBe(std)
    rejects(() => parseHash("root_hash", std.slice(1)), "root_hash: must be 32 bytes")
    rejects(() => parseHash("root_hash", `${hex}00`), "root_hash: must be 32 bytes")
    rejects(() => parseHash("root_hash", "'; DROP TABLE blocks; --"), "root_hash: must be 32 bytes")
    expect(hashBytes("!".repeat(43) + "=")).toBeNull()
  })

  it("reads an account id from a hash form or from any address form", () => {
    const id = "3333333333333333333333333333333333333333333333333333333333333333"
    expect(parseAccountId("after_hash", id)).toBe(id)
    expect(parseAccountId("after_hash", `-1:${id.toLowerCase()}`)).toBe(id)
    expect(parseAccountId("after_hash", "Ef8zMzMzMzMzMzMzMzMzMzMzMzMzMzMzMzMzMzMzMzMzM0vF")).toBe(id)
    expect(parseAccountId("after_hash", Buffer.from(id, "hex").toString("base64"))).toBe(id)
    rejects(() => parseAccountId("after_hash", "EQ-not-an-address"), "after_hash: must be an account id")
  })
})

describe("JSON-RPC bodies", () => {
  it("keeps integers beyond 2^53 exact and leaves everything else as JSON.parse reads it", () => {
    const body = parseJsonExact(
      '{"method":"shards","params":{"shard":2305843009213693952,"neg":-9223372036854775808,"small":-1,"f":1.5e3,"s":"12345678901234567890 \\" 9007199254740993"},"id":1}'
    )
    expect(body).toEqual({
      method: "shards",
      params: {
        shard: "2305843009213693952",
        neg: "-9223372036854775808",
        small: -1,
        f: 1500,
        s: '12345678901234567890 " 9007199254740993'
      },
      id: 1
    })
    expect(() => parseJsonExact("{")).toThrow()
    expect(() => parseJsonExact("")).toThrow()
  })
})
