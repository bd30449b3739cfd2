/**
 * `v2_pages` rows (src/flatten/v2_pages.ts) and the pages cut from them (src/store/v2Pages.ts): a row lists a block's
 * pieces in (account, lt) order with fixed-width keys, and every page cut from it equals the page a reference
 * filter-and-sort over the same pieces gives (the `tx_pages` statement's semantics: (account, lt) > cursor, ordered by
 * account then numeric lt, at most `count`), for every cursor (none, on a transaction, between two, before the first,
 * past the last) and count.
 */
import { describe, expect, it } from "vitest"
import { V2_KEY_WIDTH, v2PageKey, v2PageRows, type V2PageBlock, type V2PagePiece } from "../../../src/flatten/v2_pages.js"
import { cutV2Page } from "../../../src/store/v2Pages.js"

const hex = (n: number): string => n.toString(16).toUpperCase().padStart(64, "0")

const block: V2PageBlock = {
  workchain: 0,
  shard: "-9223372036854775808",
  seqno: 77,
  root_hash: "R".repeat(44),
  file_hash: "F".repeat(44),
  mc_block_seqno: 1000
}

const piece = (account: string, lt: string, b: V2PageBlock = block): V2PagePiece => ({
  block_workchain: b.workchain,
  block_shard: b.shard,
  block_seqno: b.seqno,
  account: `${b.workchain}:${account}`,
  lt,
  v2: JSON.stringify({ account, lt, text: "a,b\\tc" })
})

// Accounts and lts chosen so that string order of lts differs from numeric order (9 < 10 < 100), an account holds
// several lts, and hex letters sort after digits.
const pieces: Array<V2PagePiece> = [
  piece(hex(0xab), "100"),
  piece(hex(0x1), "9"),
  piece(hex(0xab), "10"),
  piece(hex(0x1), "10"),
  piece(hex(0xff), "5"),
  piece(hex(0x2), "18446744073709551615"),
  piece(hex(0xab), "9")
]

/** The page `tx_pages` answers: (account, lt) > cursor, ordered by (account, numeric lt), at most `count`. */
const reference = (ps: ReadonlyArray<V2PagePiece>, after: { account: string; lt: string } | null, count: number) => {
  const cmp = (a: [string, bigint], b: [string, bigint]) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0)
  const k = (p: V2PagePiece): [string, bigint] => [p.account, BigInt(p.lt)]
  const sorted = [...ps].sort((a, b) => cmp(k(a), k(b)))
  const c: [string, bigint] | null = after === null ? null : [`0:${after.account.toUpperCase()}`, BigInt(after.lt)]
  const rest = c === null ? sorted : sorted.filter((p) => cmp(k(p), c) > 0)
  return rest.slice(0, count).map((p) => p.v2)
}

describe("v2PageRows", () => {
  it("lists a block's pieces in (account, lt) order with fixed-width keys", () => {
    const [row] = v2PageRows([block], pieces)
    expect(row).toBeDefined()
    expect(row!.block).toBe("0:-9223372036854775808:77")
    expect(row!.mc_block_seqno).toBe(1000)
    expect(row!.root_hash).toBe(block.root_hash)
    expect(row!.keys.length).toBe(pieces.length * V2_KEY_WIDTH)
    expect(row!.v2.split("\n")).toEqual(reference(pieces, null, 1000))
    expect(row!.keys.slice(0, V2_KEY_WIDTH)).toBe(`${hex(1)}00000000000000000009`)
  })

  it("keys a block by its signed decimal shard, whatever the shard's spelling", () => {
    expect(v2PageKey(0, "9223372036854775808", 5)).toBe("0:-9223372036854775808:5")
    expect(v2PageKey(-1, "-9223372036854775808", 5)).toBe("-1:-9223372036854775808:5")
  })

  it("gives a block without transactions an empty row, and ignores pieces of other blocks", () => {
    const other: V2PageBlock = { ...block, seqno: 78 }
    const rows = v2PageRows([block, other], pieces)
    expect(rows.map((r) => r.block)).toEqual(["0:-9223372036854775808:77", "0:-9223372036854775808:78"])
    expect(rows[1]).toMatchObject({ keys: "", v2: "" })
    expect(cutV2Page(rows[1]!.keys, rows[1]!.v2, null, 40)).toEqual({ text: "", count: 0 })
  })

  it("keeps one of a transaction stored twice (rows not merged yet)", () => {
    const [row] = v2PageRows([block], [...pieces, pieces[0]!])
    expect(row!.keys.length).toBe(pieces.length * V2_KEY_WIDTH)
  })

  it("makes no row for a block whose pieces do not fit the fixed-width shape", () => {
    const bad = [
      { ...piece(hex(3), "1"), account: `-1:${hex(3)}` },
      { ...piece(hex(3), "1"), account: "0:XYZ" },
      { ...piece(hex(3), "1"), lt: "18446744073709551616" },
      { ...piece(hex(3), "1"), v2: "a\nb" }
    ]
    for (const p of bad) expect(v2PageRows([block], [...pieces, p])).toEqual([])
  })
})

describe("cutV2Page", () => {
  const [row] = v2PageRows([block], pieces)
  const sorted = reference(pieces, null, 1000).map((t) => JSON.parse(t) as { account: string; lt: string })
  const cursors: Array<{ account: string; lt: string } | null> = [
    null,
    ...sorted.map((p) => ({ account: p.account, lt: p.lt })),
    ...sorted.map((p) => ({ account: p.account.toLowerCase(), lt: p.lt })),
    { account: hex(0), lt: "0" },
    { account: hex(0xab), lt: "50" },
    { account: hex(0xab), lt: "0" },
    { account: hex(0x1), lt: "11" },
    { account: hex(0xff), lt: "18446744073709551615" },
    { account: "F".repeat(64), lt: "0" },
    { account: hex(0x2), lt: "18446744073709551615" },
    { account: hex(0x1), lt: "0010" }
  ]
  it("answers every cursor and count as the tx_pages statement does", () => {
    for (const after of cursors) {
      for (const count of [1, 2, 3, 6, 7, 8, 40, 1000]) {
        const want = reference(pieces, after, count)
        const got = cutV2Page(row!.keys, row!.v2, after, count)
        expect({ after, count, got: got.text }).toEqual({ after, count, got: want.join(",") })
        expect(got.count).toBe(want.length)
      }
    }
  })

  it("refuses a row whose keys and pieces disagree", () => {
    expect(() => cutV2Page(row!.keys, row!.v2.split("\n").slice(0, 3).join("\n"), null, 1000)).toThrow(/pieces/)
    expect(() => cutV2Page(row!.keys.slice(1), row!.v2, null, 10)).toThrow(/keys/)
  })
})
