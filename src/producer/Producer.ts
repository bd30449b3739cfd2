/**
 * The producer: masterchain seqnos -> upstream bundles (bounded prefetch, fetched concurrently, published in order)
 * -> decoded canonical bundles -> Kafka transactions. Modes: backfill FROM..TO, follow (from the head on), resume
 * (after the last bundle committed in the topic). Invariant: the next seqno published is always the successor of the
 * last one committed, re-read from Kafka after every failure, so a crash or a broker restart leaves no gap and no
 * repeat a read_committed subscriber could see.
 */
import { Chunk, Context, Duration, Effect, Either, Fiber, Layer, Option, Schedule, Sink, Stream } from "effect"
import { DEFAULT_PRODUCER_INFLIGHT_BYTES, ProducerConfig, type ProducerMode, type ProducerSettings } from "../config.js"
import { makeBundlePublisher, type PublishItem } from "../kafka/BundlePublisher.js"
import { decodeBundle as decodeBundleRecord } from "../kafka/codec.js"
import { readTailFrom } from "../kafka/tail.js"
import { completeBundle, fillBundleTraceIds, PublishHistory } from "../kafka/transactions.js"
import type { KafkaError } from "../kafka/errors.js"
import { KafkaClient } from "../kafka/KafkaClient.js"
import { Health } from "../ops/Health.js"
import { threadCpuSeconds } from "../ops/cpu.js"
import { limitHeapGrowth } from "../ops/heapGrowth.js"
import { releaseBytes } from "../ops/release.js"
import { Metrics } from "../ops/Metrics.js"
import { ProgressReporter, ProgressTracker } from "../ops/progress.js"
import { Upstream, UpstreamError, type RawMasterchainBundle } from "../source/Upstream.js"
import { installFastCellHash } from "../ton/fastHash.js"
import {
  assembleBundle,
  deadBundle,
  pipelineDecode,
  prepare,
  type DecodeTransaction,
  type Prepared
} from "./assemble.js"
import { isBlockFiles, makeDecodePool, type DecodePoolError, workerLimits } from "./DecodePool.js"
import type { ThreadHeap } from "./decodeWorker.js"
import { InFlightBytes } from "./inflight.js"
import { type BlockFilesBundle, completeBlockFiles } from "../source/liteserver/blockFiles.js"

export interface ProducerRun {
  readonly mode: ProducerMode
  readonly from?: number | undefined
  /** Inclusive; backfill needs it, resume may have it (then it ends there), follow ignores it. */
  readonly to?: number | undefined
  /** Bundles fetched ahead of the one being published. */
  readonly prefetch?: number
  /**
   * Bytes of fetched bundles (records and drafts) held before their publish (./inflight.ts); a fetch waits while
   * they would exceed it, a larger bundle goes alone (default DEFAULT_PRODUCER_INFLIGHT_BYTES). 0: the prefetch count
   * alone bounds them.
   */
  readonly inflightBytes?: number
  /**
   * Worker threads that decode and encode bundles (they run `pipelineDecode`); 0 or absent decodes on the main
   * thread with the decoder given to `runProducer`.
   */
  readonly decodeWorkers?: number
  /** Young generation of each decode worker's heap, MB (default `workerLimits`'). */
  readonly decodeYoungMb?: number
  /** Most bundles per Kafka transaction (fewer when they are large). */
  readonly maxBundlesPerTransaction?: number
  /**
   * Most records per Kafka transaction (default 4,000): a bundle counts its bundle record plus one per transaction
   * (the transactions topic), so a transaction of large blocks stays short enough to commit well inside the broker's
   * transaction timeout; a single bundle above it still goes alone.
   */
  readonly maxRecordsPerTransaction?: number
  /** How often the head is polled when caught up. */
  readonly pollMs?: number
  /** How often the progress line is printed; 0 turns it off. */
  readonly progressMs?: number
  readonly transactionalId?: string
  /**
   * Masterchain blocks of the bundle topic's tail a starting producer re-reads to learn trace ids and account states
   * for the transactions topic (default 256): a message whose sender is further back starts a new trace.
   */
  readonly historyBlocks?: number
  /**
   * Blocks before `from` a backfill that starts there fetches from upstream, without publishing them, to learn trace
   * ids and account states (default 0): with several producers over adjacent ranges, a trace that crosses a range
   * boundary then keeps its root, as with one producer. Blocks upstream cannot serve are passed over.
   */
  readonly learnBlocks?: number
  /**
   * How far each heap of the process may grow past what its last full collection kept, percent (src/ops/heapGrowth.ts);
   * absent or 0 leaves V8's own factor.
   */
  readonly heapGrowthPercent?: number
}

