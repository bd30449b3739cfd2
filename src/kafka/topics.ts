/**
 * The Kafka topics this project owns: their names, partitioning and per-topic limits, and their creation.
 * Invariant: every topic name carries the network and a schema major version; bundle s lives in partition
 * s mod N of the bundle topic (N = 1 by default, so the log order IS masterchain order; with N > 1 each partition is
 * in masterchain order and a Kafka transaction spans them). The transactions topic has `partitions` partitions keyed
 * by account: order holds per account, not across accounts.
 */
import type { Admin, ITopicConfig } from "kafkajs"
import { Duration, Effect, Schedule } from "effect"
import { KafkaError } from "./errors.js"

export interface TopicNames {
  /** One message per masterchain bundle, key = mc seqno. */
  readonly blocks: string
  /** One message per undecodable transaction or block, key = mc seqno. */
  readonly deadLetter: string
  /** One message per transaction (its v3 JSON), key = account in raw form. */
  readonly transactions: string
}

export const topicNames = (prefix: string, network: string): TopicNames => ({
  blocks: `${prefix}.${network}.blocks.v1`,
  deadLetter: `${prefix}.${network}.dead-letter.v1`,
  transactions: `${prefix}.${network}.transactions.v1`
})

export interface TopicLimits {
  /** Largest compressed record batch the topic accepts; must not exceed the broker's own limits. */
  readonly maxMessageBytes: number
  /** -1 keeps bundles forever (a replayable log); otherwise the retention in ms. */
  readonly retentionMs: number
  readonly replicationFactor: number
  /** Partitions of the transactions topic (KAFKA_PARTITIONS); fixed once created, since keys map to partitions. */
  readonly transactionPartitions: number
  /** Partitions of the bundle topic (KAFKA_BLOCK_PARTITIONS, default 1); fixed once created, like the above. */
  readonly blockPartitions?: number
}

/** Default partitions of the transactions topic: enough for a consumer group of a few subscribers to share it. */
export const DEFAULT_TRANSACTION_PARTITIONS = 6

/**
 * One partition for bundles by default: at ~2.5 masterchain blocks per second and a few hundred kB per bundle one
 * partition is far from its limits, and it gives total order without a reordering stage. Several partitions exist
 * for one reason: N ClickHouse sinks in one consumer group (each partition is owned by one of them at a time).
 */
export const BLOCKS_PARTITIONS = 1

/** The partition of the bundle topic that holds masterchain block `mcSeqno`: a pure function of the seqno. */
export const blockPartitionOf = (mcSeqno: number, partitions: number): number => mcSeqno % partitions
export const DEAD_LETTER_PARTITIONS = 1

export const topicSpecs = (names: TopicNames, limits: TopicLimits): Array<ITopicConfig> => {
  const configEntries = [
    { name: "max.message.bytes", value: String(limits.maxMessageBytes) },
    { name: "retention.ms", value: String(limits.retentionMs) },
    { name: "cleanup.policy", value: "delete" },
    // The producer already compresses with gzip; keep its batches as they are rather than recompressing.
    { name: "compression.type", value: "producer" }
  ]
  return [
    {
      topic: names.blocks,
      numPartitions: limits.blockPartitions ?? BLOCKS_PARTITIONS,
      replicationFactor: limits.replicationFactor,
      configEntries
    },
    {
      topic: names.deadLetter,
      numPartitions: DEAD_LETTER_PARTITIONS,
      replicationFactor: limits.replicationFactor,
      configEntries
    },
    {
      topic: names.transactions,
      numPartitions: limits.transactionPartitions,
      replicationFactor: limits.replicationFactor,
      configEntries
    }
  ]
}

/** How long a start waits for topics just created (by it or another process) to appear in a broker's metadata. */
export const METADATA_WAIT_MS = 15_000
const METADATA_RETRY_MS = 200

/** Creates the missing topics and checks that existing ones have the partition count the design relies on. */
export const ensureTopics = (admin: Admin, specs: ReadonlyArray<ITopicConfig>) =>
  Effect.gen(function* () {
    const existing = new Set(
      yield* Effect.tryPromise({
        try: () => admin.listTopics(),
        catch: (e) => KafkaError.from("admin", e)
      })
    )
    const missing = specs.filter((s) => !existing.has(s.topic))
    if (missing.length > 0) {
      yield* Effect.tryPromise({
        try: () => admin.createTopics({ topics: [...missing], waitForLeaders: true }),
        catch: (e) => KafkaError.from("admin", e)
      }).pipe(
        // Another process may have created them between listing and creating.
        Effect.catchIf(
          (e) => e.message.includes("already exists"),
          () => Effect.void
        )
      )
    }
    const metadata = yield* Effect.tryPromise({
      try: () => admin.fetchTopicMetadata({ topics: specs.map((s) => s.topic) }),
      catch: (e) => KafkaError.from("admin", e)
    }).pipe(
      // Topics another process has just created (several producers or a producer and a consumer starting together on
      // a new cluster) may not be in the answering broker's metadata yet: UNKNOWN_TOPIC_OR_PARTITION and the like,
      // which kafkajs marks retriable, are asked again for up to METADATA_WAIT_MS.
      Effect.retry({
        while: (e) => e.retriable === true,
        schedule: Schedule.spaced(Duration.millis(METADATA_RETRY_MS)).pipe(
          Schedule.intersect(Schedule.recurs(Math.ceil(METADATA_WAIT_MS / METADATA_RETRY_MS)))
        )
      })
    )
    for (const spec of specs) {
      const topic = metadata.topics.find((t) => t.name === spec.topic)
      if (topic === undefined || topic.partitions.length !== spec.numPartitions) {
        return yield* new KafkaError({
          reason: "admin",
          message: `topic ${spec.topic} has ${topic?.partitions.length ?? 0} partitions, expected ${spec.numPartitions}`
        })
      }
    }
  })
