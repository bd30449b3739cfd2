/**
 * A chain through the whole pipeline in this process: the producer backfills every masterchain block of `chain` from
 * `source` into topics named after `name`, then a consumer writes them into the test database until every block is
 * marked done. Returns the producer's summary for the caller to check.
 */
import { Effect, Fiber, Layer } from "effect"
import { ClickHouse } from "../../../src/clickhouse/ClickHouse.js"
import { runConsumer } from "../../../src/consumer/BundleConsumer.js"
import { KafkaClient } from "../../../src/kafka/KafkaClient.js"
import { Health } from "../../../src/ops/Health.js"
import { Metrics } from "../../../src/ops/Metrics.js"
import { pipelineDecode } from "../../../src/producer/assemble.js"
import { runProducer } from "../../../src/producer/Producer.js"
import { ClickHouseSink } from "../../../src/sink/ClickHouseSink.js"
import type { Upstream } from "../../../src/source/Upstream.js"
import type { ChainData } from "../../../tools/fake/ChainData.js"
import type { TestClickHouse, TestKafka } from "../integration.js"
import { waitForDone } from "./stored.js"

export const ingestChain = async (opts: {
  readonly tk: TestKafka
  readonly ch: TestClickHouse
  readonly chain: ChainData
  readonly name: string
  readonly source: Layer.Layer<Upstream>
}) => {
  const { tk, ch, chain, name, source } = opts
  const layers = Layer.mergeAll(
    KafkaClient.layerWith({
      brokers: tk.brokers,
      clientId: `pipeline-${name}`,
      topicPrefix: tk.topic(name),
      network: chain.network,
      maxMessageBytes: tk.maxMessageBytes
    }),
    Metrics.layerTest,
    Health.layer
  )
  const summary = await Effect.runPromise(
    runProducer(
      { mode: "backfill", from: chain.first, to: chain.last, progressMs: 0, prefetch: 4, decodeWorkers: 1 },
      pipelineDecode
    ).pipe(Effect.provide(source), Effect.provide(layers))
  )
  const consumer = Effect.runFork(
    runConsumer({ groupId: tk.topic(`${name}-sink`), batchRows: 500, batchMs: 200, progressMs: 0 }).pipe(
      Effect.provide(ClickHouseSink.layer.pipe(Layer.provideMerge(ClickHouse.fromConfig(ch.config)))),
      Effect.provide(layers)
    )
  )
  try {
    if (summary.deadLetters === 0) await waitForDone(ch.client, chain.last - chain.first + 1)
  } finally {
    await Effect.runPromise(Fiber.interrupt(consumer))
  }
  return summary
}