/**
 * The run's settings that PRODUCER_* gives beside its mode and range: every runnable that builds a `ProducerRun` from
 * the settings takes them from here, so a new one reaches all of them (PRODUCER_LEARN_BLOCKS once reached one only).
 */
export const runTuning = (c: ProducerSettings) => ({
  decodeWorkers: c.decodeWorkers,
  decodeYoungMb: c.decodeYoungMb,
  learnBlocks: c.learnBlocks,
  heapGrowthPercent: c.heapGrowthPercent,
  maxRecordsPerTransaction: c.transactionRecords,
  inflightBytes: c.inflightBytes
})

export interface ProducerSummary {
  readonly first: number | undefined
  readonly last: number | undefined
  readonly bundles: number
  readonly transactions: number
  readonly deadLetters: number
}

/** Where to start, given what the topic already holds. Exported for tests: this is the no-gap/no-repeat rule. */
export const startSeqno = (
  run: Pick<ProducerRun, "mode" | "from" | "to">,
  lastCommitted: Option.Option<number>,
  head: number
): number => {
  const last = Option.getOrUndefined(lastCommitted)
  switch (run.mode) {
    case "backfill": {
      const from = run.from ?? 0
      // Resume inside the range after a crash; a range entirely before or after the topic's tail starts at FROM.
      return last !== undefined && last >= from && last <= (run.to ?? Infinity) ? last + 1 : from
    }
    case "follow":
      // Only new blocks: never go back before the head, but do not repeat what is already in the topic either.
      return last !== undefined && last + 1 > head ? last + 1 : head
    case "resume":
      return last !== undefined ? last + 1 : (run.from ?? head)
  }
}

/** What upstream hands on per masterchain block: the raw bundle, or (liteserver) its block files, read by the decoder. */
type Fetched = RawMasterchainBundle | BlockFilesBundle

type DecodeBundle = (raw: Fetched) => Effect.Effect<Prepared, DecodePoolError>

/** Upstream failures that will not heal by asking again: the block is dead-lettered and the chain moves on. */
const permanent = (e: UpstreamError) => e.reason === "bad_request" || e.reason === "malformed"

/**
 * Groups prepared bundles into Kafka transactions: at most `perTx` bundles and `maxRecords` records (a bundle's record
 * plus one per transaction) each, a single larger bundle alone, and whatever arrived within 50 ms when the stream is
 * slower than that. Each bundle weighs at least maxRecords / perTx, so the bundle bound holds too.
 */
export const transactionBatches =
  (perTx: number, maxRecords: number) =>
  <A extends { readonly transactions: number }, E, R>(items: Stream.Stream<A, E, R>): Stream.Stream<Chunk.Chunk<A>, E, R> =>
    items.pipe(
      Stream.aggregateWithin(
        Sink.foldWeighted({
          initial: Chunk.empty<A>(),
          maxCost: maxRecords,
          cost: (_, a: A) => Math.max(1 + a.transactions, maxRecords / perTx),
          body: (acc, a: A) => Chunk.append(acc, a)
        }),
        Schedule.spaced(Duration.millis(50))
      )
    )

/** What a prepared bundle holds until it is published: its bundle record and its transactions' drafts. */
export const preparedBytes = (item: Prepared): number =>
  (item.bundle?.value.byteLength ?? 0) + item.drafts.bytes.byteLength

