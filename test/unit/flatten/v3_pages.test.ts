import { describe, expect, it } from "vitest"
import { ascOrder, descOrder, v3PageRow, type V3PagePiece } from "../../../src/flatten/v3_pages.js"

const piece = (account: string, lt: string, v3 = `{"a":"${account}","lt":"${lt}"}`): V3PagePiece => ({
  account,
  lt,
  state_before: `B${account.slice(-1)}${lt}`.padEnd(44, "="),
  state_after: `A${account.slice(-1)}${lt}`.padEnd(44, "="),
  book: [account, "0:FF"],
  v3
})

/** The page as the `tx_pages` statement orders it: ORDER BY lt <dir>, account ASC LIMIT limit OFFSET offset. */
const reference = (pieces: ReadonlyArray<V3PagePiece>, sort: "asc" | "desc", offset: number, limit: number) =>
  [...pieces]
    .sort((a, b) => {
      const d = BigInt(a.lt) === BigInt(b.lt) ? 0 : BigInt(a.lt) < BigInt(b.lt) ? -1 : 1
      return (sort === "asc" ? d : -d) || (a.account < b.account ? -1 : a.account > b.account ? 1 : 0)
    })
    .slice(offset, offset + limit)
    .map((p) => p.v3)

/** The page cut from a row as the read statement cuts it: a slice of the lines, or the lines of in-page ranks by rank. */
const cut = (row: ReturnType<typeof v3PageRow>, sort: "asc" | "desc", offset: number, limit: number) => {
  const lines =
    sort === "desc"
      ? row.lines.slice(offset, offset + limit)
      : row.lines
          .map((l, i) => ({ l, r: row.asc_rank[i]! }))
          .filter((x) => x.r > offset && x.r <= offset + limit)
          .sort((a, b) => a.r - b.r)
          .map((x) => x.l)
  return lines.map((l) => l.split("\t")[3])
}

describe("v3PageRow", () => {
  // lts tie across accounts (as the first transactions of shard blocks do), accounts tie across lts, and lts of
  // different decimal lengths (compared as numbers, not text)
  const accounts = ["0:0A", "-1:3333", "0:FF", "0:01", "0:AB"]
  const pieces = accounts.flatMap((a, i) => ["9", "10", "1000", String(100 + i), "18446744073709551615"].map((lt) => piece(a, lt)))

  it("lists lines in descending page order with each line's ascending position", () => {
    const row = v3PageRow(7, pieces)
    expect(row.mc_block_seqno).toBe(7)
    expect(row.lines.map((l) => l.split("\t")[3])).toEqual(reference(pieces, "desc", 0, pieces.length))
    expect([...row.asc_rank].sort((a, b) => a - b)).toEqual(pieces.map((_, i) => i + 1))
    const first = row.lines[0]!.split("\t")
    expect(first).toEqual([
      piece("-1:3333", "18446744073709551615").state_before,
      piece("-1:3333", "18446744073709551615").state_after,
      "-1:3333 0:FF",
      piece("-1:3333", "18446744073709551615").v3
    ])
  })

  it("gives every offset, limit and order the page the tx_pages statement gives", () => {
    const row = v3PageRow(7, [...pieces].reverse())
    for (const sort of ["asc", "desc"] as const) {
      for (let offset = 0; offset <= pieces.length + 1; offset++) {
        for (const limit of [0, 1, 2, 3, 7, pieces.length, 1000]) {
          expect(cut(row, sort, offset, limit), `${sort} ${offset} ${limit}`).toEqual(reference(pieces, sort, offset, limit))
        }
      }
    }
  })

  it("does not depend on the order the pieces come in", () => {
    expect(v3PageRow(7, [...pieces].reverse())).toEqual(v3PageRow(7, pieces))
  })

  it("is the row the pieces sorted by descOrder and ranked by ascOrder make (random blocks, tied lts and accounts)", () => {
    let seed = 7
    const rand = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed % n)
    for (let round = 0; round < 200; round++) {
      const n = rand(40)
      const list = Array.from({ length: n }, () =>
        piece(`${rand(2) - 1}:${rand(6).toString(16).toUpperCase().padStart(2, "0")}`, String(rand(3) === 0 ? rand(12) : 10n ** BigInt(rand(20)) + BigInt(rand(5))))
      )
      const desc = [...list].sort(descOrder)
      const asc = [...desc].sort(ascOrder)
      const expected = {
        mc_block_seqno: round,
        asc_rank: desc.map((p) => asc.indexOf(p) + 1),
        lines: desc.map((p) => `${p.state_before}\t${p.state_after}\t${p.book.join(" ")}\t${p.v3}`)
      }
      expect(v3PageRow(round, list)).toEqual(expected)
    }
  })

  it("makes the empty row of a block without transactions", () => {
    expect(v3PageRow(9, [])).toEqual({ mc_block_seqno: 9, asc_rank: [], lines: [] })
  })

  it("refuses a field holding a tab or a newline (the page's lines split at them)", () => {
    expect(() => v3PageRow(1, [piece("0:01", "5", '{"a":"x\ty"}')])).toThrow(/tab or newline/)
    expect(() => v3PageRow(1, [piece("0:01", "5", '{"a":"x\ny"}')])).toThrow(/tab or newline/)
  })
})
