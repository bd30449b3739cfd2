/**
 * Worker-thread entry of the decode pool: decodes whole bundles (answering with the encoded Kafka record, whose bytes
 * are moved, not copied) or slices of a big bundle's transactions (answering with the records). Invariant: it keeps
 * no state between requests, and an exception it does not expect ends the thread, which fails the pool's attempt.
 */
import { parentPort } from "node:worker_threads"
import type { RawMasterchainBundle, RawTransaction } from "../source/Upstream.js"
import { threadCpuSeconds } from "../ops/cpu.js"
import { installFastCellHash } from "../ton/fastHash.js"
import { assembleBundle, decodeTransactions, pipelineDecode, prepare, type Decoded, type Prepared } from "./assemble.js"

export type DecodeRequest =
  | { readonly id: number; readonly op: "bundle"; readonly raw: RawMasterchainBundle; readonly network: string }
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

port.on("message", (req: DecodeRequest) => {
  const t0 = threadCpuSeconds()
  if (req.op === "bundle") {
    const assembled = assembleBundle(req.raw, req.network, pipelineDecode)
    const t1 = threadCpuSeconds()
    const prepared = prepare(assembled)
    const bundle = prepared.bundle === null ? null : { ...prepared.bundle, value: ownBytes(prepared.bundle.value) }
    const cpu = { decode: t1 - t0, encode: threadCpuSeconds() - t1 }
    const reply: DecodeReply = { id: req.id, op: "bundle", prepared: { ...prepared, bundle }, cpu }
    port.postMessage(reply, bundle === null ? [] : [bundle.value.buffer as ArrayBuffer])
  } else {
    const decoded = decodeTransactions(req.txs, req.mcSeqno, req.network, pipelineDecode)
    const reply: DecodeReply = { id: req.id, op: "slice", decoded, cpu: { decode: threadCpuSeconds() - t0, encode: 0 } }
    port.postMessage(reply)
  }
})
port.postMessage({ op: "ready" } satisfies DecodeReply)
