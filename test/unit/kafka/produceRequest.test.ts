// The exact-size produce request against kafkajs's own (the reference): byte-identical requests, framed as kafkajs's
// connection frames them, for every codec, several topics and partitions, with and without a transactional id; what
// it does not take goes to kafkajs's request; the framing's head is written into the room before the request's bytes
// (no copy of the request) but never over bytes another encoder holds; the reused join buffer goes only to codecs
// that compress within their call, and no request keeps a reference to it.
import { createRequire } from "node:module"
import { gzipSync } from "node:zlib"
import kafkajs from "kafkajs"
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest"
import { installKafkaCodecs } from "../../../src/kafka/compression.js"
import {
  kafkajsProduceRequest,
  makeProduceRequest,
  writeEncoderAdopting,
  type ProduceArgs
} from "../../../src/kafka/produceRequest.js"
import { crc32cRange } from "../../../src/ton/fastHash.js"

const require = createRequire(import.meta.url)
interface Enc {
  buf: Buffer
  offset: number
  readonly buffer: Buffer
  writeInt32(v: number): Enc
  writeString(v: string): Enc
  writeEncoder(v: Enc): Enc
}
const Encoder = require("kafkajs/src/protocol/encoder.js") as { new (): Enc; prototype: Enc }
const createRequest = require("kafkajs/src/protocol/request.js") as (a: {
  correlationId: number
  clientId: string
  request: { apiKey: number; apiVersion: number; encode: () => Promise<Enc> }
}) => Promise<Enc>
const Long = require("kafkajs/src/utils/long.js") as { fromValue(v: unknown): unknown }

// captured before anything is installed
const reference = kafkajsProduceRequest()
const kafkajsWriteEncoder = Encoder.prototype.writeEncoder
// kafkajs's encoders as this test writes into them (the module types only what it uses)
const fast = makeProduceRequest(reference) as unknown as (a: ProduceArgs) => {
  apiKey: number
  apiVersion: number
  encode: () => Promise<Enc>
}
const adopting = writeEncoderAdopting as unknown as (this: Enc, v: Enc) => Enc
const { CompressionCodecs, CompressionTypes } = kafkajs

let seed = 7
const random = () => {
  seed = (seed * 1103515245 + 12345) % 2 ** 31
  return seed / 2 ** 31
}
const bytes = (n: number) => Buffer.from(Array.from({ length: n }, () => Math.floor(random() * 16)))

const messages = (n: number) =>
  Array.from({ length: n }, (_, i) => ({
    key: i % 7 === 0 ? null : `0:${bytes(32).toString("hex")}`,
    value: i % 11 === 0 ? `текст ${i}` : bytes(Math.floor(random() * 3000)),
    headers: i % 3 === 0 ? {} : { kind: "tx", trace: [bytes(8), "ü"], n: String(i) }
  }))

const args = (compression: number, transactionalId: string | null): ProduceArgs => ({
  acks: -1,
  timeout: 30000,
  transactionalId,
  producerId: Long.fromValue(123456789012),
  producerEpoch: 3,
  compression,
  topicData: [
    { topic: "ton.mainnet.blocks", partitions: [{ partition: 0, firstSequence: 17, messages: messages(3) }] },
    {
      topic: "ton.mainnet.transactions",
      partitions: [0, 1, 2, 5].map((partition) => ({ partition, firstSequence: partition * 100, messages: messages(40) }))
    }
  ]
})

const encodeBoth = async (a: ProduceArgs) => {
  const ours = await fast(a).encode()
  const theirs = await reference(a).encode()
  return { ours: Buffer.from(ours.buffer), theirs: Buffer.from(theirs.buffer) }
}

const frame = (request: { apiKey: number; apiVersion: number; encode: () => Promise<Enc> }) =>
  createRequest({ correlationId: 42, clientId: "ton-exporter", request })

beforeAll(() => {
  installKafkaCodecs()
  vi.useFakeTimers({ toFake: ["Date"] })
  vi.setSystemTime(new Date("2026-11-28T09:00:00Z"))
})
afterEach(() => {
  Encoder.prototype.writeEncoder = kafkajsWriteEncoder
})

