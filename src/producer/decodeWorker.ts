/**
 * Worker-thread entry of the decode pool: decodes whole bundles, raw or as block files it reads first (answering with
 * the encoded Kafka record, whose bytes are moved, not copied), or slices of a big bundle's transactions or block
 * files (answering with the records). Invariant: it keeps no state between requests, a block file that does not read
 * is answered as the reader's malformed-block failure, and an exception it does not expect ends the thread, which
 * fails the pool's attempt.
 */
import { parentPort } from "node:worker_threads"
import type { RawMasterchainBundle, RawTransaction } from "../source/Upstream.js"
import { threadCpuSeconds } from "../ops/cpu.js"
import { installFastCellHash } from "../ton/fastHash.js"
import { Either } from "effect"
import {
  assembleBundle,
  deadBundle,
  decodeTransactions,
  pipelineDecode,
  prepare,
  type Decoded,
  type Prepared
} from "./assemble.js"
import {
  type BlockFile,
  type BlockFilesBundle,
  completeBlockFiles,
  readBlockFiles,
  type ReadBlocks
} from "../source/liteserver/blockFiles.js"
import type { UpstreamError } from "../source/types.js"

export type DecodeRequest =
  | { readonly id: number; readonly op: "bundle"; readonly raw: RawMasterchainBundle; readonly network: string }
  | { readonly id: number; readonly op: "files"; readonly files: BlockFilesBundle; readonly network: string }
  | {
      readonly id: number
      readonly op: "files-slice"
      readonly blocks: ReadonlyArray<BlockFile>
      readonly mcSeqno: number
      readonly states: BlockFilesBundle["states"]
      readonly network: string
    }
  | {
      readonly id: number
      readonly op: "slice"
      readonly txs: ReadonlyArray<RawTransaction>
      readonly mcSeqno: number
      readonly network: string
    }

export type DecodeReply =
  | { readonly op: "ready" }
  | { readonly id: number; readonly op: "bundle"; readonly prepared: Prepared; readonly cpu: StageCpu }
  | { readonly id: number; readonly op: "slice"; readonly decoded: Decoded; readonly cpu: StageCpu }
  | {
      readonly id: number
      readonly op: "files-slice"
      /** The blocks read (their transactions decoded), or why one of them could not be read. */
      readonly read: { readonly blocks: Omit<ReadBlocks, "transactions">; readonly decoded: Decoded } | string
      readonly cpu: StageCpu
    }

/** CPU seconds this thread spent on the request: decoding BOCs into records, and encoding the Kafka record. */
export interface StageCpu {
  readonly decode: number
  readonly encode: number
}

/** A value whose bytes own their whole ArrayBuffer can be transferred; a slice of Buffer's shared pool is copied. */
const ownBytes = (b: Buffer): Buffer => {
  if (b.byteOffset === 0 && b.buffer.byteLength === b.byteLength) return b
  const own = Buffer.allocUnsafeSlow(b.byteLength)
  b.copy(own)
  return own
}

const port = parentPort
if (port === null) throw new Error("decodeWorker runs only as a worker thread")
// Each thread has its own copy of @ton/core, so the faster cell code is installed here as on the main thread.
installFastCellHash()

/** The bundle's Kafka record, or its block's dead letter when a block file does not read (as the reader would fail). */
const prepareRaw = (raw: Either.Either<RawMasterchainBundle, UpstreamError>, mcSeqno: number, network: string) => {
  const t0 = threadCpuSeconds()
  if (Either.isLeft(raw)) {
    const prepared = deadBundle(network, mcSeqno, `upstream_${raw.left.reason}`, raw.left.message)
    return { prepared, cpu: { decode: threadCpuSeconds() - t0, encode: 0 } }
  }
  const assembled = assembleBundle(raw.right, network, pipelineDecode)
  const t1 = threadCpuSeconds()
  const prepared = prepare(assembled)
  return { prepared, cpu: { decode: t1 - t0, encode: threadCpuSeconds() - t1 } }
}

port.on("message", (req: DecodeRequest) => {
  const t0 = threadCpuSeconds()
  if (req.op === "bundle" || req.op === "files") {
    const raw = req.op === "bundle" ? Either.right(req.raw) : completeBlockFiles(req.files)
    const mcSeqno = req.op === "bundle" ? req.raw.mc_seqno : req.files.mc_seqno
    const t1 = threadCpuSeconds()
    const done = prepareRaw(raw, mcSeqno, req.network)
    const prepared = done.prepared
    const bundle = prepared.bundle === null ? null : { ...prepared.bundle, value: ownBytes(prepared.bundle.value) }
    const cpu = { decode: t1 - t0 + done.cpu.decode, encode: done.cpu.encode }
    const reply: DecodeReply = { id: req.id, op: "bundle", prepared: { ...prepared, bundle }, cpu }
    port.postMessage(reply, bundle === null ? [] : [bundle.value.buffer as ArrayBuffer])
  } else if (req.op === "files-slice") {
    const read = readBlockFiles(req.blocks, req.mcSeqno, req.states)
    const answer = Either.isLeft(read)
      ? read.left.message
      : {
          blocks: { blocks: read.right.blocks, states: read.right.states },
          decoded: decodeTransactions(read.right.transactions, req.mcSeqno, req.network, pipelineDecode)
        }
    const reply: DecodeReply = {
      id: req.id,
      op: "files-slice",
      read: answer,
      cpu: { decode: threadCpuSeconds() - t0, encode: 0 }
    }
    port.postMessage(reply)
  } else {
    const decoded = decodeTransactions(req.txs, req.mcSeqno, req.network, pipelineDecode)
    const reply: DecodeReply = { id: req.id, op: "slice", decoded, cpu: { decode: threadCpuSeconds() - t0, encode: 0 } }
    port.postMessage(reply)
  }
})
port.postMessage({ op: "ready" } satisfies DecodeReply)
