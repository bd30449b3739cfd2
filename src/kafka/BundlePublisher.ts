/**
 * Transactional publishing of masterchain bundles, their transactions' records and their dead letters. One Kafka
 * transaction carries a run of consecutive bundles plus their transaction records and dead letters, so a
 * read_committed subscriber sees a masterchain block whole (on every topic) or not at all. Invariant: one live publisher per transactional id; starting one
 * fences (and aborts the open transaction of) any earlier instance, killed or not.
 */
import { Context, Effect, Layer, Option } from "effect"
import type { Producer } from "kafkajs"
import { compressionType } from "./compression.js"
import { encodeDeadLetter, type DeadLetter, type EncodedMessage } from "./codec.js"
import { STARTUP_DEADLINE_MS, withDeadline } from "./deadline.js"
import { KafkaError } from "./errors.js"
import { KafkaClient } from "./KafkaClient.js"
import { keyPartitioner } from "./partitioner.js"
import { lastCommittedSeqno } from "./tail.js"
import { blockPartitionOf } from "./topics.js"

export interface PublishItem {
  /**
   * The bundle's record as `encodeBundle` made it (the producer encodes where it decodes, possibly on a worker
   * thread); null when the whole masterchain block is dead-lettered (upstream could not deliver it usably).
   */
  readonly bundle: EncodedMessage | null
  readonly deadLetters: ReadonlyArray<DeadLetter>
  /** The bundle's records for the transactions topic (keyed by account; the partitioner spreads them). */
  readonly transactions?: ReadonlyArray<EncodedMessage>
}

export interface BundlePublisherShape {
  readonly transactionalId: string
  /** The last mc seqno durably committed to the bundle topic by anyone (none when the topic is empty). */
  readonly lastCommitted: Effect.Effect<Option.Option<number>, KafkaError>
  /** Publishes the items in order, in as few transactions as the size limit allows; all-or-nothing per transaction. */
  readonly publish: (items: ReadonlyArray<PublishItem>) => Effect.Effect<void, KafkaError>
}

/** Splits encoded bundles so that no produce request carries more than `limit` uncompressed bytes (one at least). */
export const chunkBySize = <A extends { readonly value: { readonly length: number } }>(items: ReadonlyArray<A>, limit: number) => {
  const chunks: Array<Array<A>> = []
  let current: Array<A> = []
  let bytes = 0
  for (const item of items) {
    if (current.length > 0 && bytes + item.value.length > limit) {
      chunks.push(current)
      current = []
      bytes = 0
    }
    current.push(item)
    bytes += item.value.length
  }
  if (current.length > 0) chunks.push(current)
  return chunks
}

/** Uncompressed bytes of transaction records per produce request: far below any record batch limit. */
const TRANSACTION_REQUEST_BYTES = 4 * 1024 * 1024

const toKafka = (m: EncodedMessage, partition?: number) => ({
  key: m.key,
  value: m.value,
  headers: m.headers,
  ...(partition === undefined ? {} : { partition })
})

type KafkaMessage = ReturnType<typeof toKafka>

// Functions of the module rather than closures made per request or per block: V8 keeps a closure's optimized code
// only while a closure made at that site lives, so per-call closures were compiled again after full collections.
const toKafkaRecord = (m: EncodedMessage): KafkaMessage => toKafka(m)

const valueBytes = (records: ReadonlyArray<EncodedMessage>): number => {
  let n = 0
  for (let i = 0; i < records.length; i++) n += records[i]!.value.length
  return n
}

/** One produce request of a Kafka transaction: the records of each topic it writes to. */
export type ProduceRequest = Array<{ readonly topic: string; readonly messages: Array<KafkaMessage> }>

/**
 * The produce requests of one Kafka transaction. The bundles, the dead letters and the first `requestBytes` of
 * transaction records share one request, the rest of the transaction records follow in requests of that size:
 * each request is a partition registration with the coordinator and a produce round trip (and, on brokers that
 * verify transactional partitions, a check of its own), so one request where there were three saves two of each
 * per transaction. A read_committed subscriber sees none of it before the commit, so the order of the requests
 * within the transaction is nobody's concern; the order of each partition's records is kept.
 */