/**
 * Frees the bytes of bundles whose Kafka transaction committed: the bundle records (as decoded, and as published with
 * their trace ids) and the drafts' bytes, of which the transaction records are views. kafkajs copied them into its
 * record batches and nothing reads them again, so they go at the next scavenge instead of the next full collection
 * (src/ops/release.ts). Only after the commit: a failed attempt's bundles are fetched again, not republished. With
 * `minBytes`, only the bundles of at least that many bytes (`preparedBytes`).
 */
export const releasePublished = (
  items: ReadonlyArray<Prepared>,
  published: ReadonlyArray<PublishItem>,
  minBytes = 0
): void => {
  for (let i = 0; i < items.length; i++) {
    const item = items[i]!
    if (minBytes > 0 && preparedBytes(item) < minBytes) continue
    releaseBytes(published[i]?.bundle?.value)
    releaseBytes(item.bundle?.value)
    releaseBytes(item.drafts.bytes)
  }
}

/**
 * A committed bundle of at least this many bytes (records and drafts) has them freed at once even without a bound on
 * heap growth: on a busy stretch (2,000-transaction masterchain blocks, ~19 MB each) the bundles left to the collector
 * were most of the main thread's external memory at the producer's peak, which freeing them took 523 / 531 -> 465 /
 * 498 MB at the same CPU; a quiet chain's bundles (~1 MB) stay with the collector, as below.
 */
export const LARGE_BUNDLE_BYTES = 8 * 1024 * 1024

