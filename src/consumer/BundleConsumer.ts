/**
 * The consumer: reads the bundle topic (read_committed, manual offsets), batches bundles across masterchain blocks
 * until CONSUMER_BATCH_ROWS rows, CONSUMER_BATCH_BYTES bytes or CONSUMER_BATCH_MS ms, hands each batch to the
 * ClickHouse sink and commits the Kafka offset only after the sink acknowledged. Invariant: a committed offset never
 * points past a bundle whose completion marker is not in ClickHouse; anything after it is redelivered and either
 * written or skipped as done. With a partitioned bundle topic several consumers share one group: each cleans and
 * writes only the blocks of the partitions it owns, and gives a batch up before its markers once a rebalance began
 * (docs/scale-out.md).
 */
import { Cause, Context, Deferred, Duration, Effect, Either, Exit, Fiber, Layer, Runtime, Schedule } from "effect"
import kafkajs, { type Consumer, type EachBatchPayload } from "kafkajs"
import type { ClickHouseError } from "../clickhouse/ClickHouse.js"
import { decodeBundle } from "../kafka/codec.js"
import { KafkaError } from "../kafka/errors.js"
import { KafkaClient } from "../kafka/KafkaClient.js"
import { Health } from "../ops/Health.js"
import { threadCpuSeconds } from "../ops/cpu.js"
import { limitHeapGrowth } from "../ops/heapGrowth.js"
import { installFastCellHash } from "../ton/fastHash.js"
import { Metrics } from "../ops/Metrics.js"
import { ProgressReporter, ProgressTracker } from "../ops/progress.js"
import { Migrations } from "../clickhouse/migrations.js"
import { ConsumerConfig } from "../config.js"
import { ClickHouseSink, type WriteResult, type WriteScope } from "../sink/ClickHouseSink.js"
import { valueDigest } from "../sink/tokens.js"
import { BatchBuffer, estimateRows } from "./buffer.js"

export interface ConsumerRun {
  readonly groupId: string
  readonly batchRows: number
  /** Kafka value bytes per batch: bounds the decoded bundles held in memory (they take about as much heap). */
  readonly batchBytes?: number
  /**
   * Compressed record bytes one fetch brings, per partition and in all (CONSUMER_FETCH_BYTES): kafkajs decompresses
   * a whole fetch at once. A larger record batch still comes whole (since Kafka 0.10.1 a fetch returns at least one).
   */
  readonly fetchBytes?: number
  readonly batchMs: number
  /**
   * How far the process's V8 heaps may grow past what their last full collection kept, percent (src/ops/heapGrowth.ts);
   * 0 or absent: V8's own factor.
   */
  readonly heapGrowthPercent?: number
  /** Group session timeout: how long a dead consumer holds its partition before the group moves on. */
  readonly sessionTimeoutMs?: number
  /** Progress line period; 0 turns it off. */
  readonly progressMs?: number
  /** The masterchain seqno the stored data is heading for (a backfill's end, the upstream head), when known. */
  readonly progressTarget?: () => number | undefined
  /** Called after each stored batch (the main job uses it to know when a backfill is fully stored). */
  readonly onStored?: (result: WriteResult) => void
}

/** A tiny mutex: eachBatch and the flush timer must never write two batches at once. */
const makeLock = () => {
  let tail: Promise<unknown> = Promise.resolve()
  return <A>(f: () => Promise<A>): Promise<A> => {
    const run = tail.then(f, f)
    tail = run.catch(() => undefined)
    return run
  }
}

