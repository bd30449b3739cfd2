import { describe, expect, it } from "vitest"
import { int32, int64, str, strArray, strKeys, uint32, uint32Array, uint64, uint64Number } from "../../../src/store/sql.js"

describe("SQL literals of the store", () => {
  it("quotes strings so that no value can end its literal", () => {
    expect(str("0:AB")).toBe("'0:AB'")
    expect(str("a'b")).toBe("'a\\'b'")
    expect(str("a\\")).toBe("'a\\\\'")
    expect(str("\\' OR 1=1 --")).toBe("'\\\\\\' OR 1=1 --'")
    expect(strArray(["x", "y'"])).toBe("['x','y\\'']")
  })

  it("spells a set of keys as one string literal split by the engine, an array literal when a key would not survive the split", () => {
    expect(strKeys(["0:AB", "-1:CD"])).toBe("splitByChar(' ', '0:AB -1:CD')")
    expect(strKeys(["a'b", "c\\"])).toBe("splitByChar(' ', 'a\\'b c\\\\')")
    expect(strKeys(["a b", "c"])).toBe("['a b','c']")
    expect(strKeys(["", "c"])).toBe("['','c']")
    expect(() => strKeys([])).toThrow(RangeError)
  })

  it("spells integers only when they are integers of the type's range", () => {
    expect(uint32(0)).toBe("0")
    expect(uint32(0xffffffff)).toBe("4294967295")
    expect(() => uint32(-1)).toThrow(RangeError)
    expect(() => uint32(2 ** 32)).toThrow(RangeError)
    expect(() => uint32(1.5)).toThrow(RangeError)
    expect(() => uint32(Number.NaN)).toThrow(RangeError)
    expect(int32(-0x80000000)).toBe("-2147483648")
    expect(() => int32(0x80000000)).toThrow(RangeError)
    expect(uint64Number(1_000_000)).toBe("1000000")
    expect(() => uint64Number(-1)).toThrow(RangeError)
    expect(uint32Array([1, 2])).toBe("[1,2]")
    expect(() => uint32Array([1, -2])).toThrow(RangeError)
  })

  it("types 64-bit decimal text by function, refusing anything else", () => {
    expect(int64("-9223372036854775808")).toBe("toInt64('-9223372036854775808')")
    expect(uint64("18446744073709551615")).toBe("toUInt64('18446744073709551615')")
    expect(() => int64("1; DROP TABLE x")).toThrow(RangeError)
    expect(() => uint64("-1")).toThrow(RangeError)
    expect(() => uint64("")).toThrow(RangeError)
  })

  it("refuses empty arrays, whose element type cannot be inferred", () => {
    expect(() => strArray([])).toThrow(RangeError)
    expect(() => uint32Array([])).toThrow(RangeError)
  })
})
