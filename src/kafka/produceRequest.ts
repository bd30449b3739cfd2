/**
 * kafkajs's produce request (v3, which v4-v7 wrap) encoded into one buffer of its exact size, installed at run time in
 * place of kafkajs's own (`kafkajs/src/protocol/requests/produce/v3/request`). kafkajs's encodes every record into a
 * buffer of its own, joins them into a fresh buffer to compress them, and then copies each compressed record batch
 * through seven encoders (the batch body, the batch, its outer encoder, the partition, the topic, the request, the
 * request's framing), each a zero-filled buffer grown to the next power of two: ~35 kB allocated outside the JS heap
 * per transaction of a producer, which is what sets its peak RSS (glibc keeps what the young buffers took). This one
 * writes the records straight into a join buffer that is reused while the codec compresses within its call (the
 * project's codecs), and every partition's record batch once into the request's buffer, behind room for kafkajs's
 * framing: kafkajs's Encoder, asked to write such a request into the framing's encoder, writes the framing's head
 * into that room instead of copying the request after it (`writeEncoderAdopting`).
 *
 * Invariants: the bytes equal kafkajs's request's (test/unit/kafka/produceRequest.test.ts compares them); messages
 * this one does not take (timestamps of their own, records kafkajs's record encoder alone takes, empty partitions)
 * go to kafkajs's own request whole; a reused join buffer is never handed to a codec that may read it after its call
 * returns; the room before a request's bytes belongs to one encoder at a time (the last that took it in), so bytes
 * an encoder holds are never written over.
 */
import { createRequire } from "node:module"
import { planRecord, writeRecord, type RecordPlan } from "./recordEncoder.js"
import { crc32cRange } from "../ton/fastHash.js"

const require = createRequire(import.meta.url)

const PRODUCE_V3_MODULE = "kafkajs/src/protocol/requests/produce/v3/request.js"

/** kafkajs's Encoder, as far as this module writes into it. */
interface KafkajsEncoder {
  buf: Buffer
  offset: number
  readonly buffer: Buffer
  writeEncoder(value: KafkajsEncoder): KafkajsEncoder
}

interface LongLike {
  getHighBits(): number
  getLowBits(): number
}
interface LongStatic {
  fromValue(v: unknown): LongLike
  fromInt(v: number): LongLike
}

const Encoder = require("kafkajs/src/protocol/encoder.js") as { prototype: KafkajsEncoder }
const Long = require("kafkajs/src/utils/long.js") as LongStatic
const { lookupCodec, Types } = require("kafkajs/src/protocol/message/compression/index.js") as {
  lookupCodec: (type: number) => KafkaCodec | null
  Types: { None: number }
}
const { Produce: PRODUCE_API_KEY } = require("kafkajs/src/protocol/requests/apiKeys.js") as { Produce: number }

interface KafkaCodec {
  compress(encoder: { readonly buffer: Buffer }): Promise<Buffer>
}

/**
 * Codecs that read their input only during the call to `compress` (they compress synchronously, however they
 * return): the join buffer handed to them is reused for the next batch. Any other codec gets a buffer of its own.
 */
const inCallCodecs = new WeakSet<object>()
export const markCompressesInCall = (codec: object): void => {
  inCallCodecs.add(codec)
}

/** Room left before a request's bytes for kafkajs's framing: size, api key and version, correlation id, client id. */
export const FRAMING_ROOM = 256

interface Room {
  /** The buffer the room and the bytes are in. */
  readonly backing: Buffer
  /** Where the encoder's bytes start in `backing`; everything before is free. */
  readonly start: number
  /** The encoder's `buf` when it took the room (anything written after that replaced it: the room is void then). */
  readonly view: Buffer
}
const rooms = new WeakMap<object, Room>()

const originalWriteEncoder = Encoder.prototype.writeEncoder

/**
 * kafkajs's `writeEncoder` (append an encoder's bytes), except for an encoder with room before its bytes and nothing
 * written to it since: then this encoder's bytes go into that room, this encoder takes the joined bytes as its own
 * (and the rest of the room), and the written encoder gives its room up. Same bytes as a copy.
 */
export function writeEncoderAdopting(this: KafkajsEncoder, value: KafkajsEncoder): KafkajsEncoder {
  const room = value == null ? undefined : rooms.get(value)
  if (room !== undefined && room.view === value.buf && value.offset === value.buf.length && this.offset <= room.start) {
    rooms.delete(value)
    const start = room.start - this.offset
    this.buf.copy(room.backing, start, 0, this.offset)
    const view = room.backing.subarray(start, room.start + value.offset)
    this.buf = view
    this.offset = view.length
    rooms.set(this, { backing: room.backing, start, view })
    return this
  }
  return originalWriteEncoder.call(this, value)
}