export const runConsumer = (run: ConsumerRun) =>
  Effect.gen(function* () {
    const client = yield* KafkaClient
    const sink = yield* ClickHouseSink
    const metrics = yield* Metrics
    const health = yield* Health
    const runtime = yield* Effect.runtime<never>()
    // Effects run from kafkajs callbacks: a failure is rethrown as the error itself, not wrapped.
    const runPromise = <A, E>(eff: Effect.Effect<A, E>) =>
      Runtime.runPromiseExit(runtime)(eff).then((exit) => {
        if (Exit.isSuccess(exit)) return exit.value
        throw Cause.squash(exit.cause)
      })
    // tx_pages renders each transaction as the API serves it, parsing message bodies with @ton/core: its faster
    // cell code, checked against the library as it is installed, is put in place here as the producer does.
    yield* Effect.sync(installFastCellHash)
    if ((run.heapGrowthPercent ?? 0) > 0) yield* Effect.sync(() => limitHeapGrowth(run.heapGrowthPercent!))
    const tracker = new ProgressTracker()
    const reporter = new ProgressReporter("consumer", tracker)
    const batchBytes = run.batchBytes ?? Number.POSITIVE_INFINITY
    const fetchBytes = run.fetchBytes ?? DEFAULT_FETCH_BYTES
    let lastStored = -1

    const partitions = client.blockPartitions
    const grouped = partitions > 1
    const sessionTimeoutMs = run.sessionTimeoutMs ?? 30_000

    const session = Effect.scoped(
      Effect.gen(function* () {
        // Alone on the topic, the whole store is this consumer's to clean; in a group only what it is assigned is.
        const removed = grouped ? [] : yield* sink.recover
        lastStored = Math.max(lastStored, yield* sink.lastDone)
        if (lastStored >= 0) metrics.consumerLastSeqno.set(lastStored)
        if (removed.length > 0) {
          yield* Effect.logInfo(`consumer: removed partial rows of ${removed.length} masterchain blocks (${removed[0]}..${removed[removed.length - 1]})`)
        }
        const failure = yield* Deferred.make<never, KafkaError | ClickHouseError>()
        const fail = (e: KafkaError | ClickHouseError) =>
          void Runtime.runSync(runtime)(Deferred.fail(failure, e))
        const buffer = new BatchBuffer()
        const lock = makeLock()
        let heartbeat: () => Promise<void> = async () => undefined
        let kafkaHeartbeat: () => Promise<void> = async () => undefined
        // Ownership as this member knows it: the epoch moves when a rebalance begins or ends, so a flush that saw
        // another epoch at its start no longer owns what it holds. A member silent past half its session timeout
        // may have been expired by the group: it writes nothing more until it hears from the coordinator again.
        let epoch = 0
        let owned: ReadonlyArray<number> = []
        let cleaned = new Set<number>()
        let lastHeartbeatAt = Date.now()
        const consumer: Consumer = yield* Effect.acquireRelease(
          Effect.tryPromise({
            try: async () => {
              const c = client.kafka.consumer({
                groupId: run.groupId,
                readUncommitted: false,
                allowAutoTopicCreation: false,
                // Memory bound: kafkajs decompresses a whole fetch at once (zstd values are ~6x the bytes fetched).
                maxBytesPerPartition: fetchBytes,
                maxBytes: fetchBytes,
                maxWaitTimeInMs: Math.min(500, run.batchMs),
                sessionTimeout: run.sessionTimeoutMs ?? 30_000,
                heartbeatInterval: Math.max(500, Math.floor((run.sessionTimeoutMs ?? 30_000) / 10)),
                // Restarts are ours (a new session re-runs the start-up cleanup); kafkajs must not restart alone.
                retry: { retries: 5, restartOnFailure: async () => false }
              })
              await c.connect()
              return c
            },
            catch: (e) => KafkaError.from("connect", e)
          }),
          (c) => Effect.promise(() => c.disconnect().catch(() => undefined))
        )
        consumer.on(consumer.events.CRASH, (e) => fail(KafkaError.from("consume", e.payload.error)))
        // What is buffered belongs to the old assignment: dropped (it comes again from the committed offsets), so
        // that no later flush writes it under the new epoch.
        consumer.on(consumer.events.REBALANCING, () => {
          epoch++
          void lock(async () => buffer.clear())
        })
        consumer.on(consumer.events.HEARTBEAT, () => void (lastHeartbeatAt = Date.now()))
        // A rejoin restarts fetching from the committed offset: what is buffered will come again.
        consumer.on(consumer.events.GROUP_JOIN, (e) => {
          epoch++
          lastHeartbeatAt = Date.now()
          owned = [...(e.payload.memberAssignment[client.topics.blocks] ?? [])].sort((a, b) => a - b)
          cleaned = new Set()
          void lock(async () => buffer.clear())
        })
        // A failed heartbeat means the group is rebalancing (or dropped this member): the epoch moves at once.
        heartbeat = () =>
          kafkaHeartbeat().catch((e: unknown) => {
            epoch++
            throw e
          })
        const scopeNow = (): WriteScope | undefined => {
          if (!grouped) return undefined
          const at = epoch
          return {
            guard: () => epoch === at && Date.now() - lastHeartbeatAt < sessionTimeoutMs / 2,
            scope: { count: partitions, owned }
          }
        }

        const flush = () =>
          lock(async () => {
            if (!buffer.due(0, 0, Date.now())) return
            const { items, commitOffsets } = buffer.take()
            const group = scopeNow()
            if (items.length > 0) {
              const written = await runPromise(
                Effect.either(
                  sink.write(
                    items.map((i) => ({ bundle: i.bundle, digest: i.digest })),
                    () => heartbeat(),
                    group
                  )
                )
              )
              if (Either.isLeft(written)) {
                const e = written.left
                if (e._tag !== "SinkFenced") throw e
                // Nothing committed: the partitions' owner after the rebalance writes these blocks again. If no
                // rebalance follows (this member only lost touch with the coordinator for a while) it is still this
                // one, so fetching goes back to the first record given up; re-reading from there is always safe
                // (it is past the committed offset, and blocks already marked are skipped).
                await runPromise(Effect.logInfo(`consumer: ${e.message}; left to the partitions' owner`))
                const firsts = new Map<number, bigint>()
                for (const i of items) {
                  const p = i.partition ?? 0
                  if (!firsts.has(p) || i.offset < firsts.get(p)!) firsts.set(p, i.offset)
                }
                for (const [partition, offset] of firsts) {
                  consumer.seek({ topic: client.topics.blocks, partition, offset: offset.toString() })
                }
                return
              }
              const result = written.right
              const now = Date.now()
              for (const item of items) {
                if (!result.stored.includes(item.bundle.mc_seqno)) continue
                tracker.record(item.bundle.mc_seqno, 1 + item.bundle.shard_blocks.length, item.bundle.transactions.length, now)
              }
              metrics.consumerBundles.inc({ outcome: "stored" }, result.stored.length)
              metrics.consumerBundles.inc({ outcome: "already_done" }, result.alreadyDone.length)
              metrics.consumerTransactions.inc(result.transactions)
              metrics.consumerFlushes.inc()
              const top = Math.max(lastStored, ...result.stored, ...result.alreadyDone)
              lastStored = top
              metrics.consumerLastSeqno.set(top)
              health.report("consumer", true, `stored up to mc ${top}`, 120_000)
            }
            if (commitOffsets.size > 0 && (group === undefined || group.guard())) {
              await consumer.commitOffsets(
                [...commitOffsets].map(([partition, offset]) => ({
                  topic: client.topics.blocks,
                  partition,
                  offset: offset.toString()
                }))
              )
            }
          })

        const eachBatch = async ({ batch, resolveOffset, heartbeat: hb, isRunning, isStale }: EachBatchPayload) => {
          kafkaHeartbeat = hb
          const partition = batch.partition
          const batchEpoch = epoch
          if (grouped && !cleaned.has(partition)) {
            // First records of a partition this member just received: rows its former owner left without marker
            // go first. Kafka's rebalance completed only after every live member rejoined, and each gives up its
            // batches once the rebalance begins, so nobody else writes these blocks now.
            const gone = await lock(() => runPromise(sink.recoverScope({ count: partitions, owned: [partition] })))
            cleaned.add(partition)
            if (gone.length > 0) {
              await runPromise(
                Effect.logInfo(`consumer: partition ${partition}: removed partial rows of ${gone.length} masterchain blocks (${gone.join(", ")})`)
              )
            }
          }
          let fetched = 0
          for (const message of batch.messages) fetched += message.value?.length ?? 0
          metrics.consumerFetchedBytes.observe(fetched)
          // A rebalance began: the rest of this batch may belong to another member by now.
          const givenUp = () => !isRunning() || isStale() || (grouped && epoch !== batchEpoch)
          for (const message of batch.messages) {
            if (givenUp()) break
            const offset = BigInt(message.offset)
            // A record that would take the batch past its byte bound is decoded after the batch is written: on busy
            // masterchain blocks (bundles of tens of megabytes) a bound and one more bundle doubled what a batch held.
            const size = message.value?.length ?? 0
            if (buffer.wouldPass(size, batchBytes)) {
              await flush()
              if (givenUp()) break
            }
            const t = threadCpuSeconds()
            const decoded = decodeBundle(message.value)
            metrics.stageCpuSeconds.inc({ stage: "kafka_consume" }, threadCpuSeconds() - t)
            if (Either.isLeft(decoded)) {
              metrics.consumerBundles.inc({ outcome: "undecodable" })
              await runPromise(Effect.logError(`consumer: offset ${message.offset} skipped: ${decoded.left.message}`))
              buffer.skip(offset, partition)
            } else {
              const bundle = decoded.right
              buffer.add(
                {
                  bundle,
                  digest: valueDigest(message.value!),
                  offset,
                  partition,
                  rows: estimateRows(bundle),
                  bytes: size
                },
                Date.now()
              )
            }
            resolveOffset(message.offset)
            if (buffer.due(run.batchRows, Number.POSITIVE_INFINITY, Date.now(), batchBytes)) await flush()
          }
          if (buffer.due(run.batchRows, run.batchMs, Date.now(), batchBytes)) await flush()
        }

        yield* Effect.tryPromise({
          try: async () => {
            await consumer.subscribe({ topic: client.topics.blocks, fromBeginning: true })
            await consumer.run({
              autoCommit: false,
              eachBatchAutoResolve: false,
              partitionsConsumedConcurrently: 1,
              eachBatch: (payload) =>
                eachBatch(payload).catch((e: unknown) => {
                  // Kafka errors (a rebalance during a commit, say) are kafkajs's to handle: it rejoins or crashes,
                  // and a crash ends the session through the CRASH event. Anything else ends the session now.
                  if (!isKafkaJsError(e)) fail(failureOf(e))
                  throw e
                })
            })
          },
          catch: (e) => KafkaError.from("consume", e)
        })
        health.report("consumer", true, "started", 120_000)

        // Partial batches are written on time even when no new records arrive to trigger eachBatch.
        const tick = Math.max(50, Math.min(250, run.batchMs))
        const timer = Effect.gen(function* () {
          while (true) {
            yield* Effect.sleep(Duration.millis(tick))
            if (buffer.due(run.batchRows, run.batchMs, Date.now(), batchBytes)) {
              const exit = yield* Effect.exit(Effect.promise(() => flush().then(() => undefined, (e: unknown) => e)))
              if (Exit.isSuccess(exit) && exit.value !== undefined) fail(failureOf(exit.value))
            } else if (buffer.size === 0) {
              health.report("consumer", true, `idle at mc ${lastStored}`, 120_000)
            }
          }
        })
        yield* Effect.forkScoped(timer)
        return yield* Deferred.await(failure)
      })
    )

    const progress = Effect.gen(function* () {
      if ((run.progressMs ?? 5_000) <= 0) return yield* Effect.never
      while (true) {
        yield* Effect.sleep(Duration.millis(run.progressMs ?? 5_000))
        const line = reporter.tick(Date.now(), yield* Effect.sync(() => run.progressTarget?.()))
        if (line !== undefined) yield* Effect.logInfo(line)
      }
    })

    return yield* session.pipe(
      Effect.tapError((e) =>
        Effect.sync(() => health.report("consumer", false, `${e._tag}: ${e.message}`)).pipe(
          Effect.zipRight(Effect.logWarning(`consumer: ${e._tag} (${e.message}); restarting from the committed offset`))
        )
      ),
      Effect.retry(
        Schedule.exponential(Duration.millis(300)).pipe(Schedule.union(Schedule.spaced(Duration.seconds(10))), Schedule.jittered)
      ),
      Effect.raceFirst(Effect.zipRight(progress, Effect.never))
    )
  })

