/**
 * Blocks and their `tx_pages` pieces -> `v2_pages` rows (sql/0132): per block, its id hashes and masterchain seqno,
 * the fixed-width (account, lt) keys of its transactions in (account, lt) order and their v2 pieces in the same order
 * joined by newlines. Every block gets a row, a block without transactions an empty one, so its (empty) page is one
 * lookup too.
 * Invariant: a row holds exactly the block's pieces of `tx_pages` in the order the v2 page statement of `tx_pages`
 * reads them (`ORDER BY account, lt`; accounts of a block share its workchain prefix, so their hex digits order them),
 * so a page cut from it (src/store/v2Pages.ts) is the page read from `tx_pages`. A block whose pieces do not fit that
 * shape (an account of another workchain, a malformed account or lt, a raw newline) gets no row: it is read from
 * `tx_pages` as before.
 */
import type { BlockRow } from "./blocks.js"
import type { TxPageRow } from "../store/pages.js"

export interface V2PageRow {
  readonly block: string
  readonly mc_block_seqno: number
  readonly root_hash: string
  readonly file_hash: string
  readonly keys: string
  readonly v2: string
}

/** What a row needs of a block: its id, hashes and masterchain seqno (a `blocks` row or a BlockRecord's parts). */
export type V2PageBlock = Pick<BlockRow, "workchain" | "shard" | "seqno" | "root_hash" | "file_hash" | "mc_block_seqno">

export type V2PagePiece = Pick<TxPageRow, "block_workchain" | "block_shard" | "block_seqno" | "account" | "lt" | "v2">

/** Characters per transaction in `keys`: 64 hex digits of the account, 20 decimal digits of the lt. */
export const V2_KEY_WIDTH = 84

/** The row key of a block: 'workchain:shard:seqno', the shard as a signed 64-bit decimal. */
export const v2PageKey = (workchain: number, shard: string, seqno: number): string =>
  `${workchain}:${BigInt.asIntN(64, BigInt(shard)).toString()}:${seqno}`

/** A transaction's fixed-width key: account hex digits (without the workchain) and the lt left-padded to 20 digits. */
export const v2TxKey = (hex: string, lt: string): string => `${hex}${lt.padStart(20, "0")}`

const HEX64 = /^[0-9A-Fa-f]{64}$/
const LT = /^\d{1,20}$/

/** The key of a piece of a block of `workchain`, or undefined when it does not fit the fixed-width shape. */
const pieceKey = (workchain: number, p: V2PagePiece): string | undefined => {
  const prefix = `${workchain}:`
  if (!p.account.startsWith(prefix)) return undefined
  const hex = p.account.slice(prefix.length)
  const lt = String(p.lt)
  if (!HEX64.test(hex) || !LT.test(lt) || BigInt(lt) >= 2n ** 64n || p.v2.includes("\n")) return undefined
  return v2TxKey(hex, lt)
}

/** The rows of `blocks`, each with its pieces among `pieces` (pieces of other blocks are ignored). */
export const v2PageRows = (
  blocks: ReadonlyArray<V2PageBlock>,
  pieces: ReadonlyArray<V2PagePiece>
): Array<V2PageRow> => {
  const byBlock = new Map<string, Array<V2PagePiece>>()
  for (const p of pieces) {
    const k = v2PageKey(Number(p.block_workchain), String(p.block_shard), Number(p.block_seqno))
    const list = byBlock.get(k)
    if (list === undefined) byBlock.set(k, [p])
    else list.push(p)
  }
  const out: Array<V2PageRow> = []
  const seen = new Set<string>()
  for (const b of blocks) {
    const block = v2PageKey(Number(b.workchain), String(b.shard), Number(b.seqno))
    if (seen.has(block)) continue
    seen.add(block)
    const keyed = new Map<string, string>()
    let fits = true
    for (const p of byBlock.get(block) ?? []) {
      const k = pieceKey(Number(b.workchain), p)
      if (k === undefined) {
        fits = false
        break
      }
      // the same transaction twice (rows not merged yet) is one transaction, as FINAL reads it
      keyed.set(k, p.v2)
    }
    if (!fits) continue
    const keys = [...keyed.keys()].sort((x, y) => (x < y ? -1 : x > y ? 1 : 0))
    out.push({
      block,
      mc_block_seqno: Number(b.mc_block_seqno),
      root_hash: b.root_hash,
      file_hash: b.file_hash,
      keys: keys.join(""),
      v2: keys.map((k) => keyed.get(k)!).join("\n")
    })
  }
  return out
}
