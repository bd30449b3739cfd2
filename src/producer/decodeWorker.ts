/**
 * Worker-thread entry of the decode pool: decodes whole bundles, raw or as block files it reads first (answering with
 * the encoded Kafka record, whose bytes are moved, not copied), or slices of a big bundle's transactions or block
 * files (answering with the records). Invariant: it keeps no state between requests, a block file that does not read
 * is answered as the reader's malformed-block failure, and an exception it does not expect ends the thread, which
 * fails the pool's attempt.
 */
import { getHeapSpaceStatistics, getHeapStatistics } from "node:v8"
import { parentPort } from "node:worker_threads"
import type { RawMasterchainBundle, RawTransaction } from "../source/Upstream.js"
import { threadCpuSeconds } from "../ops/cpu.js"
import { installFastCellHash } from "../ton/fastHash.js"
import { Either } from "effect"
import { assembleBundle, deadBundle, decodeTransactions, pipelineDecode, prepare, type Decoded, type Prepared } from "./assemble.js"
import type { BlockFile, BlockFilesBundle } from "../source/liteserver/blockFiles.js"
import { assembleBlockFiles, decodeBlockFiles, type DecodedBlocks } from "./blockFiles.js"

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

/** What every answer to a request carries: its id, the CPU it cost this thread and this thread's heap after it. */
interface Answer {
  readonly id: number
  readonly cpu: StageCpu
  readonly heap: ThreadHeap
}

export type DecodeReply =
  | { readonly op: "ready" }
  | (Answer & { readonly op: "bundle"; readonly prepared: Prepared })
  | (Answer & { readonly op: "slice"; readonly decoded: Decoded })
  | (Answer & {
      readonly op: "files-slice"
      /** The blocks read (their transactions decoded), or why one of them could not be read. */
      readonly read: DecodedBlocks | string
    })

/**
 * This thread's V8 heap when it answers (after the request's work, before its garbage is collected: near the
 * thread's high point), in bytes: what the process's own memory figures (the main thread's) leave out.
 */
export interface ThreadHeap {
  /** Heap reserved by V8 (all spaces). */
  readonly total: number
  readonly used: number
  /** Memory outside the heap that the isolate's objects hold (ArrayBuffers, Buffers). */
  readonly external: number
  /** V8's own malloc'ed memory (zones, compiler). */
  readonly malloced: number
  /** The young generation's semi-spaces as committed now (part of `total`; bounded by the pool's resourceLimits). */
  readonly young: number
}

const heapNow = (): ThreadHeap => {
  const h = getHeapStatistics()
  const young = getHeapSpaceStatistics().find((s) => s.space_name === "new_space")?.space_size ?? 0
  const { total_heap_size: total, used_heap_size: used, external_memory: external, malloced_memory: malloced } = h
  return { total, used, external, malloced, young }
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

/** CPU of `f` on this thread, beside its result. */
const timed = <A>(f: () => A): [A, number] => {
  const t0 = threadCpuSeconds()
  const a = f()
  return [a, threadCpuSeconds() - t0]
}

port.on("message", (req: DecodeRequest) => {
  if (req.op === "bundle" || req.op === "files") {
    const [assembled, decode] = timed(() =>
      req.op === "bundle" ? Either.right(assembleBundle(req.raw, req.network, pipelineDecode)) : assembleBlockFiles(req.files, req.network)
    )
    // a block file that does not read: the masterchain block's dead letter, as the reader's failure would give
    const [prepared, encode] = timed(() =>
      Either.isRight(assembled)
        ? prepare(assembled.right)
        : deadBundle(req.network, req.op === "files" ? req.files.mc_seqno : req.raw.mc_seqno, `upstream_${assembled.left.reason}`, assembled.left.message)
    )
    const bundle = prepared.bundle === null ? null : { ...prepared.bundle, value: ownBytes(prepared.bundle.value) }
    const { bytes } = prepared.drafts
    // Both byte arrays are moved, not copied: the main thread gets them without a copy or a string per record
    // (an empty one, which may be shared, is copied: a moved buffer is gone from this thread).
    const drafts =
      bytes.byteLength === 0
        ? prepared.drafts
        : { ...prepared.drafts, bytes: ownBytes(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)) }
    const reply: DecodeReply = {
      id: req.id,
      op: "bundle",
      prepared: { ...prepared, bundle, drafts },
      cpu: { decode, encode },
      heap: heapNow()
    }
    const moved: Array<ArrayBuffer> = []
    if (drafts.bytes.byteLength > 0) moved.push(drafts.bytes.buffer as ArrayBuffer)
    if (bundle !== null) moved.push(bundle.value.buffer as ArrayBuffer)
    port.postMessage(reply, moved)
  } else if (req.op === "files-slice") {
    const [read, decode] = timed(() => decodeBlockFiles(req.blocks, req.mcSeqno, req.states, req.network))
    const reply: DecodeReply = {
      id: req.id,
      op: "files-slice",
      read: Either.isLeft(read) ? read.left.message : read.right,
      cpu: { decode, encode: 0 },
      heap: heapNow()
    }
    port.postMessage(reply)
  } else {
    const [decoded, decode] = timed(() => decodeTransactions(req.txs, req.mcSeqno, req.network, pipelineDecode))
    const reply: DecodeReply = { id: req.id, op: "slice", decoded, cpu: { decode, encode: 0 }, heap: heapNow() }
    port.postMessage(reply)
  }
})
port.postMessage({ op: "ready" } satisfies DecodeReply)
