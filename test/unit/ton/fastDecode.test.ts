/**
 * The fast transaction decoder against the @ton/core reference, field by field: every real fixture (both
 * exotic-body options) and 1,500 generated transactions, a quarter of them damaged, must give the same record or the
 * same DecodeError. The 100,000-transaction run is `npm run diff:decode`.
 */
import { describe, expect, it } from "vitest"
import { decodeTransaction } from "../../../src/ton/decode.js"
import { decodeTransactionFast, fastDecodeStats } from "../../../src/ton/fast/decode.js"
import { installFastCellHash } from "../../../src/ton/fastHash.js"
import { emptyTally, type Tally } from "../../../tools/decodeDiff/compare.js"
import { blockTransactions } from "../../../tools/decodeDiff/corpus.js"
import { diffFixtures, diffGenerated, fixtureCases } from "../../../tools/decodeDiff/run.js"
import { REAL, ok } from "./support.js"

// The producer's setting for @ton/core (node:crypto cell hashing): the reference it runs, and cheaper generation.
installFastCellHash()

const SEED = 20261123
const CHUNK = 300

describe("fast decoder vs @ton/core", () => {
  // Chunks, so a slow machine never holds the test runner's event loop for minutes.
  const cases = fixtureCases(REAL)
  const fixtures: Tally = emptyTally()
  for (let from = 0; from < cases.length; from += 1000) {
    it(`agrees on real fixture cases ${from}..${Math.min(cases.length, from + 1000) - 1}, both exotic-body options`, () => {
      const before = fixtures.mismatches.length
      diffFixtures(REAL, fixtures, cases.slice(from, from + 1000))
      expect(fixtures.mismatches.slice(before, before + 3)).toEqual([])
    }, 300_000)
  }
  it("the fixtures hold every real block transaction, decoded", () => {
    expect(fixtures.total).toBe(2 * cases.length)
    expect(fixtures.decoded).toBeGreaterThanOrEqual(2 * 1504)
  })

  const generated: Tally = emptyTally()
  const fallbacksBefore = { fast: 0, fallback: 0 }
  for (let from = 0; from < 1500; from += CHUNK) {
    it(`agrees on generated transactions ${from}..${from + CHUNK - 1} (damaged ones included)`, () => {
      if (from === 0) Object.assign(fallbacksBefore, { fast: fastDecodeStats.fast, fallback: fastDecodeStats.fallback })
      const before = generated.mismatches.length
      diffGenerated(SEED, from, from + CHUNK, generated)
      expect(generated.mismatches.slice(before, before + 3)).toEqual([])
    }, 300_000)
  }

  it("agrees on the cases a 100,000-transaction run found: a whole-byte cell written with an odd length byte", () => {
    // Damaged BOCs (seed 1) whose flipped bit turned d2 odd with a lone 0x80 padding byte: still parseable, but the
    // cell's hash is taken over its canonical form, not over the bytes as written.
    const found: Tally = emptyTally()
    diffGenerated(1, 35655, 35656, found)
    diffGenerated(1, 83759, 83760, found)
    expect(found.total).toBe(2)
    expect(found.mismatches).toEqual([])
  })

  it("the generated cases reach every error kind, and the fast path decodes what decodes", () => {
    expect(generated.total).toBe(1500)
    expect(generated.decoded).toBeGreaterThan(800)
    for (const reason of ["truncated", "bad_boc", "not_base64", "exotic_cell", "not_a_transaction"]) {
      expect(generated.errors.get(reason) ?? 0, reason).toBeGreaterThan(0)
    }
    // Only inputs outside the fast reader's form (other exotic cells, split installs, every error) are handed over.
    expect(fastDecodeStats.fast - fallbacksBefore.fast).toBeGreaterThan(generated.decoded / 2)
  })

  it("reads base64 as the reference does: url-safe, unpadded, mixed alphabets, stray characters, loose last bits", () => {
    const entries = blockTransactions(REAL)
    // A transaction whose BOC has both '+' and '/' and ends in padding, so every variant below changes something.
    const e = entries.find((x) => x.boc.includes("+") && x.boc.includes("/") && x.boc.endsWith("="))!
    expect(e).toBeDefined()
    const b = e.boc
    const unpadded = b.replace(/=+$/, "")
    const lastBits = unpadded.slice(0, -1) + String.fromCharCode(unpadded.charCodeAt(unpadded.length - 1) ^ 1)
    const variants = [
      b,
      b.replace(/\+/g, "-").replace(/\//g, "_"),
      unpadded,
      unpadded.replace(/\+/g, "-").replace(/\//g, "_"),
      b.replace("+", "-"),
      b.replace("/", "_"),
      `${b.slice(0, 100)} ${b.slice(100)}`,
      `${b.slice(0, 100)}\n${b.slice(100)}`,
      `${b.slice(0, 100)}*${b.slice(100)}`,
      `${b}=`,
      lastBits + b.slice(unpadded.length),
      ""
    ]
    for (const v of variants) {
      const fast = decodeTransactionFast(v, e.ctx, { exoticBodies: "keep" })
      const reference = decodeTransaction(v, e.ctx, { exoticBodies: "keep" })
      expect(fast, JSON.stringify(v.slice(95, 105))).toStrictEqual(reference)
    }
    expect(ok(decodeTransactionFast(variants[3]!, e.ctx)).hash).toBe(ok(decodeTransactionFast(b, e.ctx)).hash)
  })

  it("decodes the real block transactions without the fallback", () => {
    const fallbacks = fastDecodeStats.fallback
    for (const e of blockTransactions(REAL)) {
      const fast = ok(decodeTransactionFast(e.boc, e.ctx, { exoticBodies: "keep" }))
      expect(fast).toStrictEqual(ok(decodeTransaction(e.boc, e.ctx, { exoticBodies: "keep" })))
    }
    expect(fastDecodeStats.fallback).toBe(fallbacks)
  }, 120_000)
})
