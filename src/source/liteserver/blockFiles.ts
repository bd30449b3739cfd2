/**
 * A liteserver bundle handed on as the block files it was read from: the reader checks each file's sha256, once
 * (blockFile), and reads its header (src/ton/fast/blockHeader.ts) to walk the shards, and whoever decodes the bundle
 * (a decode worker) reads each block whole here, once, instead of the reader parsing every block and sending its
 * transactions on as BOCs.
 * Invariant: completeBlockFiles gives the bundle the reader gives without block files, record for record, and fails
 * with the reader's own malformed-block messages (less the server's name) where the reader would.
 */
import { createHash } from "node:crypto"
import { Either } from "effect"
import { type ExtractedBlock, extractBlock, toBlockRecord } from "../../ton/block.js"
import type { BlockIdExt, BlockRecord } from "../../ton/record.js"
import { blockKey } from "../shard.js"
import { type RawMasterchainBundle, type RawTransaction, UpstreamError } from "../types.js"
import { type BundleStates, bundleStates, NO_STATES } from "./states.js"

declare const checked: unique symbol

/**
 * A block's file (its bytes, whose sha256 is the id's file hash) and the id it was asked by. Made only by blockFile,
 * which checks that hash: it is checked once, where the bytes arrive, and whoever reads the file (a decode worker,
 * after a copy between threads) trusts it. The mark is a type alone: a copy between threads keeps it.
 */
export interface BlockFile {
  readonly id: BlockIdExt
  readonly data: Uint8Array
  readonly [checked]: true
}

export interface BlockFilesBundle {
  readonly mc_seqno: number
  /** The masterchain block first, then the shard blocks it commits, in the bundle's order. */
  readonly blocks: ReadonlyArray<BlockFile>
  readonly shard_tops: ReadonlyArray<BlockIdExt>
  /** "block": account states and code hashes from the blocks' state updates; "off": none. */
  readonly states: "off" | "block"
}

const malformed = (message: string) => new UpstreamError({ reason: "malformed", message })

/** The transactions of a block as a raw bundle lists them. */
export const transactionsOf = (id: BlockIdExt, x: ExtractedBlock): Array<RawTransaction> =>
  x.transactions.map((t) => ({ block: id, account: t.account, lt: t.lt, hash: t.hash, boc: t.boc }))

/** The file of block `id`, if `data` is it: its sha256 is the id's file hash (the one check of a file's bytes). */
export const blockFile = (id: BlockIdExt, data: Uint8Array): Either.Either<BlockFile, UpstreamError> => {
  const fileHash = createHash("sha256").update(data).digest("base64")
  if (fileHash !== id.file_hash) return Either.left(malformed(`file hash of ${blockKey(id)} is ${fileHash}`))
  return Either.right({ id, data } as BlockFile)
}

/**
 * Buffers of files ownBlockFile made: each holds one file's bytes and nothing else, and only the file refers to it,
 * so the file's reader may take it whole (moved to a decode worker, not copied): see movableBuffers.
 */
const movable = new WeakSet<ArrayBufferLike>()

/** The same file in bytes of its own (a copy of checked bytes is as checked), which the decode pool may move. */
export const ownBlockFile = (f: BlockFile): BlockFile => {
  const data = new Uint8Array(f.data)
  movable.add(data.buffer)
  return { id: f.id, data } as BlockFile
}

/**
 * The buffers of `files` ownBlockFile made and nobody moved yet, for a message's transfer list: once sent, those
 * files are empty on this thread (their bytes live on in the worker), so whoever hands files on this way gives them
 * up. Files made otherwise (a caller's own bytes, a view into a packet) are not among them: a message copies those.
 */
export const movableBuffers = (files: ReadonlyArray<BlockFile>): Array<ArrayBuffer> => {
  const out: Array<ArrayBuffer> = []
  for (const f of files) {
    const b = f.data.buffer
    if (movable.delete(b)) out.push(b as ArrayBuffer)
  }
  return out
}

/** A block file read whole and checked against its id (root hash, workchain, shard, seqno), as the reader does. */
export const readBlockFile = (f: BlockFile): Either.Either<ExtractedBlock, UpstreamError> => {
  const id = f.id
  const x = extractBlock(f.data)
  if (Either.isLeft(x)) return Either.left(malformed(`block ${blockKey(id)}: ${x.left.message}`))
  const h = x.right.header
  if (h.root_hash !== id.root_hash) return Either.left(malformed(`root hash of ${blockKey(id)} is ${h.root_hash}`))
  if (h.workchain !== id.workchain || h.shard !== id.shard || h.seqno !== id.seqno) {
    return Either.left(malformed(`block ${blockKey(id)} says it is ${h.workchain}:${h.shard}:${h.seqno}`))
  }
  return Either.right(x.right)
}

/** Blocks of a bundle read whole: their records, transactions (in order) and what their state updates hold. */
export interface ReadBlocks {
  readonly blocks: ReadonlyArray<BlockRecord>
  readonly transactions: ReadonlyArray<RawTransaction>
  /** Per block, its end lt and states: bundleStates over every part's gives the bundle's (empty when "off"). */
  readonly states: ReadonlyArray<Pick<ExtractedBlock, "states"> & { readonly header: { readonly end_lt: string } }>
}

/** A run of a bundle's block files read whole (a big bundle is read in runs, each on a worker). */
export const readBlockFiles = (
  files: ReadonlyArray<BlockFile>,
  mcSeqno: number,
  states: BlockFilesBundle["states"]
): Either.Either<ReadBlocks, UpstreamError> => {
  const blocks: Array<BlockRecord> = []
  const transactions: Array<RawTransaction> = []
  const stateParts: Array<ReadBlocks["states"][number]> = []
  for (const f of files) {
    const x = readBlockFile(f)
    if (Either.isLeft(x)) return Either.left(x.left)
    blocks.push(toBlockRecord(x.right.header, mcSeqno, f.id.file_hash))
    for (const t of transactionsOf(f.id, x.right)) transactions.push(t)
    if (states === "block") stateParts.push({ header: { end_lt: x.right.header.end_lt }, states: x.right.states })
  }
  return Either.right({ blocks, transactions, states: stateParts })
}

/** The raw bundle from the parts read from its block files, in order. */
export const joinBlockFiles = (b: BlockFilesBundle, parts: ReadonlyArray<ReadBlocks>): RawMasterchainBundle => {
  const blocks = parts.flatMap((p) => p.blocks)
  const bundled: BundleStates = b.states === "off" ? NO_STATES : bundleStates(parts.flatMap((p) => p.states))
  return {
    mc_seqno: b.mc_seqno,
    mc_block: blocks[0]!,
    shard_blocks: blocks.slice(1),
    shard_tops: b.shard_tops,
    transactions: parts.flatMap((p) => p.transactions),
    ...bundled
  }
}

/** The raw bundle of block files: every block read whole, once. */
export const completeBlockFiles = (b: BlockFilesBundle): Either.Either<RawMasterchainBundle, UpstreamError> =>
  Either.map(readBlockFiles(b.blocks, b.mc_seqno, b.states), (part) => joinBlockFiles(b, [part]))
