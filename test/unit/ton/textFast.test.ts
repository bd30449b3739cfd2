// The v2 text-comment reader over a BOC's bytes (cellStringStrictOfBoc) against the reference, tonlib's strict
// CellString read over @ton/core cells (loadCellStringStrict): every message body of a generated chain with the
// recorded real transactions mixed in, then built cells at every edge of the rule (bit lengths, alignment of the
// skipped opcode, chain length, two refs, exotic cells, short roots) in each BOC form @ton/core writes, and malformed
// BOCs, whose error must be the library's own.
import { beginCell, Cell } from "@ton/core"
import { describe, expect, it } from "vitest"
import { assembleBundle, pipelineDecode } from "../../../src/producer/assemble.js"
import { cellStringStrictOfBoc, loadCellStringStrict } from "../../../src/ton/text.js"
import { mixedChain } from "../../../tools/fake/mixedChain.js"
import { rawBundle } from "../../support/pipeline/chainUpstream.js"

const reference = (boc: string, skip: number): Buffer | null | string => {
  try {
    return loadCellStringStrict(Cell.fromBase64(boc), skip)
  } catch (e) {
    return `threw ${(e as Error).message}`
  }
}
const fast = (boc: string, skip: number): Buffer | null | string => {
  try {
    return cellStringStrictOfBoc(boc, skip)
  } catch (e) {
    return `threw ${(e as Error).message}`
  }
}
const hex = (v: Buffer | null | string) => (Buffer.isBuffer(v) ? `bytes ${v.toString("hex")}` : v)

const chainBodies = (): Array<string> => {
  const chain = mixedChain(5, 12, 20)
  const out = new Set<string>()
  for (let s = chain.first; s <= chain.last; s++) {
    const raw = rawBundle(chain, s)
    if (raw === undefined) continue
    for (const tx of assembleBundle(raw, chain.network, pipelineDecode).bundle.transactions) {
      for (const m of [tx.in_msg, ...tx.out_msgs]) if (m !== null) out.add(m.body.boc)
    }
  }
  return [...out]
}

/** A snake chain: `lengths[i]` bits in cell i (a repeating byte pattern), each cell holding the next as its one ref. */
const snake = (lengths: ReadonlyArray<number>, seed = 0): Cell => {
  let next: Cell | null = null
  for (let i = lengths.length - 1; i >= 0; i--) {
    const b = beginCell()
    for (let k = 0; k < lengths[i]!; k++) b.storeBit(((k * 7 + i * 13 + seed) % 5) < 2)
    if (next !== null) b.storeRef(next)
    next = b.endCell()
  }
  return next!
}

const bocForms = (c: Cell): Array<string> => [
  c.toBoc({ idx: false, crc32: true }).toString("base64"),
  c.toBoc({ idx: false, crc32: false }).toString("base64"),
  c.toBoc({ idx: true, crc32: true }).toString("base64")
]

const builtCells = (): Array<Cell> => {
  const cells: Array<Cell> = []
  for (const first of [0, 8, 31, 32, 33, 39, 40, 100, 1023]) cells.push(snake([first]))
  for (const lengths of [[32, 8], [36, 4], [35, 5], [36, 5], [40, 1023, 1016], [33, 7, 8, 8], [32, 0, 8]]) cells.push(snake(lengths))
  cells.push(snake(Array.from({ length: 16 }, () => 40)), snake(Array.from({ length: 17 }, () => 40)))
  cells.push(snake([32].concat(Array.from({ length: 15 }, () => 8))), snake([32].concat(Array.from({ length: 16 }, () => 8))))
  const two = beginCell().storeUint(0, 32).storeUint(0x41, 8).storeRef(snake([8])).storeRef(snake([8])).endCell()
  cells.push(two, beginCell().storeUint(0, 32).storeRef(two).endCell())
  // a library cell (exotic) at the root and further down the chain
  const library = beginCell().storeUint(2, 8).storeBuffer(Buffer.alloc(32, 7)).endCell({ exotic: true })
  cells.push(library, beginCell().storeUint(0, 32).storeUint(0x42, 8).storeRef(library).endCell())
  return cells
}

describe("cellStringStrictOfBoc", () => {
  it("reads every body of a generated chain with real transactions as the reference does", () => {
    const bodies = chainBodies()
    expect(bodies.length).toBeGreaterThan(100)
    let strings = 0
    for (const boc of bodies) {
      for (const skip of [32, 0]) {
        const want = reference(boc, skip)
        if (Buffer.isBuffer(want)) strings++
        expect(hex(fast(boc, skip)), boc).toBe(hex(want))
      }
    }
    expect(strings).toBeGreaterThan(10)
  })

  it("agrees with the reference at every edge of the rule, in every BOC form", () => {
    const seen = new Set<string>()
    for (const c of builtCells()) {
      for (const boc of bocForms(c)) {
        for (const skip of [32, 0, 5]) {
          const want = reference(boc, skip)
          seen.add(Buffer.isBuffer(want) ? "string" : want === null ? "null" : "threw")
          expect(hex(fast(boc, skip)), `${boc} skip ${skip}`).toBe(hex(want))
        }
      }
    }
    // the cases reach all three outcomes
    expect([...seen].sort()).toEqual(["null", "string", "threw"])
  })

  it("leaves malformed BOCs to the library: the same error", () => {
    const good = snake([32, 16]).toBoc({ idx: false, crc32: true })
    const badCrc = Buffer.from(good)
    badCrc[badCrc.length - 1] = badCrc[badCrc.length - 1]! ^ 0xff
    const cases = [badCrc, good.subarray(0, good.length - 6), Buffer.from("not a boc"), Buffer.alloc(0)]
    for (const bytes of cases) {
      const boc = bytes.toString("base64")
      const want = reference(boc, 32)
      expect(typeof want).toBe("string")
      expect(fast(boc, 32)).toBe(want)
    }
  })
})
