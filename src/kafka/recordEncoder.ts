/**
 * A faster encoder of kafkajs's v0 records (the records of a produce request's record batch), installed at run time
 * in place of kafkajs's own (`kafkajs/src/protocol/recordBatch/record/v0`). kafkajs builds every record in a
 * zero-filled 512-byte buffer, grown (zero-filled again and copied) to fit the value, plus one more 512-byte buffer
 * per header, and encodes the timestamp delta through its 64-bit Long class; this one sizes the record first and
 * writes it once into a buffer of exactly that size. Invariant: for every record it accepts the bytes equal kafkajs's
 * encoder's (test/unit/kafka/recordEncoder.test.ts compares them); anything else (a delta that is not a safe integer,
 * a header value that is neither string nor Buffer) goes to kafkajs's own encoder.
 *
 * Record => Length Attributes TimestampDelta OffsetDelta Key Value [HeaderKey HeaderValue], every length and delta a
 * zigzag varint (the timestamp delta a 64-bit one), the lengths of absent keys and values -1.
 */
import { createRequire } from "node:module"

const require = createRequire(import.meta.url)

/** kafkajs's encoder as kafkajs's record batch uses a record: `buf` must be a Buffer, `buffer` is what is written. */
interface EncoderLike {
  readonly buf: Buffer
  readonly buffer: Buffer
}

export interface RecordInput {
  readonly offsetDelta?: number
  readonly timestampDelta?: number
  readonly key?: Buffer | string | null
  readonly value?: Buffer | string | null
  readonly headers?: Record<string, unknown>
}

type Encode = (record: RecordInput) => EncoderLike

const RECORD_MODULE = "kafkajs/src/protocol/recordBatch/record/v0/index.js"
/** The produce request that takes the record encoder in when it loads (kafkajs loads request versions on first use). */
const PRODUCE_V3_MODULE = "kafkajs/src/protocol/requests/produce/v3/request.js"

/** Bytes of an unsigned varint holding `n` (0 <= n < 2^53). */
const uvarintSize = (n: number): number => {
  let size = 1
  while (n >= 128) {
    n = Math.floor(n / 128)
    size += 1
  }
  return size
}

/** Zigzag of a signed integer (|v| < 2^52): 0, -1, 1, -2, ... -> 0, 1, 2, 3, ... */
const zigzag = (v: number): number => (v >= 0 ? v * 2 : -v * 2 - 1)

const writeUvarint = (buf: Buffer, offset: number, n: number): number => {
  while (n >= 128) {
    buf[offset++] = (n % 128) | 128
    n = Math.floor(n / 128)
  }
  buf[offset++] = n
  return offset
}

/** A key, value or header value: absent, raw bytes, or text (kafkajs writes `String(value)` as UTF-8). */
type Bytes = Buffer | string | null

const bytesOf = (v: unknown): Bytes | undefined =>
  v === null || v === undefined ? null : Buffer.isBuffer(v) ? v : typeof v === "string" ? v : undefined

const lengthOf = (b: Bytes): number => (b === null ? -1 : typeof b === "string" ? Buffer.byteLength(b, "utf8") : b.length)

const writeBytes = (buf: Buffer, offset: number, b: Bytes, length: number): number => {
  offset = writeUvarint(buf, offset, zigzag(length))
  if (b === null) return offset
  if (typeof b === "string") return offset + buf.write(b, offset, length, "utf8")
  b.copy(buf, offset)
  return offset + length
}

/** A record sized and ready to be written: `size` bytes, written by `writeRecord` wherever they are to stay. */
export interface RecordPlan {
  readonly size: number
  readonly body: number
  readonly ts: number
  readonly od: number
  readonly key: Bytes
  readonly keyLength: number
  readonly value: Bytes
  readonly valueLength: number
  readonly headerKeys: ReadonlyArray<string>
  readonly headerValues: ReadonlyArray<Bytes>
  readonly headerLengths: ReadonlyArray<number>
}

/** The record's plan, or undefined when it is not one this encoder takes (kafkajs's own encoder does it then). */
export const planRecord = (record: RecordInput): RecordPlan | undefined => {
  const offsetDelta = record.offsetDelta ?? 0
  const timestampDelta = record.timestampDelta ?? 0
  if (!Number.isSafeInteger(offsetDelta) || Math.abs(offsetDelta) >= 2 ** 31) return undefined
  if (!Number.isSafeInteger(timestampDelta) || Math.abs(timestampDelta) >= 2 ** 51) return undefined
  const key = bytesOf(record.key)
  const value = bytesOf(record.value)
  if (key === undefined || value === undefined) return undefined
  const headerKeys: Array<string> = []
  const headerValues: Array<Bytes> = []
  const headers = record.headers ?? {}
  for (const k of Object.keys(headers)) {
    const h = headers[k]
    for (const v of Array.isArray(h) ? h : [h]) {
      const b = bytesOf(v)
      // kafkajs measures a null header value with Buffer.byteLength, which throws: left to it, as are other types
      if (b === undefined || b === null) return undefined
      headerKeys.push(k)
      headerValues.push(b)
    }
  }
  const keyLength = lengthOf(key)
  const valueLength = lengthOf(value)
  const ts = zigzag(timestampDelta)
  const od = zigzag(offsetDelta)
  let body =
    1 + uvarintSize(ts) + uvarintSize(od) +
    uvarintSize(zigzag(keyLength)) + Math.max(0, keyLength) +
    uvarintSize(zigzag(valueLength)) + Math.max(0, valueLength) +
    uvarintSize(zigzag(headerKeys.length))
  const headerLengths: Array<number> = []
  for (let i = 0; i < headerKeys.length; i++) {
    const kl = Buffer.byteLength(headerKeys[i]!, "utf8")
    const vl = lengthOf(headerValues[i]!)
    headerLengths.push(kl, vl)
    body += uvarintSize(zigzag(kl)) + kl + uvarintSize(zigzag(vl)) + vl
  }
  return {
    size: uvarintSize(zigzag(body)) + body,
    body, ts, od, key, keyLength, value, valueLength, headerKeys, headerValues, headerLengths
  }
}

