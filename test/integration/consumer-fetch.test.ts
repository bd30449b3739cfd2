// The consumer's fetches on the real broker and ClickHouse engine: bundles published one uncompressed record batch
// each come to the consumer in fetches of at most its fetch bound, and batches that fill in the middle of a fetch
// store exactly the chain's blocks and transactions, each once, with the group's offset committed one past the last
// record; a batch bounded by bytes holds at most its bound (a record larger than it alone), never its bound and one
// record more.
import { Effect, Fiber, Layer } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { ClickHouse } from "../../src/clickhouse/ClickHouse.js"
import { type ConsumerRun, runConsumer } from "../../src/consumer/BundleConsumer.js"
import { encodeBundle, type EncodedMessage } from "../../src/kafka/codec.js"
import { KafkaClient } from "../../src/kafka/KafkaClient.js"
import { Health } from "../../src/ops/Health.js"
import { makeMetrics, Metrics } from "../../src/ops/Metrics.js"
import { assembleBundle, pipelineDecode } from "../../src/producer/assemble.js"
import { ClickHouseSink, makeClickHouseSink } from "../../src/sink/ClickHouseSink.js"
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

  /** The chain's bundle records as the producer publishes them, by masterchain seqno. */
  const chainRecords = () => {
    const records = new Map<number, EncodedMessage>()
    for (let s = chain.first; s <= chain.last; s++) {
      records.set(s, encodeBundle(assembleBundle(rawBundle(chain, s)!, chain.network, pipelineDecode).bundle, 0))
    }
    return records
  }

  /** The run's brokers under a topic prefix of this test's own, with the metrics and health the consumer needs. */
  const kafkaLayers = (clientId: string, prefix: string, metrics = makeMetrics(false)) =>
    Layer.mergeAll(
      KafkaClient.layerWith({
        brokers: tk.brokers,
        clientId,
        topicPrefix: tk.topic(prefix),
        network: chain.network,
        maxMessageBytes: tk.maxMessageBytes,
        compression: "none"
      }),
      Layer.succeed(Metrics, metrics),
      Health.layer
    )

  /** Publishes the records to the bundle topic, one send (one record batch) each; returns the topic. */
  const publish = (layers: ReturnType<typeof kafkaLayers>, records: ReadonlyArray<EncodedMessage>) =>
    Effect.runPromise(
      Effect.provide(
        Effect.gen(function* () {
          const client = yield* KafkaClient
          const producer = client.kafka.producer()
          yield* Effect.promise(async () => {
            await producer.connect()
            for (const r of records) await producer.send({ topic: client.topics.blocks, messages: [{ ...r }] })
            await producer.disconnect()
          })
          return client.topics.blocks
        }),
        layers
      )
    )

  /**
   * Runs the consumer with `sink` over `db` until every masterchain block of the chain is stored, stops it, and checks
   * that the store holds the chain's blocks and transactions, each once.
   */
  const consumeChain = async (
    run: ConsumerRun,
    sink: typeof ClickHouseSink.layer,
    layers: ReturnType<typeof kafkaLayers>,
    db: TestClickHouse
  ) => {
    const consumer = Effect.runFork(
      runConsumer(run).pipe(
        Effect.provide(sink.pipe(Layer.provideMerge(ClickHouse.fromConfig(db.config)))),
        Effect.provide(layers)
      )
    )
    const expected = expectedFrom(chain)
    try {
      await waitForDone(db.client, expected.mcSeqnos.length)
    } finally {
      await Effect.runPromise(Fiber.interrupt(consumer))
    }
    const stored = await readStored(db.client)
    expect(stored.done).toEqual(expected.mcSeqnos.map(String))
    expect(stored.blocks).toEqual(expected.blocks)
    expect(stored.txHashes).toEqual(expected.txHashes)
    return expected
  }

  const title = "brings at most the bound per fetch and stores every block once, offsets committed to the end"
  it(title, { timeout: 180_000 }, async () => {
    const records = [...chainRecords().values()]
    const sizes = records.map((r) => r.value.length)
    // The premise: every record fits a fetch alone (a larger one would come whole), and all of them do not.
    expect(Math.max(...sizes)).toBeLessThan(FETCH_BYTES / 2)
    const total = sizes.reduce((a, b) => a + b, 0)
    expect(total).toBeGreaterThan(4 * FETCH_BYTES)

    const metrics = makeMetrics(false)
    const layers = kafkaLayers("consumer-fetch", "p", metrics)
    const groupId = tk.topic("group")
    const run = <A, E>(eff: Effect.Effect<A, E, KafkaClient>) => Effect.runPromise(Effect.provide(eff, layers))
    // One send per bundle: each its own record batch, which a fetch bound can split between fetches.
    const topic = await publish(layers, records)

    // A batch of 100 rows fills within a fetch of several bundles.
    const settings: ConsumerRun = { groupId, batchRows: 100, batchMs: 200, fetchBytes: FETCH_BYTES, progressMs: 0 }
    await consumeChain(settings, ClickHouseSink.layer, layers, ch)

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

  it("writes batches of at most their byte bound, a larger record alone", { timeout: 180_000 }, async () => {
    const db = await testClickHouse("consumer_batch_bytes")
    try {
      const records = chainRecords()
      const sizes = [...records.values()].map((r) => r.value.length)
      // A bound of one and a half times the largest record: most batches take two records or three, and a batch
      // that took one more past the bound would be over it.
      const largest = Math.max(...sizes)
      const batchBytes = Math.floor(largest * 1.5)
      expect(sizes.filter((n) => n * 2 > batchBytes).length).toBeGreaterThan(0)

      const layers = kafkaLayers("consumer-batch-bytes", "b")
      await publish(layers, [...records.values()])
      // The sink as the consumer uses it, each write's bundles noted.
      const writes: Array<ReadonlyArray<number>> = []
      const noting = Layer.effect(
        ClickHouseSink,
        Effect.map(makeClickHouseSink(), (sink) => ({
          ...sink,
          write: (...args: Parameters<typeof sink.write>) => {
            writes.push(args[0].map((i) => i.bundle.mc_seqno))
            return sink.write(...args)
          }
        }))
      )
      const settings: ConsumerRun = {
        groupId: tk.topic("batch-bytes"),
        batchRows: 1_000_000,
        batchMs: 2_000,
        batchBytes,
        progressMs: 0
      }
      const expected = await consumeChain(settings, noting, layers, db)
      const bytesOf = (seqnos: ReadonlyArray<number>) => seqnos.reduce((n, s) => n + records.get(s)!.value.length, 0)
      // Every batch, cut by bytes or by time, within the bound, never past it; a record larger than it alone.
      expect(writes.length).toBeGreaterThan(3)
      for (const w of writes) {
        expect(w.length === 1 || bytesOf(w) <= batchBytes, `batch ${w.join(",")}: ${bytesOf(w)} bytes`).toBe(true)
      }
      expect(writes.flat().sort((a, b) => a - b)).toEqual(expected.mcSeqnos)
    } finally {
      await db.close()
    }
  })
})
