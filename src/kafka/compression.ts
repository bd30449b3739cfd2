/**
 * Record-batch compression of the project's topics (KAFKA_COMPRESSION): none, gzip, lz4 or zstd. kafkajs ships gzip
 * only; LZ4 (frame format, as Kafka requires) and ZSTD are registered here from lz4-napi and @toondepauw/node-zstd,
 * explicitly, by `installKafkaCodecs` (the Kafka client calls it). Invariant: every process registers every codec,
 * so a consumer reads whatever codec any producer chose; and the codecs compress synchronously on the calling
 * thread, so the CPU and bytes they report (`codecStats`) are their own: the CPU is the calling thread's clock around
 * each call. The process's clock (getrusage) counted every other thread's CPU meanwhile, and it sums every thread's
 * runtime, which for a thread running on another core means that core's run queue: on a loaded machine the calling
 * thread waited there (1.2 ms a call on average in a backfill's producer, its decode worker busy), spending no CPU.
 */
import { gunzipSync, gzipSync } from "node:zlib"
import { Decoder as ZstdDecoder, Encoder as ZstdEncoder } from "@toondepauw/node-zstd"
import kafkajs, { CompressionTypes } from "kafkajs"
import lz4 from "lz4-napi"
import type { KafkaCompression } from "../config.js"
import { threadCpuSeconds } from "../ops/cpu.js"
import { codecStats } from "./codecStats.js"
import { markCompressesInCall } from "./produceRequest.js"


export const compressionType = (c: KafkaCompression): CompressionTypes =>
  c === "gzip" ? CompressionTypes.GZIP : c === "lz4" ? CompressionTypes.LZ4 : c === "zstd" ? CompressionTypes.ZSTD : CompressionTypes.None


/** kafkajs hands `compress` its records encoder; only its buffer matters here. */
interface Encoder {
  readonly buffer: Buffer
}
interface KafkaCodec {
  compress(encoder: Encoder): Promise<Buffer>
  decompress(buffer: Buffer): Promise<Buffer>
}

const counted = (compress: (b: Buffer) => Buffer, decompress: (b: Buffer) => Buffer): KafkaCodec => ({
  compress: async (encoder) => {
    const t = threadCpuSeconds()
    const out = compress(encoder.buffer)
    codecStats.compressSeconds += threadCpuSeconds() - t
    codecStats.compressInBytes += encoder.buffer.length
    codecStats.compressOutBytes += out.length
    return out
  },
  decompress: async (buffer) => {
    const t = threadCpuSeconds()
    const out = decompress(buffer)
    codecStats.decompressSeconds += threadCpuSeconds() - t
    codecStats.decompressInBytes += buffer.length
    codecStats.decompressOutBytes += out.length
    return out
  }
})

// zstd level 3 is the library's and Kafka's own default; lz4 frames at the default (fast) setting.
// kafkajs is CommonJS and its codec table is not among the names Node can import from it directly.
const { CompressionCodecs } = kafkajs

const zstdEncoder = new ZstdEncoder(3)
const zstdDecoder = new ZstdDecoder()

const codecs: Record<Exclude<KafkaCompression, "none">, KafkaCodec> = {
  gzip: counted((b) => gzipSync(b), (b) => gunzipSync(b)),
  lz4: counted((b) => lz4.compressFrameSync(b), (b) => lz4.decompressFrameSync(b)),
  zstd: counted((b) => zstdEncoder.encodeSync(b), (b) => zstdDecoder.decodeSync(b))
}

// Each reads its input only within its call (it compresses synchronously): the produce request may reuse the join.
for (const codec of Object.values(codecs)) markCompressesInCall(codec)

let installed = false

/** Registers the project's codecs in kafkajs's codec table (once per process; later calls do nothing). */
export const installKafkaCodecs = (): void => {
  if (installed) return
  installed = true
  CompressionCodecs[CompressionTypes.GZIP] = () => codecs.gzip
  CompressionCodecs[CompressionTypes.LZ4] = () => codecs.lz4
  CompressionCodecs[CompressionTypes.ZSTD] = () => codecs.zstd
}

/** For measurements outside Kafka (the ingest benchmark's record-size table): the same functions. */
export const compressWith = (c: Exclude<KafkaCompression, "none">, b: Buffer): Promise<Buffer> =>
  codecs[c].compress({ buffer: b })
export const decompressWith = (c: Exclude<KafkaCompression, "none">, b: Buffer): Promise<Buffer> =>
  codecs[c].decompress(b)
