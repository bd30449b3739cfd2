import { Address } from "@ton/core"
import fs from "node:fs"
import path from "node:path"
import { describe, expect, it } from "vitest"
import { friendlyForm } from "../../../src/ton/friendlyForm.js"
import { GOLDEN, REAL } from "./support.js"

// @ton/core is the reference: what the API printed before it owned the encoder
const reference = (raw: string, bounceable: boolean, testnet: boolean, urlSafe: boolean): string =>
  Address.parseRaw(raw).toString({ bounceable, testOnly: testnet, urlSafe })

const FLAGS: ReadonlyArray<readonly [boolean, boolean, boolean]> = [false, true].flatMap((b) =>
  [false, true].flatMap((t) => [false, true].map((u) => [b, t, u] as const))
)

const expectSame = (raw: string): void => {
  for (const [b, t, u] of FLAGS)
    expect(friendlyForm(raw, b, t, u), `${raw} ${b} ${t} ${u}`).toBe(reference(raw, b, t, u))
}

// every raw address in the real fixtures and the golden answers, in any hex case
const fixtureAddresses = (): Array<string> => {
  const found = new Set<string>()
  const walk = (dir: string): void => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, e.name)
      if (e.isDirectory()) walk(p)
      else
        for (const m of fs.readFileSync(p, "latin1").matchAll(/-?\d{1,3}:[0-9a-fA-F]{64}(?![0-9a-fA-F])/g))
          found.add(m[0])
    }
  }
  walk(REAL)
  walk(GOLDEN)
  return [...found]
}

// a deterministic generator (xorshift), so a failure names the same addresses on every run
const drawer = (seed: number) => (): number => {
  seed ^= seed << 13
  seed ^= seed >>> 17
  seed ^= seed << 5
  return seed >>> 0
}

describe("friendlyForm against @ton/core", () => {
  it("makes every fixture address's form as @ton/core does, for every flag combination", () => {
    const addrs = fixtureAddresses()
    expect(addrs.length).toBeGreaterThan(100)
    expect(addrs.some((a) => a.startsWith("-1:"))).toBe(true)
    expect(addrs.some((a) => a.startsWith("0:"))).toBe(true)
    for (const raw of addrs) {
      expectSame(raw)
      expectSame(raw.toLowerCase())
    }
  })

  it("makes random addresses' forms as @ton/core does: every workchain -128..127, hex in either case", () => {
    const next = drawer(20261127)
    for (let i = 0; i < 5000; i++) {
      const wc = (next() % 256) - 128
      const hash = Buffer.alloc(32)
      for (let j = 0; j < 32; j++) hash[j] = next() & 255
      const hex = hash.toString("hex")
      expectSame(`${wc}:${i % 2 === 0 ? hex.toUpperCase() : hex}`)
    }
    // the edges: every hash byte 0 or 255, the workchains at the ends of the range and around zero
    for (const wc of [-128, -127, -2, -1, 0, 1, 2, 126, 127]) {
      expectSame(`${wc}:${"0".repeat(64)}`)
      expectSame(`${wc}:${"F".repeat(64)}`)
      expectSame(`${wc}:${"f".repeat(64)}`)
    }
  })

  it("takes a workchain written with leading zeros or as -0 as @ton/core's parseInt reads it", () => {
    for (const wc of ["-0", "00", "-01", "0127", "-0128"]) expectSame(`${wc}:${"ab".repeat(32)}`)
  })

  it("refuses what @ton/core refuses", () => {
    const hex = "AB".repeat(32)
    const bad = [
      "",
      ":",
      hex,
      `0${hex}`,
      `0:${hex.slice(2)}`,
      `0:${hex.slice(1)}`,
      `0:${"G".repeat(64)}`,
      `0:${hex.slice(0, 62)}zz`,
      `0:${hex.slice(0, 40)}${"\u00e9".repeat(24)}`,
      `0:${hex.slice(0, 30)}`,
      `0:${hex}AB`
    ]
    for (const raw of bad) {
      expect(() => reference(raw, true, false, true), raw).toThrow()
      expect(() => friendlyForm(raw, true, false, true), raw).toThrow(RangeError)
    }
  })

  it("refuses what @ton/core takes leniently: a workchain outside a byte, absent or not decimal; 64 digits and more", () => {
    const hex = "AB".repeat(32)
    const lenient = [
      `128:${hex}`,
      `-129:${hex}`,
      `255:${hex}`,
      `1000:${hex}`,
      `+1:${hex}`,
      `1.0:${hex}`,
      ` 0:${hex}`,
      `0x1:${hex}`,
      `:${hex}`,
      `0:${hex}A`,
      `0:${hex}:1`
    ]
    for (const raw of lenient) {
      expect(() => reference(raw, true, false, true), raw).not.toThrow()
      expect(() => friendlyForm(raw, true, false, true), raw).toThrow(RangeError)
    }
  })

  it("decodes back through @ton/core to the same address and flags", () => {
    const raw = `-1:${"3".repeat(64)}`
    for (const [b, t, u] of FLAGS) {
      const f = Address.parseFriendly(friendlyForm(raw, b, t, u))
      expect([f.address.toRawString().toUpperCase(), f.isBounceable, f.isTestOnly]).toEqual([raw, b, t])
    }
  })
})
