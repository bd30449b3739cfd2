import { Either } from "effect"
import { describe, expect, it } from "vitest"
import { decodeBundle, encodeBundle, messageMcSeqno } from "../../../src/kafka/codec.js"
import { chunkBySize, produceRequests } from "../../../src/kafka/BundlePublisher.js"
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

  it("sends a Kafka transaction's bundles, dead letters and first records in one produce request", () => {
    const topics = { blocks: "b", deadLetter: "d", transactions: "t" }
    const rec = (key: string, bytes: number) => ({ key, value: Buffer.alloc(bytes), headers: {} })
    const shape = (requests: ReturnType<typeof produceRequests>) =>
      requests.map((r) => r.map((t) => `${t.topic}:${t.messages.map((m) => `${m.key}${"partition" in m ? `@${m.partition}` : ""}`).join(",")}`))
    const bundles = [rec("7", 50), rec("8", 50)]
    const letters = [rec("x", 5)]
    const txs = [rec("a", 10), rec("b", 10), rec("c", 25), rec("d", 5)]
    // One request per transaction where three went before; the records' order within each topic is kept.
    expect(shape(produceRequests(topics, 2, bundles, letters, txs, 1000))).toEqual([["b:7@1,8@0", "d:x@0", "t:a,b,c,d"]])
    // Records past the request size follow in requests of their own, after the one that carries the bundles.
    expect(shape(produceRequests(topics, 1, bundles, [], txs, 20))).toEqual([["b:7@0,8@0", "t:a,b"], ["t:c"], ["t:d"]])
    expect(shape(produceRequests(topics, 1, bundles, letters, [], 20))).toEqual([["b:7@0,8@0", "d:x@0"]])
    expect(shape(produceRequests(topics, 1, [], letters, [], 20))).toEqual([["d:x@0"]])
    expect(produceRequests(topics, 1, [], [], [], 20)).toEqual([])
  })
})
