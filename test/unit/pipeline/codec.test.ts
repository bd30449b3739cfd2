import { Either } from "effect"
import { describe, expect, it } from "vitest"
import { decodeBundle, encodeBundle, messageMcSeqno } from "../../../src/kafka/codec.js"
import { chunkBySize } from "../../../src/kafka/BundlePublisher.js"
import { topicNames, topicSpecs } from "../../../src/kafka/topics.js"
import { bundle, msg, tx } from "./records.js"

describe("bundle codec", () => {
  it("round-trips a bundle and exposes mc seqno in key and headers", () => {
    const b = bundle(42, [tx("a", 1, msg("e", "ext_in"))])
    const m = encodeBundle(b, 3)
    expect(m.key).toBe("42")
    expect(m.headers["mc_seqno"]).toBe("42")
    expect(m.headers["dead_letters"]).toBe("3")
    expect(messageMcSeqno({ key: null, headers: { mc_seqno: Buffer.from("42") } })).toBe(42)
    expect(Either.getOrThrow(decodeBundle(m.value))).toEqual(b)
    expect(encodeBundle(b, 3).value.equals(m.value)).toBe(true)
  })

  it("refuses unknown schema versions and malformed values", () => {
    const v2 = Buffer.from(JSON.stringify({ ...bundle(1), schema_version: 2 }))
    expect(Either.getLeft(decodeBundle(v2)).pipe((l) => l._tag === "Some" && l.value.reason)).toBe("version")
    expect(Either.isLeft(decodeBundle(Buffer.from("{")))).toBe(true)
    expect(Either.isLeft(decodeBundle(Buffer.from(JSON.stringify({ schema_version: 1 }))))).toBe(true)
  })
})

describe("topics", () => {
  it("names carry network and version; bundles get one partition, transactions the configured count", () => {
    const names = topicNames("ton", "mainnet")
    expect(names).toEqual({
      blocks: "ton.mainnet.blocks.v1",
      deadLetter: "ton.mainnet.dead-letter.v1",
      transactions: "ton.mainnet.transactions.v1"
    })
    const specs = topicSpecs(names, {
      maxMessageBytes: 1000,
      retentionMs: -1,
      replicationFactor: 1,
      transactionPartitions: 6
    })
    const blocks = specs.find((s) => s.topic === names.blocks)
    expect(blocks!.numPartitions).toBe(1)
    expect(specs.find((s) => s.topic === names.deadLetter)!.numPartitions).toBe(1)
    expect(specs.find((s) => s.topic === names.transactions)!.numPartitions).toBe(6)
    expect(blocks!.configEntries).toContainEqual({ name: "max.message.bytes", value: "1000" })
  })

  it("chunks produce requests by size, never leaving an oversized item out", () => {
    const items = [10, 10, 25, 5, 5].map((n) => ({ value: Buffer.alloc(n) }))
    expect(chunkBySize(items, 20).map((c) => c.map((i) => i.value.length))).toEqual([[10, 10], [25], [5, 5]])
  })
})
