// The faster Kafka record encoder against kafkajs's own (the reference): byte-identical records for the project's
// real records (every bundle and transaction record of a generated chain with the recorded real transactions, as the
// producer sends them, with kafkajs's offset and timestamp deltas) and for edge cases (absent keys and values, text
// with multi-byte characters, header arrays and Buffer values, varints of every width, negative deltas); records it
// does not take go to kafkajs's encoder; the presized join of encoders gives kafkajs's bytes; and the installed
// encoder is what kafkajs's produce request uses.
import { createRequire } from "node:module"
import { describe, expect, it } from "vitest"
import { encodeBundle } from "../../../src/kafka/codec.js"
import {
  encodeRecordBytes,
  installKafkaRecordEncoder,
  kafkajsRecordEncoder,
  makeRecordEncoder,
  writeEncoderArrayPresized,
  type RecordInput
} from "../../../src/kafka/recordEncoder.js"
import { completeBundle, PublishHistory } from "../../../src/kafka/transactions.js"
import { assembleBundle, pipelineDecode, prepare } from "../../../src/producer/assemble.js"
import { generateChain } from "../../../tools/fake/generate.js"
import { rawBundle } from "../../support/pipeline/chainUpstream.js"

const reference = kafkajsRecordEncoder()
type KafkajsEncoder = ThisParameterType<typeof writeEncoderArrayPresized>
const Encoder = createRequire(import.meta.url)("kafkajs/src/protocol/encoder.js") as {
  new (): KafkajsEncoder & { writeInt32(v: number): KafkajsEncoder; writeString(v: string): KafkajsEncoder; writeBytes(v: Buffer): KafkajsEncoder }
  prototype: KafkajsEncoder
}
// captured before anything here installs the presized join
const kafkajsJoin = Encoder.prototype.writeEncoderArray
const referenceBytes = (r: RecordInput): Buffer => reference(r).buffer

const same = (r: RecordInput) => {
  const fast = encodeRecordBytes(r)
  expect(fast).toBeDefined()
  expect(fast!.toString("hex")).toBe(referenceBytes(r).toString("hex"))
}

const chain = generateChain({
  seed: 11,
  mcBlocks: 10,
  txPerBlock: 8,
  initialShards: 2,
  maxShards: 4,
  splitChance: 0.3,
  mergeChance: 0.3,
  maxBlocksPerShard: 3,
  fixtures: true,
  network: "mainnet",
  cacheAboveTxs: 0
})

describe("Kafka record encoder", () => {
  it("writes the project's records byte for byte as kafkajs does", () => {
    const history = new PublishHistory()
    let records = 0
    for (let s = chain.first; s <= chain.last; s++) {
      const prepared = prepare(assembleBundle(rawBundle(chain, s)!, chain.network, pipelineDecode))
      const done = completeBundle(prepared.mcSeqno, prepared.drafts, prepared.accountStates, history)
      const messages = [prepared.bundle!, ...done.records]
      // as kafkajs's produce request calls it: the message spread with its offset and timestamp deltas
      messages.forEach((m, i) => same({ ...m, offsetDelta: i, timestampDelta: i % 3 === 0 ? 0 : 17 * i }))
      records += messages.length
    }
    expect(records).toBeGreaterThan(chain.last - chain.first + 50)
  })

  it("writes edge cases byte for byte as kafkajs does", () => {
    const big = Buffer.alloc(70_000, 7)
    const headers = Object.fromEntries(Array.from({ length: 70 }, (_, i) => [`h${i}`, `v${"é".repeat(i)}`]))
    const cases: Array<RecordInput> = [
      {},
      { key: null, value: null },
      { key: "12", value: Buffer.from("{}") },
      { key: Buffer.from([1, 2, 3]), value: "text with é, ✓ and 𝄞" },
      { key: "k", value: big, offsetDelta: 63, timestampDelta: 64 },
      { key: "k", value: big.subarray(0, 8191), offsetDelta: 64, timestampDelta: -65 },
      { value: "v", offsetDelta: 2 ** 31 - 1, timestampDelta: 2 ** 40 + 3 },
      { value: "v", offsetDelta: -(2 ** 31) + 1, timestampDelta: -(2 ** 45) },
      { value: "v", headers: { a: ["1", Buffer.from("two")], b: [], c: "3" } },
      { value: "v", headers },
      { value: "v", headers: { "ключ": "значение" } },
      { key: "", value: "" }
    ]
    for (const c of cases) same(c)
  })

  it("leaves to kafkajs what it does not take, with kafkajs's result or error", () => {
    const outcome = (f: () => { readonly buffer: Buffer }): string => {
      try {
        return f().buffer.toString("hex")
      } catch (e) {
        return `${(e as Error).name}: ${(e as Error).message}`
      }
    }
    const odd: Array<RecordInput> = [
      { value: "v", timestampDelta: 2 ** 53 },
      { value: "v", timestampDelta: 1.5 },
      { value: "v", headers: { n: 5 } },
      { value: "v", headers: { n: null } },
      { value: 12 as unknown as string }
    ]
    const encode = makeRecordEncoder(reference)
    for (const r of odd) {
      expect(encodeRecordBytes(r)).toBeUndefined()
      expect(outcome(() => encode(r))).toBe(outcome(() => reference(r)))
    }
    expect(outcome(() => encode(odd[0]!))).toMatch(/^[0-9a-f]+$/)
  })

  it("joins encoders as kafkajs's writeEncoderArray does, with the room made once", () => {
    expect(kafkajsJoin).not.toBe(writeEncoderArrayPresized)
    const parts = (sizes: ReadonlyArray<number>) =>
      sizes.map((n, i) => {
        const e = new Encoder()
        e.writeBytes(Buffer.alloc(n, i % 251))
        return e
      })
    for (const sizes of [[], [0], [10, 600, 5], [70_000, 3, 1_000_000], Array.from({ length: 300 }, (_, i) => i * 37)]) {
      const joined = (join: typeof writeEncoderArrayPresized) => {
        const e = new Encoder()
        e.writeInt32(7)
        join.call(e, parts(sizes))
        e.writeString("after") // an encoder grows on after the join as before
        return e.buffer.toString("hex")
      }
      expect(joined(writeEncoderArrayPresized)).toBe(joined(kafkajsJoin))
    }
    const error = (join: typeof writeEncoderArrayPresized) => {
      try {
        join.call(new Encoder(), [new Encoder(), {} as KafkajsEncoder])
        return "none"
      } catch (e) {
        return (e as Error).message
      }
    }
    expect(error(writeEncoderArrayPresized)).toBe(error(kafkajsJoin))
  })

  it("is installed where kafkajs's produce request takes its record encoder", () => {
    const require = createRequire(import.meta.url)
    const produceV3 = "kafkajs/src/protocol/requests/produce/v3/request.js"
    // A test process that already encoded a produce request cannot install it any more: then only the answer is checked.
    const before = require.cache[require.resolve(produceV3)] !== undefined
    const result = installKafkaRecordEncoder()
    expect(result).toBe(before ? "too late" : "installed")
    const used = require("kafkajs/src/protocol/recordBatch/record/v0/index.js") as typeof reference
    if (result === "installed") expect(used).not.toBe(reference)
    expect(Encoder.prototype.writeEncoderArray).toBe(writeEncoderArrayPresized)
    const r = { key: "1", value: Buffer.from("value"), headers: { schema: "1" }, offsetDelta: 3, timestampDelta: 9 }
    expect(used(r).buffer.toString("hex")).toBe(referenceBytes(r).toString("hex"))
  })
})