/**
 * CONSUMER_FETCH_BYTES's default: ~25 MB of values with zstd, as a quarter of the default batch bytes brought before.
 * 1 MiB measured no lower peak (BENCHMARKS.md, "the consumer's own memory: the kafkajs fetch").
 */
export const DEFAULT_FETCH_BYTES = 4 * 1024 * 1024

// kafkajs is CommonJS and its error classes are not among the names Node can import from it directly.
const { KafkaJSError } = kafkajs

/** An exception kafkajs raised: inside its consumer loop kafkajs handles those itself (rejoin, retry or crash). */
const isKafkaJsError = (e: unknown): boolean => e instanceof KafkaJSError

/** The consumer as a service: its layer starts the loop (on a migrated schema) for the layer's lifetime. */
export class BundleConsumer extends Context.Tag("ton-exporter/BundleConsumer")<
  BundleConsumer,
  {
    /** Fails with the error that stopped the consumer; never succeeds (the consumer runs until interrupted). */
    readonly done: Effect.Effect<never, KafkaError | ClickHouseError>
  }
>() {
  static readonly layerWith = (run: ConsumerRun) =>
    Layer.scoped(
      BundleConsumer,
      Effect.gen(function* () {
        yield* Migrations
        const fiber = yield* Effect.forkScoped(runConsumer(run))
        return { done: Effect.flatMap(Fiber.join(fiber), () => Effect.never) }
      })
    )

  /** From the CONSUMER_* settings. */
  static readonly layer = Layer.unwrapEffect(
    Effect.map(ConsumerConfig, (c) =>
      BundleConsumer.layerWith({
        groupId: c.group,
        batchRows: c.batchRows,
        batchBytes: c.batchBytes,
        fetchBytes: c.fetchBytes,
        batchMs: c.batchMs,
        sessionTimeoutMs: c.sessionTimeoutMs,
        heapGrowthPercent: c.heapGrowthPercent
      })
    )
  )
}

/** Whatever escaped a flush: a sink error keeps its tag, anything else is a consume failure. */
const failureOf = (e: unknown) =>
  typeof e === "object" && e !== null && "_tag" in e && (e as { _tag: string })._tag === "ClickHouseError"
    ? (e as ClickHouseError)
    : KafkaError.from("commit", e)
