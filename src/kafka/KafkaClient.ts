/**
 * The Kafka client service: one kafkajs client per process, with the project's topics ensured before anyone
 * produces or consumes. Invariant: no producer or consumer of this project runs against a topic it did not create
 * (the broker has auto-creation off, and a wrongly partitioned topic would break total order).
 */
import { Context, Duration, Effect, Layer } from "effect"
import { Kafka, logLevel, type Admin } from "kafkajs"
import { DEFAULT_KAFKA_COMPRESSION, KafkaConfig, NetworkConfig, type KafkaCompression, type KafkaSettings } from "../config.js"
import { installKafkaCodecs } from "./compression.js"
import { installKafkaRecordEncoder } from "./recordEncoder.js"
import { installKafkaProduceRequest } from "./produceRequest.js"
import { KafkaBrokers } from "../infra/KafkaBrokers.js"
import { STARTUP_DEADLINE_MS } from "./deadline.js"
import { KafkaError } from "./errors.js"
import { DEFAULT_TRANSACTION_PARTITIONS, ensureTopics, topicNames, topicSpecs, type TopicNames } from "./topics.js"

export interface KafkaClientShape {
  readonly kafka: Kafka
  readonly topics: TopicNames
  readonly network: string
  /** Largest record the project produces and consumes (broker, topic, producer and fetch limits agree on it). */
  readonly maxMessageBytes: number
  readonly clientId: string
  /** Partitions of the bundle topic; bundle s lives in partition `blockPartitionOf(s, blockPartitions)`. */
  readonly blockPartitions: number
  /** Record-batch codec of what this process publishes. */
  readonly compression: KafkaCompression
}

export interface KafkaClientOptions {
  readonly brokers: ReadonlyArray<string>
  readonly clientId: string
  readonly topicPrefix: string
  readonly network: string
  readonly maxMessageBytes: number
  /** Partitions of the transactions topic (default DEFAULT_TRANSACTION_PARTITIONS). */
  readonly partitions?: number
  /** Partitions of the bundle topic (default 1). */
  readonly blockPartitions?: number
  /** Replicas of each topic created (default 1). */
  readonly replicationFactor?: number
  /** -1 keeps the log forever (default): resume and replays read it. */
  readonly retentionMs?: number
  /** Record-batch codec of what this process publishes (default DEFAULT_KAFKA_COMPRESSION). */
  readonly compression?: KafkaCompression
}

export const optionsFromSettings = (settings: KafkaSettings, network: string): KafkaClientOptions => ({
  brokers: settings.brokers,
  clientId: settings.clientId,
  topicPrefix: settings.topicPrefix,
  network,
  maxMessageBytes: settings.maxMessageBytes,
  partitions: settings.partitions,
  blockPartitions: settings.blockPartitions,
  replicationFactor: settings.replicationFactor,
  compression: settings.compression
})

export const withAdmin = <A, E>(kafka: Kafka, use: (admin: Admin) => Effect.Effect<A, E>) =>
  Effect.acquireUseRelease(
    Effect.tryPromise({
      try: async () => {
        const admin = kafka.admin()
        await admin.connect()
        return admin
      },
      catch: (e) => KafkaError.from("connect", e)
    }),
    use,
    (admin) => Effect.promise(() => admin.disconnect().catch(() => undefined))
  )

export const makeKafkaClient = (options: KafkaClientOptions) =>
  Effect.gen(function* () {
    if (options.brokers.length === 0) {
      return yield* new KafkaError({ reason: "connect", message: "no Kafka brokers configured" })
    }
    installKafkaCodecs()
    if (installKafkaRecordEncoder() === "too late") {
      yield* Effect.logWarning("kafkajs's produce request was loaded before the faster record encoder: records keep kafkajs's encoder")
    }
    if (installKafkaProduceRequest() === "too late") {
      yield* Effect.logWarning("kafkajs's produce request was loaded before the exact-size one: requests keep kafkajs's encoding")
    }
    const kafka = new Kafka({
      clientId: options.clientId,
      brokers: [...options.brokers],
      // kafkajs logs every reconnect at ERROR; reconnects are expected (broker restarts) and retried by us.
      logLevel: logLevel.NOTHING,
      connectionTimeout: 5_000,
      requestTimeout: 60_000,
      retry: { retries: 10, initialRetryTime: 200, maxRetryTime: 5_000 }
    })
    const topics = topicNames(options.topicPrefix, options.network)
    yield* withAdmin(kafka, (admin) =>
      ensureTopics(
        admin,
        topicSpecs(topics, {
          maxMessageBytes: options.maxMessageBytes,
          retentionMs: options.retentionMs ?? -1,
          replicationFactor: options.replicationFactor ?? 1,
          transactionPartitions: options.partitions ?? DEFAULT_TRANSACTION_PARTITIONS,
          blockPartitions: options.blockPartitions ?? 1
        })
      ).pipe(
        Effect.timeoutFail({
          duration: Duration.millis(STARTUP_DEADLINE_MS),
          onTimeout: () =>
            new KafkaError({ reason: "admin", message: `ensuring topics: no answer within ${STARTUP_DEADLINE_MS} ms` })
        })
      )
    )
    return {
      kafka,
      topics,
      network: options.network,
      maxMessageBytes: options.maxMessageBytes,
      clientId: options.clientId,
      blockPartitions: options.blockPartitions ?? 1,
      compression: options.compression ?? DEFAULT_KAFKA_COMPRESSION
    } satisfies KafkaClientShape
  })

export class KafkaClient extends Context.Tag("ton-exporter/KafkaClient")<KafkaClient, KafkaClientShape>() {
  /** KAFKA_* settings over the brokers the KafkaBrokers service found or started. */
  static readonly layerNoDeps = Layer.effect(
    KafkaClient,
    Effect.gen(function* () {
      const settings = yield* KafkaConfig
      const network = yield* NetworkConfig
      const { brokers } = yield* KafkaBrokers
      return yield* makeKafkaClient(optionsFromSettings({ ...settings, brokers }, network))
    })
  )

  /** Live: KAFKA_BROKERS, or the local broker started for the layer's lifetime. */
  static readonly layer = KafkaClient.layerNoDeps.pipe(Layer.provide(KafkaBrokers.layer))

  static readonly layerWith = (options: KafkaClientOptions) => Layer.effect(KafkaClient, makeKafkaClient(options))
}
