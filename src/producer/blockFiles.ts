/**
 * A bundle's block files decoded into its block records and transaction records, on whichever thread decodes (a
 * decode worker): each block's transactions are decoded where the block's bytes hold them (decodeBlockTransactionsFast),
 * and a block outside that path is read whole with extractBlock and its transactions' BOCs decoded one by one.
 * Invariant: the result is the one assembleBundle gives for the reader's raw bundle of the same blocks (records,
 * dead letters, order), and a block that does not read fails with the reader's malformed-block message.
 */
import { createHash } from "node:crypto"
import { Either } from "effect"
import {
  type BlockFile,
  type BlockFilesBundle,
  readBlockFile,
  type ReadBlocks,
  transactionsOf
} from "../source/liteserver/blockFiles.js"
import type { UpstreamError } from "../source/types.js"
import { toBlockRecord } from "../ton/block.js"
import { scanBlockHeader } from "../ton/fast/blockHeader.js"
import { decodeBlockTransactionsFast, lastBlockStateUpdate } from "../ton/fast/decode.js"
import { blockStates } from "../ton/stateUpdate.js"
import type { BlockRecord, TransactionRecord } from "../ton/record.js"
import { decodeTransactions, pipelineDecode, type Decoded } from "./assemble.js"

export interface DecodedBlocks {
  readonly blocks: Omit<ReadBlocks, "transactions">
  readonly decoded: Decoded
}

/** The block's record and its transactions' records from the fast path, or undefined when the block is outside it. */
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
  // the reader checked this hash; it is checked again so that what is decoded here is the file of `id`
  if (createHash("sha256").update(f.data).digest("base64") !== id.file_hash) return undefined
  let header
  try {
    header = scanBlockHeader(f.data)
  } catch {
    return undefined
  }
  if (header.workchain !== id.workchain || header.shard !== id.shard || header.seqno !== id.seqno) return undefined
  const transactions = decodeBlockTransactionsFast(f.data, { block: id, mc_block_seqno: mcSeqno })
  if (transactions === undefined) return undefined
  let states: ReadBlocks["states"][number] | undefined
  if (withStates) {
    try {
      const { stateUpdate, accounts } = lastBlockStateUpdate()
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

