/**
 * Reads the end of the bundle topic as a read_committed subscriber sees it: the mc seqno of the last bundle whose
 * transaction committed. Invariant: bundles of aborted or still-open transactions are never reported, so a producer
 * resuming after the returned seqno neither skips nor repeats anything a subscriber can see. With several partitions
 * each is read on its own (a Kafka transaction spans them all, so the highest seqno over them is the answer).
 */
import { Effect, Option } from "effect"
import type { Kafka, KafkaMessage } from "kafkajs"
import { STARTUP_DEADLINE_MS, withDeadline } from "./deadline.js"
import { KafkaError } from "./errors.js"
import { messageMcSeqno } from "./codec.js"
import { withAdmin } from "./KafkaClient.js"

interface Window {
  readonly start: string
  readonly end: string
}

/**
 * Reads [start, end) of `partition` and returns the highest mc seqno among committed records found; `visit` sees
 * each committed record, in offset order. `park` names the topic's other partitions at their ends (nothing to fetch).
 */
const scan = (
  kafka: Kafka,
  topic: string,
  partition: number,
  park: ReadonlyArray<{ readonly partition: number; readonly offset: string }>,
  window: Window,
  maxBytes: number,
  visit: (message: KafkaMessage) => void = () => undefined,
  counts: (mcSeqno: number) => boolean = () => true
) =>
  Effect.async<Option.Option<number>, KafkaError>((resume) => {
    const groupId = `tail-reader-${process.pid}-${Date.now()}-${Math.random().toString(36).slice(2)}`
    const consumer = kafka.consumer({
      groupId,
      maxBytesPerPartition: maxBytes,
      maxBytes,
      maxWaitTimeInMs: 100,
      readUncommitted: false,
      allowAutoTopicCreation: false
    })
    let best: number | undefined
    let reached = -1n
    let joined = false
    let batches = 0
    let finished = false
    let idle: NodeJS.Timeout | undefined
    const finish = (result: Option.Option<number> | KafkaError) => {
      if (finished) return
      finished = true
      if (idle) clearTimeout(idle)
      clearTimeout(deadline)
      void consumer.disconnect().catch(() => undefined)
      if (result instanceof KafkaError) resume(Effect.fail(result))
      else resume(Effect.succeed(result))
    }
    // Control records (commit/abort markers) and aborted data are never delivered, so "reached the end" is
    // detected either by seeing an offset at the end or by the fetches going quiet.
    const armIdle = (ms: number) => {
      if (idle) clearTimeout(idle)
      idle = setTimeout(() => finish(Option.fromNullable(best)), ms)
    }
    const end = BigInt(window.end)
    // The quiet periods are generous: a read cut short reports a tail that is too early (or none at all), and the
    // producer would then publish blocks again. Normally the read ends by reaching the window's end, not by a timer.
    consumer.on(consumer.events.GROUP_JOIN, () => {
      joined = true
      armIdle(10_000)
    })
    // A group that never joins (coordinator still loading after a broker restart) or a read that never settles must
    // not hold the caller forever; the error says how far the scan got.
    const deadline = setTimeout(
      () =>
        finish(
          new KafkaError({
            reason: "consume",
            message:
              `reading the tail of ${topic}: no answer within ${STARTUP_DEADLINE_MS} ms ` +
              `(group joined: ${joined ? "yes" : "no"}, batches: ${batches}, read up to offset ${reached} of ${window.start}..${window.end})`
          })
        ),
      STARTUP_DEADLINE_MS
    )
    consumer.on(consumer.events.CRASH, (e) => finish(KafkaError.from("consume", e.payload.error)))
    consumer
      .connect()
      .then(() => consumer.subscribe({ topic, fromBeginning: true }))
      .then(() =>
        consumer.run({
          autoCommit: false,
          eachBatchAutoResolve: false,
          eachBatch: async ({ batch }) => {
            if (batch.partition !== partition) return
            for (const m of batch.messages) {
              if (BigInt(m.offset) >= end) return finish(Option.fromNullable(best))
              visit(m)
              const seqno = messageMcSeqno(m)
              if (seqno !== undefined && counts(seqno) && (best === undefined || seqno > best)) best = seqno
              if (BigInt(m.offset) + 2n >= end) return finish(Option.fromNullable(best))
            }
            // Aborted records and transaction markers are filtered out of `messages`, but the batch's last offset
            // still tells how far the read got (firstOffset is null only when it held nothing at all): at the end of
            // the window the answer is known. Otherwise keep waiting only while the read advances: a fetch that
            // returns the same filtered records again must not keep the scan alive.
            batches++
            if (batch.firstOffset() !== null) {
              const last = BigInt(batch.lastOffset())
              if (last + 1n >= end) return finish(Option.fromNullable(best))
              if (last > reached) {
                reached = last
                armIdle(3_000)
              }
            }
          }
        })
      )
      .then(() => {
        consumer.seek({ topic, partition, offset: window.start })
        for (const other of park) consumer.seek({ topic, partition: other.partition, offset: other.offset })
      })
      .catch((e: unknown) => finish(KafkaError.from("consume", e)))
    return Effect.sync(() => finish(Option.fromNullable(best)))
  })

