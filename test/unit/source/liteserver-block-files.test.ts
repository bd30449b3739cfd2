/**
 * The liteserver source handing bundles on as block files (read whole by the decode workers) against the reader that
 * reads every block itself: the same raw bundles, and through the decode pool the same Kafka records byte for byte,
 * on the fixtures chain (recorded real transactions in built blocks), a generated chain with splits and merges, and
 * the real mainnet blocks; a damaged block fails as the reader fails.
 */
import { createHash } from "node:crypto"
import fs from "node:fs"
import path from "node:path"
import { Effect, Either, Exit, Scope } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { assembleBundle, pipelineDecode, prepare, type Prepared } from "../../../src/producer/assemble.js"
import { makeDecodePool, type DecodePoolOptions } from "../../../src/producer/DecodePool.js"
import { parseDirect } from "../../../src/source/liteserver/addresses.js"
import {
  type BlockFilesBundle,
  blockFile,
  completeBlockFiles,
  ownBlockFile,
  readBlockFile
} from "../../../src/source/liteserver/blockFiles.js"
import { makeLiteserverUpstream, type LiteserverUpstream } from "../../../src/source/liteserver/Liteserver.js"
import type { AccountStatesMode } from "../../../src/source/liteserver/states.js"
import type { RawMasterchainBundle } from "../../../src/source/Upstream.js"
import { FULL_SHARD } from "../../../src/source/shard.js"
import { extractBlock } from "../../../src/ton/block.js"
import { chainStats } from "../../../tools/fake/ChainData.js"
import { generateChain } from "../../../tools/fake/generate.js"
import { type LiteChain, withBlockFiles } from "../../../tools/fake/liteserver/blocks.js"
import { type FakeLiteserver, startFakeLiteserver } from "../../../tools/fake/liteserver/server.js"
import { fixturesChain } from "../../../tools/fake/server.js"

interface Scoped {
  readonly scope: Scope.CloseableScope
  readonly up: LiteserverUpstream
}

const upstream = async (
  servers: ReadonlyArray<FakeLiteserver>,
  opts: { blockFiles: boolean; accountStates: AccountStatesMode; timeoutMs?: number }
): Promise<Scoped> => {
  const scope = await Effect.runPromise(Scope.make())
  const up = await Effect.runPromise(
    Scope.extend(
      makeLiteserverUpstream({
        servers: parseDirect(servers.map((s) => s.config).join(","))!,
        timeoutMs: opts.timeoutMs ?? 1_000,
        retryBaseMs: 20,
        retryMaxMs: 200,
        retries: 12,
        accountStates: opts.accountStates,
        blockFiles: opts.blockFiles
      }),
      scope
    )
  )
  return { scope, up }
}
const close = (s: Scoped | undefined) => (s ? Effect.runPromise(Scope.close(s.scope, Exit.void)) : Promise.resolve())

const collect = async <A>(from: number, to: number, get: (s: number) => Effect.Effect<A, unknown>) => {
  const out: Array<A> = []
  for (let s = from; s <= to; s++) out.push(await Effect.runPromise(get(s)))
  return out
}

/** Comparable form: the record bytes as text, everything else as it is. */
const plain = (p: Prepared) => ({
  ...p,
  bundle: p.bundle === null ? null : { ...p.bundle, value: p.bundle.value.toString() },
  drafts: { ...p.drafts, bytes: Buffer.from(p.drafts.bytes).toString("latin1") }
})

const throughPool = (
  options: Omit<DecodePoolOptions, "network">,
  bundles: ReadonlyArray<RawMasterchainBundle | BlockFilesBundle>
) =>
  Effect.runPromise(
    Effect.scoped(
      Effect.flatMap(makeDecodePool({ ...options, network: "mainnet" }), (pool) =>
        Effect.forEach(bundles, pool.prepare, { concurrency: 8 })
      )
    )
  )

/** The bundles with each file copied as the reader copies the files it hands on (so the decode pool may move them). */
const ownCopies = (bundles: ReadonlyArray<BlockFilesBundle>): Array<BlockFilesBundle> =>
  bundles.map((b) => ({ ...b, blocks: b.blocks.map(ownBlockFile) }))

const generated = generateChain({ seed: 42, mcBlocks: 24, txPerBlock: 3, maxShards: 8, splitChance: 0.35, mergeChance: 0.3 })