describe("exact-size Kafka produce request", () => {
  for (const [name, type] of Object.entries({
    none: CompressionTypes.None,
    gzip: CompressionTypes.GZIP,
    lz4: CompressionTypes.LZ4,
    zstd: CompressionTypes.ZSTD
  })) {
    it(`encodes as kafkajs does (${name})`, async () => {
      for (const id of ["ton-exporter.mainnet.producer", null]) {
        const { ours, theirs } = await encodeBoth(args(type, id))
        expect(ours.length).toBe(theirs.length)
        expect(ours.equals(theirs)).toBe(true)
      }
    })
  }

  it("leaves messages with their own timestamps to kafkajs's request", async () => {
    const a = args(CompressionTypes.ZSTD, "t")
    const withTimes: ProduceArgs = {
      ...a,
      topicData: [{ topic: "x", partitions: [{ partition: 0, messages: [{ key: "k", value: "v", timestamp: 1000 }, { value: "w", timestamp: 900 }] }] }]
    }
    const { ours, theirs } = await encodeBoth(withTimes)
    expect(ours.equals(theirs)).toBe(true)
  })

  it("frames the request into the room before its bytes, as kafkajs frames it", async () => {
    Encoder.prototype.writeEncoder = adopting
    const a = args(CompressionTypes.ZSTD, "ton-exporter.mainnet.producer")
    const payload = await fast(a).encode()
    let framedPayload: Enc | undefined
    const ours = await frame({ apiKey: 0, apiVersion: 7, encode: async () => (framedPayload = payload as Enc) })
    Encoder.prototype.writeEncoder = kafkajsWriteEncoder
    const theirs = await frame({ ...(reference(a) as unknown as ReturnType<typeof fast>), apiVersion: 7 })
    expect(Buffer.from(ours.buffer).equals(Buffer.from(theirs.buffer))).toBe(true)
    // no copy: the framed bytes are the request's buffer
    expect(ours.buffer.buffer).toBe(framedPayload!.buf.buffer)
  })

  it("never writes a framing head over bytes another encoder holds", async () => {
    Encoder.prototype.writeEncoder = adopting
    const payload = await fast(args(CompressionTypes.LZ4, "t")).encode()
    const copy = Buffer.from(payload.buffer)
    const first = new Encoder().writeInt32(1111).writeString("first").writeEncoder(payload)
    const second = new Encoder().writeInt32(2222).writeString("second, longer").writeEncoder(payload)
    const expected = (n: number, s: string) =>
      Buffer.concat([Buffer.from(new Encoder().writeInt32(n).writeString(s).buffer), copy])
    expect(Buffer.from(first.buffer).equals(expected(1111, "first"))).toBe(true)
    expect(Buffer.from(second.buffer).equals(expected(2222, "second, longer"))).toBe(true)
    // an encoder written on after it took the room in gives it up: the next one copies
    first.writeInt32(7)
    const third = new Encoder().writeInt32(3333).writeEncoder(first)
    const firstBytes = Buffer.concat([expected(1111, "first"), Buffer.from([0, 0, 0, 7])])
    expect(Buffer.from(third.buffer).equals(Buffer.concat([Buffer.from([0, 0, 0x0d, 0x05]), firstBytes]))).toBe(true)
    expect(Buffer.from(first.buffer).equals(firstBytes)).toBe(true)
  })

  it("keeps no reference to the reused join buffer in any request", async () => {
    const a = args(CompressionTypes.ZSTD, "t")
    const first = await fast(a).encode()
    const firstBytes = Buffer.from(first.buffer)
    // another request over other records reuses the join
    await fast(args(CompressionTypes.ZSTD, "u")).encode()
    await fast(args(CompressionTypes.None, "u")).encode()
    expect(Buffer.from(first.buffer).equals(firstBytes)).toBe(true)
    expect(firstBytes.equals(Buffer.from((await reference(a).encode()).buffer))).toBe(true)
  })

  it("gives a codec that reads its input after its call a join buffer of its own", async () => {
    const gzip = CompressionCodecs[CompressionTypes.GZIP]!
    // reads the records a tick later, as a codec compressing on another thread would
    const late = {
      compress: (encoder: { buffer: Buffer }) =>
        new Promise<Buffer>((resolve) => setImmediate(() => resolve(gzipSync(encoder.buffer)))),
      decompress: async (b: Buffer) => b
    }
    CompressionCodecs[CompressionTypes.GZIP] = () => late
    try {
      const a = args(CompressionTypes.GZIP, "t")
      const b = args(CompressionTypes.GZIP, "u")
      // two requests encoded at once: their joins are alive at the same time
      const [oursA, oursB] = await Promise.all([fast(a).encode(), fast(b).encode()])
      const [theirsA, theirsB] = [await reference(a).encode(), await reference(b).encode()]
      expect(Buffer.from(oursA.buffer).equals(Buffer.from(theirsA.buffer))).toBe(true)
      expect(Buffer.from(oursB.buffer).equals(Buffer.from(theirsB.buffer))).toBe(true)
    } finally {
      CompressionCodecs[CompressionTypes.GZIP] = gzip
    }
  })
})

describe("the record batch's CRC32C", () => {
  // the request writes it with the project's slicing-by-8 CRC32C over the batch in place; kafkajs's byte-wise one is
  // the reference, over lengths that end inside and on an 8-byte step and ranges that start anywhere in a buffer
  const kafkajsCrc32C = require("kafkajs/src/protocol/recordBatch/crc32C/index.js") as (b: Buffer) => number
  it("equals kafkajs's on random ranges", () => {
    let seed = 7
    const next = (): number => (seed = (seed * 1_103_515_245 + 12_345) >>> 0)
    const buf = Buffer.alloc(70_000)
    for (let i = 0; i < buf.length; i++) buf[i] = next() & 0xff
    for (let n = 0; n < 400; n++) {
      const start = next() % 1000
      const len = n < 40 ? n : next() % (buf.length - start)
      expect(crc32cRange(buf, start, start + len)).toBe(kafkajsCrc32C(buf.subarray(start, start + len)))
    }
  })
})
