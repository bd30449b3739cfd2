/**
 * Every transaction BOC the real fixtures hold, for comparing decoders: the transactions of the fixture blocks (with
 * their block ids) and every string in the other fixture files that looks like a bag of cells (base64 of the generic
 * magic), whatever it is: non-transaction BOCs must fail the same way on both paths too.
 * Invariant: the corpus is read from test/fixtures/real only and is the same on every run (sorted file order).
 */
import fs from "node:fs"
import path from "node:path"
import { Either } from "effect"
import { extractBlock } from "../../src/ton/block.js"
import type { DecodeContext } from "../../src/ton/decode.js"
import type { BlockIdExt } from "../../src/ton/record.js"

export interface CorpusEntry {
  readonly source: string
  readonly boc: string
  readonly ctx: DecodeContext
}

const anyBlock = (workchain: number): BlockIdExt => ({
  workchain,
  shard: "-9223372036854775808",
  seqno: 0,
  root_hash: "",
  file_hash: ""
})

/** Transactions of the fixture blocks in test/fixtures/real/blocks, each with its own block id. */
export const blockTransactions = (realDir: string): Array<CorpusEntry> => {
  const dir = path.join(realDir, "blocks")
  const out: Array<CorpusEntry> = []
  for (const f of fs.readdirSync(dir).sort()) {
    if (!/\.(boc|hex\.txt|b64\.txt)$/.test(f)) continue
    const file = path.join(dir, f)
    const raw = f.endsWith(".boc") ? fs.readFileSync(file) : fs.readFileSync(file, "utf8").trim()
    const bytes = typeof raw === "string" && f.endsWith(".hex.txt") ? Buffer.from(raw, "hex") : raw
    const block = extractBlock(bytes)
    if (Either.isLeft(block)) throw new Error(`${f}: ${block.left.message}`)
    const h = block.right.header
    const id: BlockIdExt = {
      workchain: h.workchain,
      shard: h.shard,
      seqno: h.seqno,
      root_hash: h.root_hash,
      file_hash: h.file_hash
    }
    block.right.transactions.forEach((t, i) =>
      out.push({ source: `${f}#${i}`, boc: t.boc, ctx: { block: id, mc_block_seqno: h.seqno } })
    )
  }
  return out
}

const BOC_RE = /te6cc[A-Za-z0-9+/_-]{20,}={0,2}/g

/** Every BOC-looking base64 string in the fixture files outside blocks/, deduplicated, in both workchains. */
export const fixtureBocs = (realDir: string): Array<CorpusEntry> => {
  const seen = new Set<string>()
  const out: Array<CorpusEntry> = []
  const walk = (dir: string): void => {
    for (const name of fs.readdirSync(dir).sort()) {
      const file = path.join(dir, name)
      if (fs.statSync(file).isDirectory()) {
        if (file !== path.join(realDir, "blocks")) walk(file)
        continue
      }
      const text = fs.readFileSync(file, "utf8")
      for (const m of text.matchAll(BOC_RE)) {
        const boc = m[0]
        if (seen.has(boc)) continue
        seen.add(boc)
        const source = path.relative(realDir, file)
        out.push({ source, boc, ctx: { block: anyBlock(0), mc_block_seqno: 1 } })
        out.push({ source, boc, ctx: { block: anyBlock(-1), mc_block_seqno: 1 } })
      }
    }
  }
  walk(realDir)
  return out
}
