// The consumer's fetches on the real broker and ClickHouse engine: bundles published one uncompressed record batch
// each come to the consumer in fetches of at most its fetch bound, and batches that fill in the middle of a fetch
// store exactly the chain's blocks and transactions, each once, with the group's offset committed one past the last
// record.
import { Effect, Fiber, Layer } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { ClickHouse } from "../../src/clickhouse/ClickHouse.js"
import { runConsumer } from "../../src/consumer/BundleConsumer.js"
import { encodeBundle, type EncodedMessage } from "../../src/kafka/codec.js"
import { KafkaClient } from "../../src/kafka/KafkaClient.js"
import { Health } from "../../src/ops/Health.js"
import { makeMetrics, Metrics } from "../../src/ops/Metrics.js"
import { assembleBundle, pipelineDecode } from "../../src/producer/assemble.js"
import { ClickHouseSink } from "../../src/sink/ClickHouseSink.js"
import { generateChain } from "../../tools/fake/generate.js"
import { testClickHouse, testKafka, type TestClickHouse } from "../support/integration.js"
import { expectedFrom, rawBundle } from "../support/pipeline/chainUpstream.js"
import { readStored, waitForDone } from "../support/pipeline/stored.js"

/** One of the fetched-bytes histogram's bucket bounds (src/ops/Metrics.ts), so the test can read "at most". */
const FETCH_BYTES = 262_144

describe("consumer: fetches bounded in bytes", () => {
  const tk = testKafka("consumer-fetch")
  let ch: TestClickHouse
  const chain = generateChain({
    seed: 23,
    mcBlocks: 36,
    txPerBlock: 2,
    initialShards: 2,
    maxShards: 4,
    splitChance: 0.3,
    mergeChance: 0.3,
    maxBlocksPerShard: 2,
    fixtures: false,
    network: "testnet"
  })

  beforeAll(async () => {
    ch = await testClickHouse("consumer_fetch")
  })
  afterAll(async () => {
    await ch?.close()
  })

  const title = "brings at most the bound per fetch and stores every block once, offsets committed to the end"
  it(title, { timeout: 180_000 }, async () => {
    const records: Array<EncodedMessage> = []
    for (let s = chain.first; s <= chain.last; s++) {
      records.push(encodeBundle(assembleBundle(rawBundle(chain, s)!, chain.network, pipelineDecode).bundle, 0))
    }
    const sizes = records.map((r) => r.value.length)
    // The premise: every record fits a fetch alone (a larger one would come whole), and all of them do not.
    expect(Math.max(...sizes)).toBeLessThan(FETCH_BYTES / 2)
    const total = sizes.reduce((a, b) => a + b, 0)
    expect(total).toBeGreaterThan(4 * FETCH_BYTES)

    const metrics = makeMetrics(false)
    const layers = Layer.mergeAll(
      KafkaClient.layerWith({
        brokers: tk.brokers,
        clientId: "consumer-fetch",
        topicPrefix: tk.topic("p"),
        network: chain.network,
        maxMessageBytes: tk.maxMessageBytes,
        compression: "none"
      }),
      Layer.succeed(Metrics, metrics),
      Health.layer
    )
    const groupId = tk.topic("group")
    const run = <A, E>(eff: Effect.Effect<A, E, KafkaClient>) => Effect.runPromise(Effect.provide(eff, layers))
    const topic = await run(
      Effect.gen(function* () {
        const client = yield* KafkaClient
        const producer = client.kafka.producer()
        yield* Effect.promise(async () => {
          await producer.connect()
          // One send per bundle: each its own record batch, which a fetch bound can split between fetches.
          for (const r of records) await producer.send({ topic: client.topics.blocks, messages: [{ ...r }] })
          await producer.disconnect()
        })
        return client.topics.blocks
      })
    )

    const consumer = Effect.runFork(
      // A batch of 100 rows fills within a fetch of several bundles.
      runConsumer({ groupId, batchRows: 100, batchMs: 200, fetchBytes: FETCH_BYTES, progressMs: 0 }).pipe(
        Effect.provide(ClickHouseSink.layer.pipe(Layer.provideMerge(ClickHouse.fromConfig(ch.config)))),
        Effect.provide(layers)
      )
    )
    const expected = expectedFrom(chain)
    try {
      await waitForDone(ch.client, expected.mcSeqnos.length)
    } finally {
      await Effect.runPromise(Fiber.interrupt(consumer))
    }

    const stored = await readStored(ch.client)
    expect(stored.done).toEqual(expected.mcSeqnos.map(String))
    expect(stored.blocks).toEqual(expected.blocks)
    expect(stored.txHashes).toEqual(expected.txHashes)

    const fetched = (await metrics.consumerFetchedBytes.get()).values
    const count = fetched.find((v) => v.metricName?.endsWith("_count"))!.value
    const withinBound = fetched.find((v) => v.metricName?.endsWith("_bucket") && v.labels.le === FETCH_BYTES)!.value
    expect(count).toBeGreaterThanOrEqual(total / FETCH_BYTES)
    expect(withinBound).toBe(count)

    const committed = await run(
      Effect.gen(function* () {
        const client = yield* KafkaClient
        const admin = client.kafka.admin()
        return yield* Effect.promise(async () => {
          await admin.connect()
          try {
            return await admin.fetchOffsets({ groupId, topics: [topic] })
          } finally {
            await admin.disconnect()
          }
        })
      })
    )
    expect(committed[0]!.partitions.map((p) => p.offset)).toEqual([String(records.length)])
  })
})
