/**
 * The header reader over block files (src/ton/fast/blockHeader.ts) and the block-wide transaction decoder
 * (decodeBlockFast) against extractBlock and @ton/core's decoding, the references: every real
 * block of test/fixtures/real/blocks (mainnet and testnet, with their Merkle state updates), and every block file the
 * fake liteserver serves for the fixtures chain and a generated chain with splits and merges.
 */
import fs from "node:fs"
import path from "node:path"
import { Either } from "effect"
import { describe, expect, it } from "vitest"
import { extractBlock } from "../../../src/ton/block.js"
import { scanBlockHeader } from "../../../src/ton/fast/blockHeader.js"
import { decodeBlockFast, decodeTransactionFast } from "../../../src/ton/fast/decode.js"
import { blockStates } from "../../../src/ton/stateUpdate.js"
import { decodeTransaction } from "../../../src/ton/decode.js"
import { OutsideFastPath } from "../../../src/ton/fast/cells.js"
import { generateChain } from "../../../tools/fake/generate.js"
import { withBlockFiles } from "../../../tools/fake/liteserver/blocks.js"
import { fixturesChain } from "../../../tools/fake/server.js"
import { listReal, ok, REAL } from "./support.js"

const realBlocks = listReal("blocks")
  .filter((f) => /\.(boc|hex\.txt|b64\.txt)$/.test(f))
  .map((f): [string, Uint8Array] => {
    const full = path.join(REAL, "blocks", f)
    if (f.endsWith(".boc")) return [f, fs.readFileSync(full)]
    const text = fs.readFileSync(full, "utf8").trim()
    return [f, Buffer.from(text, f.endsWith(".hex.txt") ? "hex" : "base64")]
  })

const reference = (bytes: Uint8Array) => {
  const x = extractBlock(bytes)
  if (Either.isLeft(x)) throw new Error(x.left.message)
  const { root_hash: _r, file_hash: _f, tx_count: _t, ...rest } = x.right.header
  return rest
}

describe("scanBlockHeader", () => {
  it("reads every real block's header as extractBlock does", () => {
    expect(realBlocks.length).toBeGreaterThanOrEqual(10)
    let masterchain = 0
    for (const [name, bytes] of realBlocks) {
      const want = reference(bytes)
      expect(scanBlockHeader(bytes), name).toEqual(want)
      if (want.shards !== null) masterchain++
    }
    expect(masterchain).toBeGreaterThan(0)
  })

  it("reads every block file of the fixtures chain and a generated chain as extractBlock does", () => {
    const generated = generateChain({ seed: 7, mcBlocks: 16, txPerBlock: 3, maxShards: 8, splitChance: 0.4, mergeChance: 0.3 })
    let n = 0
    let merges = 0
    for (const lite of [withBlockFiles(fixturesChain()), withBlockFiles(generated)]) {
      for (const [key, bytes] of lite.files) {
        const got = scanBlockHeader(bytes)
        expect(got, key).toEqual(reference(bytes))
        if (got.after_merge) merges++
        n++
      }
    }
    expect(n).toBeGreaterThan(50)
    expect(merges).toBeGreaterThan(0)
  })

  it("throws on what is not a block, and on a damaged one", () => {
    const [, bytes] = realBlocks.find(([f]) => f.startsWith("mainnet__-1_"))!
    expect(() => scanBlockHeader(new Uint8Array([1, 2, 3]))).toThrow(OutsideFastPath)
    const tagless = Buffer.from(bytes)
    // the root cell's data starts with the block tag: change it and the reader refuses, as extractBlock does
    const at = tagless.indexOf(Buffer.from([0x11, 0xef, 0x55, 0xaa]))
    expect(at).toBeGreaterThan(0)
    tagless[at] = 0x12
    expect(() => scanBlockHeader(tagless)).toThrow("missing block#11ef55aa tag")
    expect(Either.isLeft(extractBlock(tagless))).toBe(true)
    expect(() => scanBlockHeader(bytes.subarray(0, bytes.length - 10))).toThrow(OutsideFastPath)
  })
})

describe("decodeBlockFast", () => {
  const ctxOf = (bytes: Uint8Array) => {
    const h = reference(bytes)
    return {
      block: { workchain: h.workchain, shard: h.shard, seqno: h.seqno, root_hash: "r", file_hash: "f" },
      mc_block_seqno: 7
    }
  }

  it("decodes every real block's transactions where the block holds them, as @ton/core decodes their BOCs", () => {
    let txs = 0
    for (const [name, bytes] of realBlocks) {
      const ctx = ctxOf(bytes)
      const got = decodeBlockFast(bytes, ctx, false)
      const x = extractBlock(bytes)
      if (Either.isLeft(x)) throw new Error(x.left.message)
      const want = x.right.transactions.map((t) => ok(decodeTransaction(t.boc, ctx, { exoticBodies: "keep" })))
      // the real blocks are read on this path (stored hashes, Merkle state updates and all), not left to the fallback
      expect(got, name).toBeDefined()
      expect(got!.transactions, name).toEqual(want)
      // the header from the same parse is the header reader's
      expect(got!.header, name).toEqual(reference(bytes))
      expect(got!.states, name).toBeUndefined()
      txs += want.length
    }
    expect(txs).toBeGreaterThan(1000)
  })

  it("decodes the fake liteserver's block files of the fixtures chain as the fast decoder decodes their BOCs", () => {
    let txs = 0
    for (const [key, bytes] of withBlockFiles(fixturesChain()).files) {
      const ctx = ctxOf(bytes)
      const x = extractBlock(bytes)
      if (Either.isLeft(x)) throw new Error(x.left.message)
      const want = x.right.transactions.map((t) => ok(decodeTransactionFast(t.boc, ctx, { exoticBodies: "keep" })))
      expect(decodeBlockFast(bytes, ctx, false)?.transactions, key).toEqual(want)
      txs += want.length
    }
    expect(txs).toBeGreaterThan(100)
  })

  it("gives each real block's state update and accounts, whose states are extractBlock's", () => {
    let states = 0
    for (const [name, bytes] of realBlocks) {
      const x = extractBlock(bytes)
      if (Either.isLeft(x)) throw new Error(x.left.message)
      const read = decodeBlockFast(bytes, ctxOf(bytes), true)
      expect(read?.states, name).toBeDefined()
      const { stateUpdate, accounts } = read!.states!
      const h = x.right.header
      expect(blockStates(stateUpdate, h.workchain, accounts), name).toEqual(x.right.states)
      states += x.right.states.before.length + x.right.states.after.length
    }
    expect(states).toBeGreaterThan(10)
  })

  it("leaves a block it does not take to the caller", () => {
    const [, bytes] = realBlocks.find(([f]) => f.startsWith("mainnet__-1_"))!
    expect(decodeBlockFast(bytes.subarray(0, 40), ctxOf(bytes), false)).toBeUndefined()
    const tagless = Buffer.from(bytes)
    tagless[tagless.indexOf(Buffer.from([0x4a, 0x33, 0xf6, 0xfd]))] = 0
    expect(decodeBlockFast(tagless, ctxOf(bytes), false)).toBeUndefined()
    // another block's id (the header says which block the file is): the caller reads it and reports the mismatch
    const ctx = ctxOf(bytes)
    const other = { ...ctx, block: { ...ctx.block, seqno: ctx.block.seqno + 1 } }
    expect(decodeBlockFast(bytes, other, false)).toBeUndefined()
  })
})