export const runProducer = (run: ProducerRun, decode: DecodeTransaction) =>
  Effect.gen(function* () {
    const client = yield* KafkaClient
    const upstream = yield* Upstream
    const metrics = yield* Metrics
    const health = yield* Health
    // Decoding on this thread (and finishing sliced bundles) hashes every cell: our faster cell code, installed once.
    yield* Effect.sync(installFastCellHash)
    // Before the decode workers start, though they would read it from their next full collection on anyway.
    if ((run.heapGrowthPercent ?? 0) > 0) yield* Effect.sync(() => limitHeapGrowth(run.heapGrowthPercent!))
    // With a bound on heap growth the bytes of committed bundles are freed at once. Without one they are left to the
    // collector: V8 starts a full collection each time external memory has grown by ~64 MB, and those collections are
    // what keep the main thread's heap near its live size; freed at once without a bound, ~40 MB less external
    // memory came with ~50 MB more heap (BENCHMARKS.md, "the producer's committed bundles freed at once"). Large
    // bundles (LARGE_BUNDLE_BYTES) are freed at once either way.
    const releaseCommitted = (run.heapGrowthPercent ?? 0) > 0
    const prefetch = run.prefetch ?? 8
    const inflightBytes = run.inflightBytes ?? DEFAULT_PRODUCER_INFLIGHT_BYTES
    const inflightBudget = inflightBytes > 0 ? inflightBytes : Number.POSITIVE_INFINITY
    const decodeWorkers = run.decodeWorkers ?? 0
    if (decodeWorkers > 0 && decode !== pipelineDecode) {
      return yield* Effect.dieMessage("decode workers run pipelineDecode; another decoder needs decodeWorkers 0")
    }
    const perTx = run.maxBundlesPerTransaction ?? 32
    const maxRecords = run.maxRecordsPerTransaction ?? 4_000
    const pollMs = run.pollMs ?? 500
    const end = run.mode === "follow" ? undefined : run.to
    if (run.mode === "backfill" && (run.from === undefined || run.to === undefined)) {
      return yield* Effect.dieMessage("backfill needs both --from and --to")
    }
    // A backfill's id names its range: producers over disjoint ranges run side by side without fencing each other,
    // and a restart of the same range fences its own predecessor.
    const transactionalId =
      run.transactionalId ??
      (run.mode === "backfill"
        ? `${client.clientId}.${client.network}.producer.${run.from}-${run.to}`
        : `${client.clientId}.${client.network}.producer`)
    const tracker = new ProgressTracker()
    const reporter = new ProgressReporter("producer", tracker)
    const totals = { first: undefined as number | undefined, last: undefined as number | undefined, bundles: 0, transactions: 0, deadLetters: 0 }
    let headSeen = 0

    const head = Effect.tap(upstream.head, (h) =>
      Effect.sync(() => {
        headSeen = Math.max(headSeen, h)
        metrics.upstreamHead.set(headSeen)
      })
    )
    const cachedHead = yield* Effect.cachedWithTTL(head, Duration.millis(pollMs))
    // Block files when upstream has them: the decoder (a worker, when there are) reads each block whole, once.
    const fetchBundle = (seqno: number): Effect.Effect<Fetched, UpstreamError> =>
      upstream.bundleFiles !== undefined ? upstream.bundleFiles(seqno) : upstream.bundle(seqno)

    const waitForHead = (seqno: number) =>
      Effect.gen(function* () {
        while ((yield* cachedHead) < seqno) {
          health.report("producer", true, `caught up at head ${headSeen}`, 60_000)
          yield* Effect.sleep(Duration.millis(pollMs))
        }
      })

    const fetch = (seqno: number, decodeBundle: DecodeBundle) =>
      Effect.gen(function* () {
        if (seqno > headSeen) yield* waitForHead(seqno)
        const endTimer = metrics.producerFetchSeconds.startTimer()
        const item: Prepared = yield* fetchBundle(seqno).pipe(
          // A head that runs slightly ahead of what the API can serve: ask again shortly.
          Effect.retry({
            while: (e) => e.reason === "not_found",
            schedule: Schedule.spaced(Duration.millis(pollMs)).pipe(Schedule.intersect(Schedule.recurs(20)))
          }),
          Effect.matchEffect({
            onFailure: (e) => (permanent(e) ? Effect.succeed(deadBlock(seqno, e)) : Effect.fail(e)),
            onSuccess: decodeBundle
          })
        )
        endTimer()
        return item
      })

    const deadBlock = (seqno: number, e: UpstreamError): Prepared =>
      deadBundle(client.network, seqno, `upstream_${e.reason}`, e.message)

    const stageCpu = (stage: "decode" | "record_encode", seconds: number) =>
      metrics.stageCpuSeconds.inc({ stage }, seconds)
    const threadHeap = (worker: number, heap: ThreadHeap) => {
      const thread = `decode-${worker + 1}`
      for (const kind of ["total", "used", "external", "malloced", "young"] as const) {
        metrics.threadHeapBytes.set({ thread, kind }, heap[kind])
      }
    }
    const onMainThread: DecodeBundle = (fetched) =>
      Effect.sync(() => {
        const t0 = threadCpuSeconds()
        const complete = isBlockFiles(fetched) ? completeBlockFiles(fetched) : Either.right(fetched)
        if (Either.isLeft(complete)) return deadBlock(fetched.mc_seqno, complete.left)
        const raw = complete.right
        const assembled = assembleBundle(raw, client.network, decode)
        const t1 = threadCpuSeconds()
        const prepared = prepare(assembled)
        stageCpu("decode", t1 - t0)
        stageCpu("record_encode", threadCpuSeconds() - t1)
        return prepared
      })

    // Outlives attempts: what a failed attempt learned came from bundles in masterchain order, which the next attempt
    // republishes identically.
    const history = new PublishHistory()
    /** Completes the transaction records and the bundle's trace ids; items arrive in masterchain order. */
    const toPublish = (item: Prepared): PublishItem => {
      if (item.bundle === null) return { bundle: null, deadLetters: item.deadLetters }
      const t = threadCpuSeconds()
      const { records, filled } = completeBundle(item.mcSeqno, item.drafts, item.accountStates, history)
      const value = fillBundleTraceIds(item.bundle.value, filled)
      stageCpu("record_encode", threadCpuSeconds() - t)
      return {
        bundle: { ...item.bundle, value },
        deadLetters: item.deadLetters,
        transactions: records
      }
    }

    const publish = (
      publisher: { publish: (i: ReadonlyArray<PublishItem>) => Effect.Effect<void, KafkaError> },
      inflight: InFlightBytes
    ) =>
      (items: ReadonlyArray<Prepared>) =>
        Effect.gen(function* () {
          const endTimer = metrics.producerPublishSeconds.startTimer()
          const published = items.map(toPublish)
          yield* publisher.publish(published)
          endTimer()
          for (const item of items) inflight.release(item)
          releasePublished(items, published, releaseCommitted ? 0 : LARGE_BUNDLE_BYTES)
          const now = Date.now()
          for (const item of items) {
            const seqno = item.mcSeqno
            totals.first ??= seqno
            totals.last = seqno
            for (const l of item.deadLetters) metrics.deadLetters.inc({ kind: l.kind, reason: l.reason })
            totals.deadLetters += item.deadLetters.length
            if (item.bundle !== null) {
              const txs = item.transactions
              totals.bundles++
              totals.transactions += txs
              metrics.producerBundles.inc()
              metrics.producerTransactions.inc(txs)
              metrics.producerLastSeqno.set(seqno)
              tracker.record(seqno, item.blocks, txs, now)
            }
          }
          health.report("producer", true, `published up to ${totals.last}`, 60_000)
        })

    // One attempt: fence, find the tail, stream from its successor. Any failure ends the attempt; the next one
    // starts from what Kafka says is committed, whatever the failed attempt had in flight.
    const attempt = Effect.scoped(
      Effect.gen(function* () {
        const publisher = yield* makeBundlePublisher(
          transactionalId,
          run.mode === "backfill" ? { from: run.from!, to: run.to! } : undefined
        )
        const last = yield* publisher.lastCommitted
        const start = startSeqno(run, last, run.mode === "backfill" ? 0 : yield* head)
        if (end !== undefined && start > end) return
        // Picking up where the topic ends: what the bundles just before hold is history the records need.
        if (!history.warm && Option.isSome(last) && last.value + 1 === start) {
          const from = Math.max(0, start - (run.historyBlocks ?? 256))
          let learned = 0
          yield* readTailFrom(client.kafka, client.topics.blocks, from, client.maxMessageBytes, (m, seqno) => {
            if (seqno >= start) return
            const bundle = decodeBundleRecord(m.value)
            if (bundle._tag === "Right") {
              history.learnPublished(bundle.right)
              learned++
            }
          })
          yield* Effect.logInfo(`producer: re-read ${learned} bundles from mc ${from} for trace and state history`)
        }
        // What this attempt holds between fetch and publish; a failed attempt's bundles go with it.
        const inflight = new InFlightBytes(inflightBudget, (b) => metrics.producerInflightBytes.set(b))
        // Workers live as long as the attempt: one that dies fails it, and the next attempt starts a fresh pool.
        const decodeBundle =
          decodeWorkers > 0
            ? (yield* makeDecodePool({
                workers: decodeWorkers,
                network: client.network,
                onStageCpu: stageCpu,
                onHeap: threadHeap,
                resourceLimits: {
                  ...workerLimits,
                  maxYoungGenerationSizeMb: run.decodeYoungMb ?? workerLimits.maxYoungGenerationSizeMb
                }
              })).prepare
            : onMainThread
        // A backfill starting at FROM (another producer may be filling the range before it) learns the history from
        // the blocks just before FROM, fetched upstream and not published, so its trace ids and account states are
        // those a single producer over the whole chain would write (within `learnBlocks`).
        const learnBlocks = run.learnBlocks ?? 0
        if (!history.warm && run.mode === "backfill" && start === run.from && start > 0 && learnBlocks > 0) {
          const from = Math.max(0, start - learnBlocks)
          let learned = 0
          yield* Stream.range(from, start - 1).pipe(
            Stream.mapEffect(
              (seqno) =>
                inflight.hold(fetchBundle(seqno).pipe(Effect.flatMap(decodeBundle)), preparedBytes).pipe(
                  Effect.map(Option.some),
                  Effect.catchIf(
                    (e): e is UpstreamError => e instanceof UpstreamError && (permanent(e) || e.reason === "not_found"),
                    () => Effect.succeed(Option.none<Prepared>())
                  )
                ),
              { concurrency: prefetch }
            ),
            Stream.runForEach((item) =>
              Effect.sync(() => {
                if (Option.isNone(item)) return
                inflight.release(item.value)
                if (item.value.bundle === null) return
                completeBundle(item.value.mcSeqno, item.value.drafts, item.value.accountStates, history)
                learned++
              })
            )
          )
          yield* Effect.logInfo(`producer: learned history from ${learned} upstream bundles before mc ${start}`)
        }
        history.warm = true
        yield* Effect.logInfo(
          `producer: ${run.mode} from mc ${start}${end === undefined ? " on" : ` to ${end}`}, decoding on ` +
            (decodeWorkers > 0 ? `${decodeWorkers} worker thread${decodeWorkers === 1 ? "" : "s"}` : "the main thread")
        )
        const seqnos =
          end === undefined ? Stream.iterate(start, (n) => n + 1) : Stream.range(start, end)
        yield* seqnos.pipe(
          Stream.mapEffect((seqno) => inflight.hold(fetch(seqno, decodeBundle), preparedBytes), {
            concurrency: prefetch
          }),
          transactionBatches(perTx, maxRecords),
          Stream.mapEffect((chunk) => publish(publisher, inflight)([...chunk])),
          Stream.runDrain
        )
      }).pipe(Effect.provideService(KafkaClient, client))
    )

    const progress = Effect.gen(function* () {
      if ((run.progressMs ?? 5_000) <= 0) return yield* Effect.never
      while (true) {
        yield* Effect.sleep(Duration.millis(run.progressMs ?? 5_000))
        const target = end ?? (headSeen > 0 ? headSeen : undefined)
        const finished = end !== undefined && tracker.totals().mcSeqno >= end
        const line = reporter.tick(Date.now(), target, finished)
        if (line !== undefined) yield* Effect.logInfo(line)
      }
    })

    yield* attempt.pipe(
      Effect.tapError((e) =>
        Effect.sync(() => health.report("producer", false, `${e._tag}: ${e.message}`)).pipe(
          Effect.zipRight(Effect.logWarning(`producer: ${e._tag} (${e.message}); restarting from the committed tail`))
        )
      ),
      Effect.retry({
        while: (e) => !(e._tag === "KafkaError" && e.reason === "fenced"),
        schedule: Schedule.exponential(Duration.millis(300)).pipe(
          Schedule.union(Schedule.spaced(Duration.seconds(10))),
          Schedule.jittered
        )
      }),
      Effect.raceFirst(Effect.zipRight(progress, Effect.never))
    )
    // A finished backfill is not a stuck producer: the stage stays healthy without further reports.
    health.report("producer", true, `finished at mc ${totals.last ?? "-"}`, Number.POSITIVE_INFINITY)
    const summary: ProducerSummary = { ...totals }
    return summary
  })


type ProducerError = Effect.Effect.Error<ReturnType<typeof runProducer>>

/** The producer as a service: its layer starts the run for the layer's lifetime, with the pipeline's decoder. */
export class Producer extends Context.Tag("ton-exporter/Producer")<
  Producer,
  {
    /** The run's summary once it ends (a backfill, a resume with an end); follow never ends. */
    readonly done: Effect.Effect<ProducerSummary, ProducerError>
  }
>() {
  static readonly layerWith = (run: ProducerRun) =>
    Layer.scoped(
      Producer,
      Effect.map(Effect.forkScoped(runProducer(run, pipelineDecode)), (fiber) => ({ done: Fiber.join(fiber) }))
    )

  /** From the PRODUCER_* settings. */
  static readonly layer = Layer.unwrapEffect(
    Effect.map(ProducerConfig, (c) =>
      Producer.layerWith({ mode: c.mode, from: c.from, to: c.to, ...runTuning(c) })
    )
  )
}
