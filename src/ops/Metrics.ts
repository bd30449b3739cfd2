/**
 * The process's Prometheus instruments, one registry per process (never prom-client's global one, so tests and the
 * all-in-one job can build several). Invariant: every dead letter, published bundle and stored row is counted here,
 * so a gap is always visible as a number, not only as a log line.
 */
import { Context, Effect, Layer } from "effect"
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from "prom-client"
import { codecStats } from "../kafka/codecStats.js"

export interface MetricsShape {
  readonly registry: Registry
  readonly upstreamHead: Gauge
  readonly producerLastSeqno: Gauge
  readonly producerInflightBytes: Gauge
  readonly producerBundles: Counter
  readonly producerTransactions: Counter
  readonly producerFetchSeconds: Histogram
  readonly producerPublishSeconds: Histogram
  readonly deadLetters: Counter<"kind" | "reason">
  readonly consumerLastSeqno: Gauge
  readonly consumerBundles: Counter<"outcome">
  readonly consumerTransactions: Counter
  readonly consumerRows: Counter<"table">
  readonly consumerInsertSeconds: Histogram<"table">
  readonly consumerFlushes: Counter
  /** Value bytes of one partition's records in one fetch, decompressed (CONSUMER_FETCH_BYTES bounds them packed). */
  readonly consumerFetchedBytes: Histogram
  readonly consumerIncompleteRemoved: Counter
  /** CPU seconds per pipeline stage, measured on the thread that runs it (src/ops/cpu.ts). */
  readonly stageCpuSeconds: Counter<"stage">
  /**
   * The consumer's CPU seconds per table and step: `build` (making the rows; `tx_pages` is rendering the pieces,
   * `other` every table without pieces), `encode` (rows -> insert bytes) and `insert` (process CPU while the engine
   * inserts). Parts of the `flatten`, `encode` and `insert` stages.
   */
  readonly consumerTableCpuSeconds: Counter<"table" | "step">
  /**
   * V8 heaps of the process's other threads (the default `nodejs_heap_*` figures are the main thread's only), by
   * thread (`decode-1`, ...) and kind (`total`, `used`, `external`, `malloced`, `young`), as each last reported.
   */
  readonly threadHeapBytes: Gauge<"thread" | "kind">
  /**
   * Memory the embedded ClickHouse engine accounts for itself (its `MemoryTracking`), read when scraped through the
   * function given here; without one (a ClickHouse server, the producer) the gauge is absent. The statement waits
   * behind the session's insert: a scrape waits for it at most ENGINE_READ_WAIT_MS and then tells the last value read.
   */
  readonly trackEngineMemory: (read: () => Promise<number>) => void
}

/** Longest a scrape waits for the engine's memory figure (its statement queues behind a running insert). */
export const ENGINE_READ_WAIT_MS = 250