const sameRecords = (lite: LiteChain, name: string) =>
  describe(`block files over ${name}`, { timeout: 240_000 }, () => {
    let ls: FakeLiteserver
    const readers: Array<Scoped> = []
    let reference: Array<RawMasterchainBundle>
    let files: Array<BlockFilesBundle>
    beforeAll(async () => {
      ls = await startFakeLiteserver({ chain: lite })
      const whole = await upstream([ls], { blockFiles: false, accountStates: "off" })
      const deferred = await upstream([ls], { blockFiles: true, accountStates: "off" })
      readers.push(whole, deferred)
      await Effect.runPromise(whole.up.head)
      await Effect.runPromise(deferred.up.head)
      const { first, last } = lite.chain
      reference = await collect(first, last, whole.up.bundle)
      files = await collect(first, last, deferred.up.bundleFiles!)
    }, 300_000)
    afterAll(async () => {
      for (const r of readers) await close(r)
      await ls?.stop()
    })

    it("the raw bundles read from the block files equal the reader's own, record for record", async () => {
      expect(reference.reduce((n, b) => n + b.transactions.length, 0)).toBeGreaterThan(50)
      expect(files.map((f) => f.blocks.length)).toEqual(reference.map((b) => 1 + b.shard_blocks.length))
      expect(files.map((f) => Either.getOrThrow(completeBlockFiles(f)))).toEqual(reference)
      // and `bundle` of a reader with block files reads them itself, to the same bundles
      expect(await collect(lite.chain.first, lite.chain.last, readers[1]!.up.bundle)).toEqual(reference)
    })

    it("the decode pool's records from block files equal the records of the reader's bundles, byte for byte", async () => {
      const expected = reference.map((raw) => prepare(assembleBundle(raw, "mainnet", pipelineDecode)))
      // the pool moves the files the reader made to its workers: each pass gets copies made the reader's way
      const handed = ownCopies(files)
      const got = await throughPool({ workers: 2 }, handed)
      expect(got.map(plain)).toEqual(expected.map(plain))
      expect(handed.flatMap((b) => b.blocks.map((f) => f.data.byteLength))).toEqual(files.flatMap((b) => b.blocks.map(() => 0)))
      // files read in runs on several workers (every block its own run), finished on this thread
      const sliced = await throughPool({ workers: 3, sliceBytes: 1 }, ownCopies(files))
      expect(sliced.map(plain)).toEqual(expected.map(plain))
      // files of the caller's own bytes are copied into the message, and stay as they were
      const kept = files.map((b) => ({ ...b, blocks: b.blocks.map((f) => ({ ...f, data: Buffer.from(f.data) })) }))
      expect((await throughPool({ workers: 2 }, kept)).map(plain)).toEqual(expected.map(plain))
      expect(kept.map((b) => b.blocks.map((f) => Buffer.from(f.data).toString("base64")))).toEqual(
        files.map((b) => b.blocks.map((f) => Buffer.from(f.data).toString("base64")))
      )
      // and the old path: the reader's raw bundles through the pool
      expect((await throughPool({ workers: 2 }, reference)).map(plain)).toEqual(expected.map(plain))
    })

    it("with account states from the blocks' state updates, too", async () => {
      const whole = await upstream([ls], { blockFiles: false, accountStates: "block" })
      const deferred = await upstream([ls], { blockFiles: true, accountStates: "block" })
      readers.push(whole, deferred)
      const { first } = lite.chain
      const last = Math.min(lite.chain.last, first + 8)
      const want = await collect(first, last, whole.up.bundle)
      const got = await collect(first, last, deferred.up.bundleFiles!)
      expect(got.every((f) => f.states === "block")).toBe(true)
      expect(got.map((f) => Either.getOrThrow(completeBlockFiles(f)))).toEqual(want)
      const expected = want.map((raw) => prepare(assembleBundle(raw, "mainnet", pipelineDecode)))
      expect((await throughPool({ workers: 2, sliceBytes: 1 }, got)).map(plain)).toEqual(expected.map(plain))
    })

    it("a reader that looks accounts up reads every block itself and has no block files", async () => {
      const r = await upstream([ls], { blockFiles: true, accountStates: "block+lookup" })
      readers.push(r)
      expect(r.up.bundleFiles).toBeUndefined()
    })
  })

sameRecords(withBlockFiles(fixturesChain()), "the fixtures chain")
sameRecords(withBlockFiles(generated), "a generated chain with splits and merges")