export const produceRequests = (
  topics: { readonly blocks: string; readonly deadLetter: string; readonly transactions: string },
  blockPartitions: number,
  bundles: ReadonlyArray<EncodedMessage>,
  letters: ReadonlyArray<EncodedMessage>,
  transactions: ReadonlyArray<EncodedMessage>,
  requestBytes: number
): Array<ProduceRequest> => {
  const first: ProduceRequest = []
  // Bundles go to the partition their seqno names (0 with the default single partition), never to the key hash.
  if (bundles.length > 0) {
    first.push({
      topic: topics.blocks,
      messages: bundles.map((b) => toKafka(b, blockPartitionOf(Number(b.key), blockPartitions)))
    })
  }
  if (letters.length > 0) first.push({ topic: topics.deadLetter, messages: letters.map((l) => toKafka(l, 0)) })
  const requests: Array<ProduceRequest> = []
  for (const part of chunkBySize(transactions, requestBytes)) {
    const records = { topic: topics.transactions, messages: part.map(toKafkaRecord) }
    if (requests.length === 0) requests.push([...first, records])
    else requests.push([records])
  }
  if (requests.length === 0 && first.length > 0) requests.push(first)
  return requests
}

/** `range`: the backfill range this publisher fills, so that its resume point ignores other producers' ranges. */
export const makeBundlePublisher = (transactionalId: string, range?: { readonly from: number; readonly to: number }) =>
  Effect.gen(function* () {
    const client = yield* KafkaClient
    const producer: Producer = yield* Effect.acquireRelease(
      Effect.tryPromise({
        try: async () => {
          const p = client.kafka.producer({
            transactionalId,
            idempotent: true,
            maxInFlightRequests: 1,
            allowAutoTopicCreation: false,
            transactionTimeout: 60_000,
            // kafkajs's default partitioner, its murmur2 in 32-bit arithmetic: the same partition per account
            createPartitioner: keyPartitioner
          })
          try {
            await withDeadline("connecting the producer", STARTUP_DEADLINE_MS, () => p.connect())
            // Initialising the transactional id is what fences a previous instance; do it before anyone asks for
            // the last committed bundle, so that answer cannot change under us.
            await withDeadline(`fencing transactional id ${transactionalId}`, STARTUP_DEADLINE_MS, async () => {
              const fence = await p.transaction()
              await fence.abort()
            })
          } catch (e) {
            await p.disconnect().catch(() => undefined)
            throw e
          }
          return p
        },
        catch: (e) => KafkaError.from("connect", e)
      }),
      (p) => Effect.promise(() => p.disconnect().catch(() => undefined))
    )

    const recordBatchBytes = Math.floor(client.maxMessageBytes / 2)
    const compression = compressionType(client.compression)
    const sendTransaction = (
      bundles: ReadonlyArray<EncodedMessage>,
      letters: ReadonlyArray<EncodedMessage>,
      transactions: ReadonlyArray<EncodedMessage>
    ) =>
      bundles.length === 0 && letters.length === 0 && transactions.length === 0 ? Effect.void : Effect.tryPromise({
        try: async () => {
          const tx = await producer.transaction()
          try {
            // `publish` already bounded the bundles' size below the record batch limit.
            const requests = produceRequests(
              client.topics,
              client.blockPartitions,
              bundles,
              letters,
              transactions,
              Math.min(recordBatchBytes, TRANSACTION_REQUEST_BYTES)
            )
            for (const topicMessages of requests) await tx.sendBatch({ topicMessages, compression, acks: -1 })
            await tx.commit()
          } catch (e) {
            await tx.abort().catch(() => undefined)
            throw e
          }
        },
        catch: (e) => KafkaError.from("send", e)
      })

    const publish = (items: ReadonlyArray<PublishItem>) =>
      Effect.gen(function* () {
        const encoded = items.map((item) => {
          const transactions = item.transactions ?? []
          // Sized by everything the block puts in the transaction, so that a run of big blocks is split.
          const bytes = (item.bundle?.value.length ?? 0) + valueBytes(transactions)
          return {
            value: { length: bytes },
            bundle: item.bundle,
            letters: item.deadLetters.map(encodeDeadLetter),
            transactions
          }
        })
        for (const chunk of chunkBySize(encoded, recordBatchBytes)) {
          yield* sendTransaction(
            chunk.flatMap((c) => (c.bundle === null ? [] : [c.bundle])),
            chunk.flatMap((c) => c.letters),
            chunk.flatMap((c) => c.transactions)
          )
        }
      })

    return {
      transactionalId,
      lastCommitted: lastCommittedSeqno(client.kafka, client.topics.blocks, client.maxMessageBytes, range),
      publish
    } satisfies BundlePublisherShape
  })

export class BundlePublisher extends Context.Tag("BundlePublisher")<BundlePublisher, BundlePublisherShape>() {
  /** Transactional id `<client id>.<network>.producer`: every producer of one network fences its predecessor. */
  static readonly layer = Layer.scoped(
    BundlePublisher,
    Effect.flatMap(KafkaClient, (client) => makeBundlePublisher(`${client.clientId}.${client.network}.producer`))
  )

  static readonly layerWithId = (transactionalId: string) =>
    Layer.scoped(BundlePublisher, makeBundlePublisher(transactionalId))
}
