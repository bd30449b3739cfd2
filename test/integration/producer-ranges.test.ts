// Backfill as several producers over disjoint masterchain ranges, on the real broker with a partitioned bundle topic:
// two producers publish the two halves of a generated chain (splits and merges) side by side; the topics then hold
// every block once and exactly the transaction records one producer over the whole chain writes (trace ids crossing
// the boundary included, learned from the blocks before the second range); a restarted producer resumes within its
// own range although the other range was published after it.
import { Effect, Layer } from "effect"
import { Kafka, logLevel } from "kafkajs"
import { installKafkaCodecs } from "../../src/kafka/compression.js"
import { describe, expect, it } from "vitest"
import { messageMcSeqno } from "../../src/kafka/codec.js"
import { KafkaClient } from "../../src/kafka/KafkaClient.js"
import { blockPartitionOf, topicNames } from "../../src/kafka/topics.js"
import { Health } from "../../src/ops/Health.js"
import { Metrics } from "../../src/ops/Metrics.js"
import { pipelineDecode } from "../../src/producer/assemble.js"
import { runProducer } from "../../src/producer/Producer.js"
import { Upstream } from "../../src/source/Upstream.js"
import { chainStats } from "../../tools/fake/ChainData.js"
import { generateChain } from "../../tools/fake/generate.js"
import { testKafka } from "../support/integration.js"
import { chainUpstream, expectedFrom } from "../support/pipeline/chainUpstream.js"
import { chaosChainOptions } from "../support/pipeline/chaosChain.js"

const chain = generateChain(chaosChainOptions(53, 20))
const PARTITIONS = 3

interface Record {
  readonly partition: number
  readonly key: string
  readonly value: string
  readonly mcSeqno: number | undefined
}

/** Everything committed in `topic`, read until `count` records arrived and nothing more came for a while. */
const readAll = async (brokers: ReadonlyArray<string>, topic: string, count: number): Promise<Array<Record>> => {
  // The producer writes KAFKA_COMPRESSION (zstd by default): this plain kafkajs reader needs the codecs.
  installKafkaCodecs()
  const kafka = new Kafka({ brokers: [...brokers], clientId: "ranges-reader", logLevel: logLevel.NOTHING })
  const consumer = kafka.consumer({ groupId: `${topic}-reader-${Date.now()}`, readUncommitted: false })
  const out: Array<Record> = []
  await consumer.connect()
  await consumer.subscribe({ topic, fromBeginning: true })
  await consumer.run({
    eachMessage: async ({ partition, message }) => {
      out.push({
        partition,
        key: message.key?.toString() ?? "",
        value: message.value?.toString("utf8") ?? "",
        mcSeqno: messageMcSeqno(message)
      })
    }
  })
  const deadline = Date.now() + 90_000
  while (out.length < count && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200))
  await new Promise((r) => setTimeout(r, 2_000))
  await consumer.disconnect()
  return out
}

describe("backfill by several producers over disjoint ranges", () => {
  const tk = testKafka("producer-ranges")

  it("publishes every block once and the records one producer would, and resumes within its range", { timeout: 300_000 }, async () => {
    const stats = chainStats(chain)
    expect(stats.splitChildren).toBeGreaterThan(0)
    expect(stats.merges).toBeGreaterThan(0)
    const expected = expectedFrom(chain)
    const mid = chain.first + 9

    const layersFor = (prefix: string) =>
      Layer.mergeAll(
        KafkaClient.layerWith({
          brokers: tk.brokers,
          clientId: "ranges",
          topicPrefix: prefix,
          network: chain.network,
          maxMessageBytes: tk.maxMessageBytes,
          blockPartitions: PARTITIONS
        }),
        Layer.succeed(Upstream, chainUpstream(chain)),
        Metrics.layerTest,
        Health.layer
      )
    const backfill = (prefix: string, from: number, to: number, learnBlocks = 0) =>
      Effect.runPromise(
        runProducer(
          { mode: "backfill", from, to, progressMs: 0, prefetch: 2, maxBundlesPerTransaction: 2, learnBlocks },
          pipelineDecode
        ).pipe(Effect.provide(layersFor(prefix)))
      )

    const single = tk.topic("single")
    await backfill(single, chain.first, chain.last)

    const split = tk.topic("split")
    const [low, high] = await Promise.all([backfill(split, chain.first, mid), backfill(split, mid + 1, chain.last, 256)])
    expect(low).toMatchObject({ first: chain.first, last: mid })
    expect(high).toMatchObject({ first: mid + 1, last: chain.last })
    // The low range again: its last block is in the topic, though the high range may have been published after it.
    expect(await backfill(split, chain.first, mid)).toMatchObject({ bundles: 0 })

    const names = (prefix: string) => topicNames(prefix, chain.network)
    const blocks = await readAll(tk.brokers, names(split).blocks, expected.mcSeqnos.length)
    expect(blocks.map((b) => b.mcSeqno).sort((a, b) => a! - b!)).toEqual(expected.mcSeqnos)
    for (const b of blocks) expect(b.partition).toBe(blockPartitionOf(b.mcSeqno!, PARTITIONS))

    const [one, two] = await Promise.all([
      readAll(tk.brokers, names(single).transactions, expected.txHashes.length),
      readAll(tk.brokers, names(split).transactions, expected.txHashes.length)
    ])
    expect(one).toHaveLength(expected.txHashes.length)
    const canon = (rs: ReadonlyArray<Record>) => rs.map((r) => `${r.partition}|${r.key}|${r.value}`).sort()
    expect(canon(two)).toEqual(canon(one))
  })
})