interface PartitionRange {
  readonly partition: number
  readonly low: bigint
  readonly high: bigint
}

const partitionRanges = (kafka: Kafka, topic: string) =>
  Effect.gen(function* () {
    const offsets = yield* withAdmin(kafka, (admin) =>
      Effect.tryPromise({
        try: () => withDeadline(`fetching offsets of ${topic}`, STARTUP_DEADLINE_MS, () => admin.fetchTopicOffsets(topic)),
        catch: (e) => KafkaError.from("admin", e)
      })
    )
    if (offsets.length === 0) return yield* new KafkaError({ reason: "admin", message: `topic ${topic} has no partitions` })
    return offsets
      .map((o): PartitionRange => ({ partition: o.partition, low: BigInt(o.low), high: BigInt(o.high) }))
      .sort((a, b) => a.partition - b.partition)
  })

const parkedExcept = (ranges: ReadonlyArray<PartitionRange>, partition: number) =>
  ranges.filter((r) => r.partition !== partition).map((r) => ({ partition: r.partition, offset: String(r.high) }))

/**
 * Visits the committed records of the end of `topic` whose mc seqno is at least `from`, in mc seqno order (a record
 * may be visited twice when a window had to grow). Reads each partition back from its end in growing windows until
 * it reaches a record before `from` or the start of the log.
 */
export const readTailFrom = (
  kafka: Kafka,
  topic: string,
  from: number,
  maxBytes: number,
  visit: (message: KafkaMessage, mcSeqno: number) => void
) =>
  Effect.gen(function* () {
    const ranges = yield* partitionRanges(kafka, topic)
    const wanted = (m: KafkaMessage) => {
      const s = messageMcSeqno(m)
      return s !== undefined && s >= from ? s : undefined
    }
    const all: Array<[KafkaMessage, number]> = []
    for (const { partition, low, high } of ranges) {
      // A committed transaction of bundles costs one offset per bundle and one for its marker.
      let span = 64n
      while (high > low) {
        const start = high - span > low ? high - span : low
        let reachedBefore = false
        const found: Array<[KafkaMessage, number]> = []
        yield* scan(kafka, topic, partition, parkedExcept(ranges, partition), { start: String(start), end: String(high) }, maxBytes, (m) => {
          const s = wanted(m)
          if (s === undefined) reachedBefore = true
          else found.push([m, s])
        })
        if (reachedBefore || start === low) {
          all.push(...found)
          break
        }
        span *= 4n
      }
    }
    all.sort((a, b) => a[1] - b[1])
    for (const [m, s] of all) visit(m, s)
  })

/**
 * Highest mc seqno committed in `topic` (over all its partitions), among those in `within` when given (a backfill
 * over one range while other producers fill other ranges: each producer publishes its range in order, so the last
 * record of the range is its highest). Call it only after the transactional producer initialised (fencing aborts our
 * previous instance's open transaction); otherwise the answer could be behind by that one.
 */
export const lastCommittedSeqno = (
  kafka: Kafka,
  topic: string,
  maxBytes: number,
  within?: { readonly from: number; readonly to: number }
) =>
  Effect.gen(function* () {
    const ranges = yield* partitionRanges(kafka, topic)
    let best = Option.none<number>()
    for (const { partition, low, high } of ranges) {
      // Each committed transaction costs one offset for its marker, aborted ones one more per record; a window of a
      // few dozen offsets finds the last committed bundle in one pass unless many aborts piled up at the end.
      let span = 32n
      while (high > low) {
        const start = high - span > low ? high - span : low
        const found = yield* scan(
          kafka,
          topic,
          partition,
          parkedExcept(ranges, partition),
          { start: String(start), end: String(high) },
          maxBytes,
          undefined,
          within === undefined ? undefined : (s) => s >= within.from && s <= within.to
        )
        if (Option.isSome(found) || start === low) {
          if (Option.isSome(found) && (Option.isNone(best) || found.value > best.value)) best = found
          break
        }
        span *= 4n
      }
    }
    return best
  })