describe("block files that do not read", () => {
  const lite = withBlockFiles(generated)
  const mcSeqno = lite.chain.first + 3
  const mcKey = (seqno: number) => `-1:${FULL_SHARD}:${seqno}`
  const mcId = lite.chain.blocks.get(mcKey(mcSeqno))!.record.id
  const good = lite.files.get(mcKey(mcSeqno))!

  it("a damaged block fails with the reader's message, and the pool dead-letters its masterchain block", async () => {
    expect(good).toBeDefined()
    // a damaged root cell tag: the bytes still parse as a bag of cells, not as a block
    const damaged = Buffer.from(good)
    const at = damaged.indexOf(Buffer.from([0x11, 0xef, 0x55, 0xaa]))
    damaged[at] = 0x12
    const x = extractBlock(damaged)
    expect(Either.isLeft(x)).toBe(true)
    // as a server would serve it under the damaged file's own hash: the file hash check passes, the block does not read
    const id = { ...mcId, file_hash: createHash("sha256").update(damaged).digest("base64") }
    const file = Either.getOrThrow(blockFile(id, damaged))
    const files: BlockFilesBundle = { mc_seqno: mcSeqno, blocks: [file], shard_tops: [], states: "off" }
    const failed = completeBlockFiles(files)
    expect(Either.isLeft(failed) && failed.left.reason).toBe("malformed")
    const message = `block -1:-9223372036854775808:${mcSeqno}: ${Either.isLeft(x) ? x.left.message : ""}`
    expect(Either.isLeft(failed) && failed.left.message).toBe(message)
    for (const sliceBytes of [undefined, 1]) {
      const [p] = await throughPool({ workers: 1, ...(sliceBytes === undefined ? {} : { sliceBytes }) }, [files])
      expect(p!.bundle).toBeNull()
      expect(p!.deadLetters.map((l) => [l.kind, l.mc_seqno, l.reason, l.detail])).toEqual([
        ["block", mcSeqno, "upstream_malformed", message]
      ])
    }
  })

  it("another block's file fails with the file hash it has, and a file of the id's hash with a wrong root hash", () => {
    const otherData = lite.files.get(mcKey(mcSeqno + 1))!
    const other = lite.chain.blocks.get(mcKey(mcSeqno + 1))!.record.id
    const read = blockFile(mcId, otherData)
    expect(Either.isLeft(read) && read.left.message).toBe(`file hash of ${mcKey(mcSeqno)} is ${other.file_hash}`)
    const wrongRoot = readBlockFile(Either.getOrThrow(blockFile({ ...mcId, root_hash: other.root_hash }, good)))
    expect(Either.isLeft(wrongRoot) && wrongRoot.left.message).toBe(`root hash of ${mcKey(mcSeqno)} is ${mcId.root_hash}`)
  })

  it("real mainnet blocks read from their files as extractBlock reads them", () => {
    const dir = path.resolve(import.meta.dirname, "../../fixtures/real/blocks")
    const boc = fs.readdirSync(dir).filter((f) => f.startsWith("mainnet__") && f.endsWith(".boc"))
    expect(boc.length).toBeGreaterThan(3)
    for (const f of boc) {
      const data = fs.readFileSync(path.join(dir, f))
      const x = Either.getOrThrow(extractBlock(data))
      const h = x.header
      const id = { workchain: h.workchain, shard: h.shard, seqno: h.seqno, root_hash: h.root_hash, file_hash: h.file_hash }
      expect(Either.getOrThrow(readBlockFile(Either.getOrThrow(blockFile(id, data)))), f).toEqual(x)
    }
  })
})

describe("block files under faults", { timeout: 240_000 }, () => {
  const lite = withBlockFiles(generated)
  let servers: Array<FakeLiteserver> = []
  afterAll(async () => {
    for (const s of servers) await s.stop()
  })

  it("timeouts, dropped connections, errors and wrong blocks are retried, to the bundles of a clean run", async () => {
    expect(chainStats(lite.chain).merges).toBeGreaterThan(0)
    const clean = await startFakeLiteserver({ chain: lite })
    const faulty = await startFakeLiteserver({
      chain: lite,
      faults: [
        { method: "getBlock", kind: "timeout", every: 7 },
        { method: "getBlock", kind: "drop", every: 11 },
        { method: "getBlock", kind: "error", code: 500, every: 5 },
        { method: "getBlock", kind: "wrong_block", every: 13 }
      ]
    })
    servers = [clean, faulty]
    const a = await upstream([clean], { blockFiles: false, accountStates: "off" })
    const b = await upstream([faulty], { blockFiles: true, accountStates: "off", timeoutMs: 300 })
    try {
      await Effect.runPromise(a.up.head)
      await Effect.runPromise(b.up.head)
      const want = await collect(lite.chain.first, lite.chain.last, a.up.bundle)
      const got = await collect(lite.chain.first, lite.chain.last, b.up.bundleFiles!)
      expect(got.map((f) => Either.getOrThrow(completeBlockFiles(f)))).toEqual(want)
    } finally {
      await close(a)
      await close(b)
    }
  })
})