/** Writes the planned record at `offset` of `buf` (which has `plan.size` bytes there); the offset after it. */
export const writeRecord = (buf: Buffer, offset: number, plan: RecordPlan): number => {
  const start = offset
  let o = writeUvarint(buf, offset, zigzag(plan.body))
  buf[o++] = 0 // attributes: none used
  o = writeUvarint(buf, o, plan.ts)
  o = writeUvarint(buf, o, plan.od)
  o = writeBytes(buf, o, plan.key, plan.keyLength)
  o = writeBytes(buf, o, plan.value, plan.valueLength)
  o = writeUvarint(buf, o, zigzag(plan.headerKeys.length))
  for (let i = 0; i < plan.headerKeys.length; i++) {
    o = writeBytes(buf, o, plan.headerKeys[i]!, plan.headerLengths[2 * i]!)
    o = writeBytes(buf, o, plan.headerValues[i]!, plan.headerLengths[2 * i + 1]!)
  }
  if (o - start !== plan.size) throw new Error(`record encoder wrote ${o - start} of ${plan.size} bytes`)
  return o
}

/** The record's bytes, or undefined when it is not one this encoder takes (kafkajs's own encoder does it then). */
export const encodeRecordBytes = (record: RecordInput): Buffer | undefined => {
  const plan = planRecord(record)
  if (plan === undefined) return undefined
  const buf = Buffer.allocUnsafe(plan.size)
  writeRecord(buf, 0, plan)
  return buf
}

/** kafkajs's own record encoder (the reference, and the fallback). */
export const kafkajsRecordEncoder = (): Encode => require(RECORD_MODULE) as Encode

/** The same record through `encodeRecordBytes`, wrapped as kafkajs's record batch expects, or through kafkajs's. */
export const makeRecordEncoder = (fallback: Encode): Encode => {
  // An encoder whose buffer is the record: kafkajs's Encoder class with its bytes in place, so `buffer` is the view.
  const EncoderClass = require("kafkajs/src/protocol/encoder.js") as { prototype: object }
  return (record) => {
    const bytes = encodeRecordBytes(record)
    if (bytes === undefined) return fallback(record)
    const e = Object.create(EncoderClass.prototype) as { buf: Buffer; offset: number }
    e.buf = bytes
    e.offset = bytes.length
    return e as unknown as EncoderLike
  }
}

/** kafkajs's Encoder, as far as joining encoders goes. */
interface KafkajsEncoder {
  buf: Buffer
  offset: number
  readonly buffer: Buffer
  writeEncoderArray(value: ReadonlyArray<KafkajsEncoder>): KafkajsEncoder
}

/**
 * kafkajs's `writeEncoderArray` (how a record batch joins its records before compressing them, and a request its
 * parts) with the room for all of them made once: kafkajs's grows its buffer by doubling, zero-filling and copying
 * it again for every power of two a multi-megabyte request passes. Same bytes, same error for a non-encoder.
 */
export function writeEncoderArrayPresized(this: KafkajsEncoder, value: ReadonlyArray<KafkajsEncoder>): KafkajsEncoder {
  if (!Array.isArray(value) || value.some((v) => v == null || !Buffer.isBuffer(v.buf))) {
    throw new Error("all values should be an instance of Encoder[]")
  }
  const parts = value.map((v) => v.buffer)
  let total = this.offset
  for (const p of parts) total += p.length
  if (total > this.buf.length) {
    const grown = Buffer.alloc(total)
    this.buf.copy(grown, 0, 0, this.offset)
    this.buf = grown
  }
  for (const p of parts) {
    p.copy(this.buf, this.offset)
    this.offset += p.length
  }
  return this
}

let installed: "installed" | "too late" | undefined

/**
 * Puts the faster encoder where kafkajs's produce request takes its record encoder from, before that request module
 * loads (it loads on the first produce), and the presized join in kafkajs's Encoder class. Once per process; "too
 * late" when the request module had already loaded (kafkajs's record encoder stays in use: same bytes, more CPU).
 */
export const installKafkaRecordEncoder = (): "installed" | "too late" => {
  if (installed !== undefined) return installed
  const EncoderClass = require("kafkajs/src/protocol/encoder.js") as { prototype: KafkajsEncoder }
  EncoderClass.prototype.writeEncoderArray = writeEncoderArrayPresized
  if (require.cache[require.resolve(PRODUCE_V3_MODULE)] !== undefined) {
    installed = "too late"
    return installed
  }
  const path = require.resolve(RECORD_MODULE)
  const original = kafkajsRecordEncoder()
  const entry = require.cache[path]
  if (entry === undefined) throw new Error(`${RECORD_MODULE} is not in the module cache after loading it`)
  entry.exports = makeRecordEncoder(original)
  installed = "installed"
  return installed
}