/** The messages of kafkajs's produce request. */
interface Message {
  readonly key?: Buffer | string | null
  readonly value?: Buffer | string | null
  readonly headers?: Record<string, unknown>
  readonly timestamp?: number | string | null
}
interface PartitionData {
  readonly partition: number
  readonly firstSequence?: number
  readonly messages: ReadonlyArray<Message>
}
interface TopicData {
  readonly topic: string
  readonly partitions: ReadonlyArray<PartitionData>
}
export interface ProduceArgs {
  readonly acks: number
  readonly timeout: number
  readonly transactionalId?: string | null
  readonly producerId?: unknown
  readonly producerEpoch?: number
  readonly compression?: number
  readonly topicData: ReadonlyArray<TopicData>
}
interface ProduceRequest {
  readonly apiKey: number
  readonly apiVersion: number
  readonly apiName: string
  expectResponse(): boolean
  encode(): Promise<KafkajsEncoder>
}
type MakeRequest = (args: ProduceArgs) => ProduceRequest

const writeInt64 = (buf: Buffer, o: number, v: unknown): number => {
  const l = Long.fromValue(v)
  buf.writeInt32BE(l.getHighBits(), o)
  buf.writeInt32BE(l.getLowBits(), o + 4)
  return o + 8
}

const writeString = (buf: Buffer, o: number, s: string | null | undefined): number => {
  if (s == null) return buf.writeInt16BE(-1, o)
  const n = Buffer.byteLength(s, "utf8")
  o = buf.writeInt16BE(n, o)
  return o + buf.write(s, o, n, "utf8")
}

/** One partition's record batch before it is written: its records planned, or joined and compressed. */
interface Batch {
  readonly partition: PartitionData
  readonly plans: ReadonlyArray<RecordPlan>
  /** The compressed records; null without compression (the plans are written in place). */
  readonly compressed: Buffer | null
  readonly recordBytes: number
  /** kafkajs's clock reading for the partition: the batch's first and last timestamp (every record's delta 0). */
  readonly timestamp: number
}

/** Bytes of a record batch's body before its records: attributes .. first sequence, then the record count. */
const BODY_HEAD = 2 + 4 + 8 + 8 + 8 + 2 + 4 + 4
/** Bytes of a partition's entry before its batch body: partition, set size, first offset, length, epoch, magic, crc. */
const ENTRY_HEAD = 4 + 4 + 8 + 4 + 4 + 1 + 4

/** The join buffer reused across batches for in-call codecs (grown to the largest join, never shrunk). */
let sharedJoin: Buffer = Buffer.alloc(0)

const join = (plans: ReadonlyArray<RecordPlan>, bytes: number, reuse: boolean): Buffer => {
  let buf: Buffer
  if (reuse) {
    if (sharedJoin.length < bytes) sharedJoin = Buffer.allocUnsafe(Math.max(bytes, sharedJoin.length * 2))
    buf = sharedJoin
  } else buf = Buffer.allocUnsafe(bytes)
  let o = 0
  for (const p of plans) o = writeRecord(buf, o, p)
  return buf.subarray(0, bytes)
}

/** The planned records of a partition as kafkajs numbers and times them, or undefined when kafkajs's must do it. */
const planPartition = (messages: ReadonlyArray<Message>): Array<RecordPlan> | undefined => {
  if (messages.length === 0) return undefined
  const plans: Array<RecordPlan> = []
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i]!
    // kafkajs times records from their own timestamps (sorted as text): left to it
    if (m.timestamp != null) return undefined
    const plan = planRecord({ key: m.key, value: m.value, headers: m.headers, offsetDelta: i, timestampDelta: 0 })
    if (plan === undefined) return undefined
    plans.push(plan)
  }
  return plans
}