export const makeMetrics = (defaults = true): MetricsShape => {
  const registry = new Registry()
  if (defaults) collectDefaultMetrics({ register: registry, prefix: "ton_exporter_" })
  const registers = [registry]
  let engineReader: (() => Promise<number>) | undefined
  let engineLast: number | undefined
  let reading: Promise<void> | undefined
  return {
    registry,
    upstreamHead: new Gauge({ name: "ton_upstream_head_mc_seqno", help: "Latest masterchain seqno upstream reported", registers }),
    producerLastSeqno: new Gauge({
      name: "ton_producer_last_mc_seqno",
      help: "Last masterchain seqno committed to Kafka by this producer",
      registers
    }),
    producerInflightBytes: new Gauge({
      name: "ton_producer_inflight_bytes",
      help: "Bytes of fetched bundles held before their publish, and reserved for fetches under way (PRODUCER_INFLIGHT_BYTES)",
      registers
    }),
    producerBundles: new Counter({ name: "ton_producer_bundles_total", help: "Bundles committed to Kafka", registers }),
    producerTransactions: new Counter({
      name: "ton_producer_transactions_total",
      help: "Decoded transactions committed to Kafka",
      registers
    }),
    producerFetchSeconds: new Histogram({
      name: "ton_producer_fetch_seconds",
      help: "Time to fetch and decode one bundle",
      buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers
    }),
    producerPublishSeconds: new Histogram({
      name: "ton_producer_publish_seconds",
      help: "Time of one Kafka transaction",
      buckets: [0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
      registers
    }),
    deadLetters: new Counter({
      name: "ton_dead_letters_total",
      help: "Inputs published to the dead-letter topic instead of the bundle topic",
      labelNames: ["kind", "reason"] as const,
      registers
    }),
    consumerLastSeqno: new Gauge({
      name: "ton_consumer_last_mc_seqno",
      help: "Highest masterchain seqno whose completion marker this consumer wrote",
      registers
    }),
    consumerBundles: new Counter({
      name: "ton_consumer_bundles_total",
      help: "Bundles taken from Kafka, by outcome (stored, already_done, undecodable)",
      labelNames: ["outcome"] as const,
      registers
    }),
    consumerTransactions: new Counter({ name: "ton_consumer_transactions_total", help: "Transactions stored", registers }),
    consumerRows: new Counter({
      name: "ton_consumer_rows_total",
      help: "Rows inserted into ClickHouse",
      labelNames: ["table"] as const,
      registers
    }),
    consumerInsertSeconds: new Histogram({
      name: "ton_consumer_insert_seconds",
      help: "Duration of one ClickHouse insert",
      labelNames: ["table"] as const,
      buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers
    }),
    consumerFlushes: new Counter({ name: "ton_consumer_flushes_total", help: "Batches written and committed", registers }),
    consumerFetchedBytes: new Histogram({
      name: "ton_consumer_fetched_value_bytes",
      help: "Record value bytes of one partition's share of one Kafka fetch of the consumer, decompressed",
      buckets: [65_536, 262_144, 1_048_576, 4_194_304, 16_777_216, 67_108_864],
      registers
    }),
    consumerIncompleteRemoved: new Counter({
      name: "ton_consumer_incomplete_mc_blocks_removed_total",
      help: "Masterchain blocks whose partial rows were removed before being written again",
      registers
    }),
    stageCpuSeconds: new Counter({
      name: "ton_stage_cpu_seconds_total",
      help: "CPU seconds spent in each pipeline stage (decode, record_encode, kafka_consume, flatten, encode, insert)",
      labelNames: ["stage"] as const,
      registers
    }),
    consumerTableCpuSeconds: new Counter({
      name: "ton_consumer_table_cpu_seconds_total",
      help: "The consumer's CPU seconds per table and step (build, encode, insert)",
      labelNames: ["table", "step"] as const,
      registers
    }),
    threadHeapBytes: new Gauge({
      name: "ton_thread_heap_bytes",
      help: "V8 heap of each worker thread (the nodejs_heap figures are the main thread's), by thread and kind",
      labelNames: ["thread", "kind"] as const,
      registers
    }),
    trackEngineMemory: (read) => {
      // One gauge per registry; a second engine client of the process (all-in-one) reads the same engine.
      if (engineReader === undefined) {
        new Gauge({
          name: "ton_engine_memory_tracked_bytes",
          help: "Memory the embedded ClickHouse engine tracks itself (system.metrics MemoryTracking), read when scraped",
          registers,
          async collect() {
            if (engineReader === undefined) return
            reading ??= engineReader().then(
              (v) => void (engineLast = v),
              () => undefined
            ).finally(() => (reading = undefined))
            await Promise.race([reading, new Promise((r) => setTimeout(r, ENGINE_READ_WAIT_MS))])
            if (engineLast !== undefined) this.set(engineLast)
          }
        })
      }
      engineReader = read
    },
    ...codecGauges(registers)
  }
}

/** The Kafka codecs' own account (src/kafka/compression.ts), read when scraped. */
const codecGauges = (registers: Array<Registry>) => {
  new Gauge({
    name: "ton_kafka_codec_cpu_seconds",
    help: "CPU seconds of Kafka record-batch (de)compression in this process (the calling thread's own, around each call)",
    labelNames: ["direction"] as const,
    registers,
    collect() {
      this.set({ direction: "compress" }, codecStats.compressSeconds)
      this.set({ direction: "decompress" }, codecStats.decompressSeconds)
    }
  })
  new Gauge({
    name: "ton_kafka_codec_bytes",
    help: "Bytes through Kafka record-batch (de)compression in this process, uncompressed (raw) and compressed (wire)",
    labelNames: ["direction", "side"] as const,
    registers,
    collect() {
      this.set({ direction: "compress", side: "raw" }, codecStats.compressInBytes)
      this.set({ direction: "compress", side: "wire" }, codecStats.compressOutBytes)
      this.set({ direction: "decompress", side: "wire" }, codecStats.decompressInBytes)
      this.set({ direction: "decompress", side: "raw" }, codecStats.decompressOutBytes)
    }
  })
  return {}
}

export class Metrics extends Context.Tag("Metrics")<Metrics, MetricsShape>() {
  static readonly layer = Layer.sync(Metrics, () => makeMetrics(true))
  /** Without process metrics: for tests that build many. */
  static readonly layerTest = Layer.sync(Metrics, () => makeMetrics(false))
}

export const observe = <A, E, R>(h: Histogram<string>, labels: Record<string, string>, eff: Effect.Effect<A, E, R>) =>
  Effect.suspend(() => {
    const end = h.startTimer(labels)
    return Effect.ensuring(
      eff,
      Effect.sync(() => end())
    )
  })
