/**
 * A bundle's block files decoded into its block records and transaction records, on whichever thread decodes (a
 * decode worker): each block's file is read once, its header and transactions where the block's bytes hold them
 * (decodeBlockFast), and a block outside that path is read whole with extractBlock and its transactions' BOCs decoded
 * one by one.
 * Invariant: the result is the one assembleBundle gives for the reader's raw bundle of the same blocks (records,
 * dead letters, order), and a block that does not read fails with the reader's malformed-block message.
 */
import { Either } from "effect"
import {
  type BlockFile,
  type BlockFilesBundle,
  joinBlockFiles,
  readBlockFile,
  type ReadBlocks,
  transactionsOf
} from "../source/liteserver/blockFiles.js"
import type { UpstreamError } from "../source/types.js"
import { toBlockRecord } from "../ton/block.js"
import { decodeBlockFast } from "../ton/fast/decode.js"
import { blockStates } from "../ton/stateUpdate.js"
import type { BlockRecord, TransactionRecord } from "../ton/record.js"
import { type Assembled, decodeTransactions, finishBundle, pipelineDecode, type Decoded } from "./assemble.js"

export interface DecodedBlocks {
  readonly blocks: Omit<ReadBlocks, "transactions">
  readonly decoded: Decoded
}

/**
 * The block's record and its transactions' records from the fast path (the file parsed once: header, transactions
 * and state update from the same cells), or undefined when the block is outside it. The file's bytes are not hashed
 * again: a BlockFile is made only by blockFile, which checked them against the id's file hash.
 */
const fast = (
  f: BlockFile,
  mcSeqno: number,
  withStates: boolean
):
  | {
      readonly block: BlockRecord
      readonly transactions: ReadonlyArray<TransactionRecord>
      readonly states: ReadBlocks["states"][number] | undefined
    }
  | undefined => {
  const id = f.id
  const read = decodeBlockFast(f.data, { block: id, mc_block_seqno: mcSeqno }, withStates)
  if (read === undefined) return undefined
  const { header, transactions } = read
  let states: ReadBlocks["states"][number] | undefined
  if (read.states !== undefined) {
    try {
      const { stateUpdate, accounts } = read.states
      states = { header: { end_lt: header.end_lt }, states: blockStates(stateUpdate, header.workchain, accounts) }
    } catch {
      return undefined
    }
  }
  // the file hash vouches for the root hash: the file is the block whose id names both
  const summary = { ...header, root_hash: id.root_hash, file_hash: id.file_hash, tx_count: transactions.length }
  return { block: toBlockRecord(summary, mcSeqno, id.file_hash), transactions, states }
}

/**
 * A run of a bundle's block files decoded (a big bundle is decoded in runs, each on a worker). Account states come
 * from the state update built as @ton/core cells from the block's own (stateUpdate.ts reads them as extractBlock does).
 */
export const decodeBlockFiles = (
  files: ReadonlyArray<BlockFile>,
  mcSeqno: number,
  states: BlockFilesBundle["states"],
  network: string
): Either.Either<DecodedBlocks, UpstreamError> => {
  const blocks: Array<BlockRecord> = []
  const stateParts: Array<ReadBlocks["states"][number]> = []
  const transactions: Array<TransactionRecord> = []
  const deadLetters: Array<Decoded["deadLetters"][number]> = []
  for (const f of files) {
    const quick = fast(f, mcSeqno, states === "block")
    if (quick !== undefined) {
      blocks.push(quick.block)
      if (quick.states !== undefined) stateParts.push(quick.states)
      for (const t of quick.transactions) transactions.push(t)
      continue
    }
    const x = readBlockFile(f)
    if (Either.isLeft(x)) return Either.left(x.left)
    blocks.push(toBlockRecord(x.right.header, mcSeqno, f.id.file_hash))
    if (states === "block") stateParts.push({ header: { end_lt: x.right.header.end_lt }, states: x.right.states })
    const decoded = decodeTransactions(transactionsOf(f.id, x.right), mcSeqno, network, pipelineDecode)
    for (const t of decoded.transactions) transactions.push(t)
    for (const l of decoded.deadLetters) deadLetters.push(l)
  }
  return Either.right({ blocks: { blocks, states: stateParts }, decoded: { transactions, deadLetters } })
}


/** The bundle of block files decoded and assembled (what a decode worker answers a bundle of files with), or why a
 * block file does not read. */
export const assembleBlockFiles = (b: BlockFilesBundle, network: string): Either.Either<Assembled, UpstreamError> =>
  Either.map(decodeBlockFiles(b.blocks, b.mc_seqno, b.states, network), (d) =>
    finishBundle(joinBlockFiles(b, [{ ...d.blocks, transactions: [] }]), network, d.decoded)
  )
