import { describe, expect, it } from "vitest"
import { goKeyOrder, goSorted } from "../../../src/api/json.js"

// a deterministic generator (xorshift), so a failure names the same lists on every run
const drawer =
  (seed: number) =>
  (n: number): number => {
    seed ^= seed << 13
    seed ^= seed >>> 17
    seed ^= seed << 5
    return (seed >>> 0) % n
  }

const expectSorted = (keys: ReadonlyArray<string>): void => {
  const expected = [...keys].sort(goKeyOrder)
  expect(goSorted(keys)).toEqual(expected)
  expect(goSorted(new Set(keys))).toEqual([...new Set(keys)].sort(goKeyOrder))
}

describe("goSorted: goKeyOrder's order by a numeric sort", () => {
  it("orders raw addresses of both workchains, in either hex case, with repeats", () => {
    const draw = drawer(7)
    const hex = "0123456789ABCDEFabcdef"
    for (const size of [0, 1, 2, 3, 40, 500, 2048]) {
      const keys = Array.from({ length: size }, () => {
        let h = ""
        for (let i = 0; i < 64; i++) h += hex[draw(draw(3) === 0 ? 22 : 16)]
        return `${["-1", "0", "0", "-128", "127"][draw(5)]}:${h}`
      })
      for (let i = 0; i < size / 10; i++) keys.push(keys[draw(keys.length)]!)
      expectSorted(keys)
    }
  })

  it("orders keys sharing their first six characters, keys shorter than six, and empty and NUL-padded keys", () => {
    const draw = drawer(11)
    const alphabet = "\u0000\u0001ab:-0F~\u007f"
    for (let round = 0; round < 200; round++) {
      const keys = Array.from({ length: 1 + draw(60) }, () => {
        let s = draw(4) === 0 ? "0:ABCD" : ""
        const len = draw(9)
        for (let i = 0; i < len; i++) s += alphabet[draw(alphabet.length)]
        return s
      })
      expectSorted(keys)
    }
  })

  it("orders keys with characters above U+007F and lists of more than 2,048 keys as goKeyOrder does", () => {
    const draw = drawer(13)
    const alphabet = "aZ0\u00e9\u2028\u{1F600}\uffff"
    const keys = Array.from({ length: 300 }, () => {
      let s = ""
      for (let i = 0, len = draw(10); i < len; i++) s += alphabet[draw(alphabet.length)]
      return s
    })
    expectSorted(keys)
    expectSorted(Array.from({ length: 5000 }, (_, i) => `0:${((i * 7919) % 5000).toString(16).padStart(64, "0")}`))
  })
})