/** kafkajs's produce request v3 with `encode` writing one exact buffer; `fallback` (kafkajs's) for what it does not take. */
export const makeProduceRequest = (fallback: MakeRequest): MakeRequest => (args) => {
  const { acks, timeout, transactionalId = null, producerEpoch = 0, compression = Types.None, topicData } = args
  const producerId = args.producerId === undefined ? Long.fromInt(-1) : args.producerId
  return {
    apiKey: PRODUCE_API_KEY,
    apiVersion: 3,
    apiName: "Produce",
    expectResponse: () => acks !== 0,
    encode: async () => {
      const planned: Array<Array<Array<RecordPlan>>> = []
      for (const t of topicData) {
        const partitions: Array<Array<RecordPlan>> = []
        for (const p of t.partitions) {
          const plans = planPartition(p.messages)
          if (plans === undefined) return fallback(args).encode()
          partitions.push(plans)
        }
        planned.push(partitions)
      }
      const codec = compression === Types.None ? null : lookupCodec(compression)
      const reuse = codec !== null && inCallCodecs.has(codec)
      const batches: Array<Array<Batch>> = []
      let size = FRAMING_ROOM + 2 + (transactionalId == null ? 0 : Buffer.byteLength(transactionalId, "utf8")) + 2 + 4 + 4
      for (let ti = 0; ti < topicData.length; ti++) {
        const t = topicData[ti]!
        size += 2 + Buffer.byteLength(t.topic, "utf8") + 4
        const topicBatches: Array<Batch> = []
        for (let pi = 0; pi < t.partitions.length; pi++) {
          const plans = planned[ti]![pi]!
          const timestamp = Date.now()
          let joined = 0
          for (const p of plans) joined += p.size
          let compressed: Buffer | null = null
          if (codec !== null) {
            compressed = await codec.compress({ buffer: join(plans, joined, reuse) })
            joined = compressed.length
          }
          topicBatches.push({ partition: t.partitions[pi]!, plans, compressed, recordBytes: joined, timestamp })
          size += ENTRY_HEAD + BODY_HEAD + joined
        }
        batches.push(topicBatches)
      }
      const attributes = (compression & 0x07) | (transactionalId ? 16 : 0)
      const backing = Buffer.allocUnsafe(size)
      let o = writeString(backing, FRAMING_ROOM, transactionalId)
      o = backing.writeInt16BE(acks, o)
      o = backing.writeInt32BE(timeout, o)
      o = backing.writeInt32BE(topicData.length, o)
      for (let ti = 0; ti < topicData.length; ti++) {
        o = writeString(backing, o, topicData[ti]!.topic)
        const topicBatches = batches[ti]!
        o = backing.writeInt32BE(topicBatches.length, o)
        for (const b of topicBatches) {
          const bodyBytes = BODY_HEAD + b.recordBytes
          const batchBytes = 4 + 1 + 4 + bodyBytes
          o = backing.writeInt32BE(b.partition.partition, o)
          o = backing.writeInt32BE(8 + 4 + batchBytes, o)
          o = writeInt64(backing, o, 0)
          o = backing.writeInt32BE(batchBytes, o)
          o = backing.writeInt32BE(0, o) // partition leader epoch
          o = backing.writeInt8(2, o) // magic
          const crcAt = o
          const body = o + 4
          o = backing.writeInt16BE(attributes, body)
          o = backing.writeInt32BE(b.plans.length - 1, o)
          o = writeInt64(backing, o, b.timestamp)
          o = writeInt64(backing, o, b.timestamp)
          o = writeInt64(backing, o, producerId)
          o = backing.writeInt16BE(producerEpoch, o)
          o = backing.writeInt32BE(b.partition.firstSequence ?? 0, o)
          o = backing.writeInt32BE(b.plans.length, o)
          if (b.compressed !== null) o += b.compressed.copy(backing, o)
          else for (const p of b.plans) o = writeRecord(backing, o, p)
          backing.writeUInt32BE(crc32cRange(backing, body, o), crcAt)
        }
      }
      if (o !== size) throw new Error(`produce request encoder wrote ${o} of ${size} bytes`)
      const encoder = Object.create(Encoder.prototype) as KafkajsEncoder
      encoder.buf = backing.subarray(FRAMING_ROOM)
      encoder.offset = size - FRAMING_ROOM
      rooms.set(encoder, { backing, start: FRAMING_ROOM, view: encoder.buf })
      return encoder
    }
  }
}

/** kafkajs's own produce request v3 (the reference, and the fallback); loading it loads the record encoder it uses. */
export const kafkajsProduceRequest = (): MakeRequest => require(PRODUCE_V3_MODULE) as MakeRequest

let installed: "installed" | "too late" | undefined

/**
 * Puts this request where kafkajs's later produce versions take v3 from, before they load (on the first produce),
 * and the adopting `writeEncoder` in kafkajs's Encoder class. Once per process, after the record encoder's install
 * (loading v3 here takes the record encoder in); "too late" when a later version had already loaded.
 */
export const installKafkaProduceRequest = (): "installed" | "too late" => {
  if (installed !== undefined) return installed
  Encoder.prototype.writeEncoder = writeEncoderAdopting
  for (const v of [4, 5, 6, 7]) {
    if (require.cache[require.resolve(`kafkajs/src/protocol/requests/produce/v${v}/request.js`)] !== undefined) {
      installed = "too late"
      return installed
    }
  }
  const original = kafkajsProduceRequest()
  const entry = require.cache[require.resolve(PRODUCE_V3_MODULE)]
  if (entry === undefined) throw new Error(`${PRODUCE_V3_MODULE} is not in the module cache after loading it`)
  entry.exports = makeProduceRequest(original)
  installed = "installed"
  return installed
}
