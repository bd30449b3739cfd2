/**
 * The ClickHouse writer of the consumer: takes a batch of consecutive bundles, skips those already complete, assigns
 * trace ids, writes every table in the storage order with the completion marker last, and only then reports success
 * (the caller commits Kafka offsets after that). Invariant: when `write` succeeds every bundle of the batch has all
 * its rows and its marker; when it fails, no bundle of the batch has a marker it should not have, and partial rows
 * are removed before anything is written again (at start-up and before a retry). A sink in a group of several
 * writes only while its `guard` says it still owns the batch's partitions, checked before every statement.
 */
import { Context, Duration, Effect, Layer, Schedule, Schema, SubscriptionRef } from "effect"
import { ClickHouse, ClickHouseError, type EmbeddedEngine, reasonOfCode } from "../clickhouse/ClickHouse.js"
import { INSERT_ORDER, StateHistory, type TableName, visitBundleRows } from "../flatten/bundle.js"
import { processCpuSeconds, threadCpuSeconds } from "../ops/cpu.js"
import { Metrics } from "../ops/Metrics.js"
import { deleteIncomplete, type PartitionScope } from "./deleteIncomplete.js"
import type { HashB64, MasterchainBundle } from "../ton/record.js"
import { Lru } from "../trace/Lru.js"
import { assignTraceIds, externalParents } from "../trace/traceIds.js"
import { encoderFor, type RowEncoder } from "./encode.js"
import { SpoolFile, SpoolWriteError } from "../clickhouse/spool.js"
import { latestAccountCodeRows } from "../flatten/latest_account_code.js"
import { type CodeKvHooks, writeAccountCodes } from "../store/accountCodeKv.js"
import { batchDigest, insertToken } from "./tokens.js"

/**
 * The batch was given up before its completion marker because this sink may no longer own its blocks (a rebalance
 * began, or the group may have expired this member): the new owner writes them from the committed offset.
 */
export class SinkFenced extends Schema.TaggedError<SinkFenced>()("SinkFenced", {
  message: Schema.String
}) {}

/** What a sink in a consumer group of several passes to `write`. */
export interface WriteScope {
  /** True while this sink still owns the partitions of the batch; checked before each statement. */
  readonly guard: () => boolean
  /** The partitions owned now: a retry's cleanup touches only their blocks. */
  readonly scope: PartitionScope
}

export interface SinkItem {
  readonly bundle: MasterchainBundle
  /** sha256 of the Kafka value the bundle was decoded from. */
  readonly digest: string
}

export interface WriteResult {
  readonly stored: ReadonlyArray<number>
  readonly alreadyDone: ReadonlyArray<number>
  readonly transactions: number
  readonly rows: number
}

/** What this sink has stored since it started: the highest masterchain seqno complete in ClickHouse, and how many
 * transactions its own writes added. */
export interface StoredProgress {
  /** Highest masterchain seqno the sink stored or found already stored (-1 before the first batch). */
  readonly top: number
  readonly transactions: number
  /** Bundles found already stored (a restart over a range the store holds). */
  readonly alreadyDone: number
}

export interface SinkOptions {
  /** Masterchain blocks before a batch in which trace parents are looked up (bounds the lookup scan). */
  readonly traceLookback?: number
  /** Capacity of the message-hash -> trace id cache, in entries (default TRACE_CACHE_ENTRIES). */
  readonly traceCacheSize?: number
  /** Attempts of one batch (with cleanup in between) before the error reaches the caller. */
  readonly attempts?: number
  /** Stops in the code-hash writes (tests force interleavings of two writers with them). */
  readonly codeKvHooks?: CodeKvHooks
  /**
   * Bytes of a table's encoded rows kept in memory before they go on into its spool file (src/clickhouse/spool.ts;
   * default SPILL_BYTES; tests make it small).
   */
  readonly spillBytes?: number
}

export interface SinkShape {
  /** Start-up cleanup: removes rows of masterchain blocks without completion marker; returns their seqnos. */
  readonly recover: Effect.Effect<ReadonlyArray<number>, ClickHouseError>
  /** Highest masterchain seqno with a completion marker (-1 when none). */
  readonly lastDone: Effect.Effect<number, ClickHouseError>
  /** Start-up cleanup of the blocks of some partitions only (a sink of a group, on receiving them). */
  readonly recoverScope: (scope: PartitionScope) => Effect.Effect<ReadonlyArray<number>, ClickHouseError>
  readonly write: (
    items: ReadonlyArray<SinkItem>,
    heartbeat: () => Promise<void>,
    group?: WriteScope
  ) => Effect.Effect<WriteResult, ClickHouseError | SinkFenced>
  /** Published after every successful write: in-process readers wait on its `changes`, never by polling. */
  readonly stored: SubscriptionRef.SubscriptionRef<StoredProgress>
}

const LOOKUP_CHUNK = 500

/** Key-value tables (EmbeddedRocksDB): per node, so never written on a cluster. */
const KV_TABLES: ReadonlySet<TableName> = new Set<TableName>(["v3_pages", "v2_pages", "mc_shards_kv"])

/**
 * Heap the message-hash -> trace id cache may take: its entries are two base64 hashes, ~187 bytes each when full
 * (89 MB measured for 500,000), so the byte budget fixes the entry count. The cache only spares lookups of senders
 * in stored history for bundles that lack trace ids; a miss reads ClickHouse (`traceLookback` blocks back).
 */
export const TRACE_CACHE_BYTES = 32 * 1024 * 1024
export const TRACE_CACHE_ENTRIES = Math.floor(TRACE_CACHE_BYTES / 190)

/**
 * Known account states of earlier bundles kept for the v3 page rows (src/flatten/bundle.ts StateHistory): ~300 bytes
 * each (a state's JSON and its hash), ~5 MB. On the generated chain with states the newest 5,000 already give the rows
 * every earlier state they refer to (72% of the state fields embedded against 41% from each bundle's own states,
 * bench/v3StatesEmbed.ts).
 */
export const V3_STATE_HISTORY_ENTRIES = 16_384

const failed = (what: string) => (cause: unknown) =>
  new ClickHouseError({ reason: reasonOfCode(cause) ?? "QueryFailed", message: `${what}: ${(cause as Error)?.message ?? String(cause)}`, cause })

/** The embedded engine's own account of the memory it holds (allocations through its trackers), in bytes. */
export const engineMemoryTracked = async (engine: EmbeddedEngine): Promise<number> => {
  const r = await engine.run("SELECT value FROM system.metrics WHERE metric = 'MemoryTracking'", { format: "TSV" })
  return Number(Buffer.from(r.bytes).toString("utf8").trim())
}

export const makeClickHouseSink = (options: SinkOptions = {}) =>
  Effect.gen(function* () {
    const ch = yield* ClickHouse
    const metrics = yield* Metrics
    const engine = ch.embedded
    if (engine !== undefined) metrics.trackEngineMemory(() => engineMemoryTracked(engine))
    const lookback = options.traceLookback ?? 10_000
    const cache = new Lru<HashB64, HashB64>(options.traceCacheSize ?? TRACE_CACHE_ENTRIES)
    // The newest known account states' JSON the v3 page rows embed when a later bundle's line refers to one.
    const stateHistory = new StateHistory(V3_STATE_HISTORY_ENTRIES)
    const stored = yield* SubscriptionRef.make<StoredProgress>({ top: -1, transactions: 0, alreadyDone: 0 })
    const publish = (r: WriteResult) =>
      SubscriptionRef.update(stored, (p) => ({
        top: Math.max(p.top, ...r.stored, ...r.alreadyDone),
        transactions: p.transactions + r.transactions,
        alreadyDone: p.alreadyDone + r.alreadyDone.length
      }))
    // A new generation per process start: rows deleted by `recover` must be insertable again under new tokens.
    const runId = `${Date.now().toString(36)}${process.pid.toString(36)}`
    let attemptCounter = 0

    const doneAmong = (seqnos: ReadonlyArray<number>) =>
      Effect.map(
        ch.query<{ s: number | string }>(
          "SELECT DISTINCT mc_seqno AS s FROM mc_blocks_done WHERE mc_seqno IN {l:Array(UInt32)}",
          { l: seqnos }
        ),
        (rows) => new Set(rows.map((r) => Number(r.s)))
      )

    /** Trace ids of senders in stored history, for message hashes not in the cache. */
    const historyLookup = (hashes: ReadonlyArray<HashB64>, firstSeqno: number) =>
      Effect.gen(function* () {
        const found = new Map<HashB64, HashB64>()
        const misses: Array<HashB64> = []
        for (const h of hashes) {
          const t = cache.get(h)
          if (t !== undefined) found.set(h, t)
          else misses.push(h)
        }
        for (let i = 0; i < misses.length; i += LOOKUP_CHUNK) {
          const rows = yield* ch.query<{ hash: string; trace_id: string }>(
            `SELECT hash, trace_id FROM messages
             WHERE mc_block_seqno >= {lo:UInt32} AND mc_block_seqno < {hi:UInt32}
               AND direction = 'out' AND trace_id IS NOT NULL AND hash IN {h:Array(String)}
             LIMIT 1 BY hash`,
            { lo: Math.max(0, firstSeqno - lookback), hi: firstSeqno, h: misses.slice(i, i + LOOKUP_CHUNK) }
          )
          for (const r of rows) found.set(r.hash, r.trace_id)
        }
        return found
      })

    /** A table's encoder with the file its rows go on into past `spillBytes`. */
    interface TableBody {
      readonly encoder: RowEncoder
      readonly spool: SpoolFile
    }

    /**
     * Every table's encoder, its bytes past `spillBytes` going on into the table's spool file as they are written, so
     * that a batch's bodies are never all in memory. Each table's rows go into chunks of CHUNK_BYTES taken as they
     * fill: nothing to size ahead, nothing copied. The same formats to every backend: a server and the project's served
     * engine take RowBinary as the body. Whoever makes them removes the files (`removeSpools`).
     */
    const tableBodies = () =>
      new Map<TableName, TableBody>(
        INSERT_ORDER.map((t) => {
          const encoder = encoderFor(t)
          const spool = new SpoolFile(ch.spoolPath(), options.spillBytes)
          encoder.spillTo(spool)
          return [t, { encoder, spool }]
        })
      )

    const removeSpools = (bodies: Map<TableName, TableBody>) => {
      for (const b of bodies.values()) b.spool.remove()
    }

    /**
     * Rows of the batch encoded table by table as each bundle is flattened (row objects are dropped at once). The CPU
     * goes to the flatten and encode stages and, per table, to the build and encode steps. A spool file that cannot be
     * written fails the batch as an insert would (cleanup and retry); anything else thrown is a defect.
     */
    const encodeRows = (bundles: ReadonlyArray<MasterchainBundle>, bodies: Map<TableName, TableBody>, what: string) =>
      Effect.suspend(() => {
        try {
          encodeInto(bundles, bodies)
          return Effect.void
        } catch (e) {
          if (e instanceof SpoolWriteError) return Effect.fail(failed(what)(e))
          throw e
        }
      })

    const encodeInto = (bundles: ReadonlyArray<MasterchainBundle>, bodies: Map<TableName, TableBody>) => {
      const start = threadCpuSeconds()
      let flatten = 0
      let mark = 0
      let lapMark = 0
      // The table whose rows are being encoded since encodeMark (visits come table by table).
      let encoding: TableName | undefined
      let encodeMark = start
      const endEncoding = (now: number) => {
        if (encoding !== undefined) metrics.consumerTableCpuSeconds.inc({ table: encoding, step: "encode" }, now - encodeMark)
        encoding = undefined
      }
      visitBundleRows(
        bundles,
        (table, row) => {
          if (table !== encoding) {
            const now = threadCpuSeconds()
            endEncoding(now)
            encoding = table
            encodeMark = now
          }
          bodies.get(table)!.encoder.add(row)
        },
        {
          before: () => {
            mark = lapMark = threadCpuSeconds()
            endEncoding(mark)
          },
          lap: (part) => {
            const now = threadCpuSeconds()
            metrics.consumerTableCpuSeconds.inc({ table: part, step: "build" }, now - lapMark)
            lapMark = now
          },
          after: () => void (flatten += threadCpuSeconds() - mark)
        },
        // Single node: the key-value page rows serve the pages, so `tx_pages` gets only the pieces they cannot serve;
        // their v3 rows embed the known states of this batch and of the ones before (`stateHistory`).
        ch.cluster === undefined ? { pageKv: true, earlierStates: stateHistory } : { pageKv: false }
      )
      const end = threadCpuSeconds()
      endEncoding(end)
      metrics.stageCpuSeconds.inc({ stage: "flatten" }, flatten)
      metrics.stageCpuSeconds.inc({ stage: "encode" }, end - start - flatten)
    }

    const insertAll = (
      bodies: Map<TableName, TableBody>,
      first: number,
      last: number,
      digest: string,
      heartbeat: () => Promise<void>,
      group: WriteScope | undefined
    ) =>
      Effect.gen(function* () {
        const generation = `${runId}.${attemptCounter++}`
        const owning = (what: string) =>
          group === undefined || group.guard()
            ? Effect.void
            : Effect.fail(new SinkFenced({ message: `mc ${first}..${last}: gave up before ${what}: partitions may have moved` }))
        // One statement per table, in INSERT_ORDER: the analytics views count one insert per masterchain block and
        // table (queryID), and the completion marker must be the last statement.
        for (const table of INSERT_ORDER) {
          const { encoder, spool } = bodies.get(table)!
          if (encoder.rows === 0) continue
          // Key-value rows (sql/0131, sql/0132, sql/0134) are per node and not replicated: off on a cluster, where
          // pages read tx_pages (which then gets every transaction's piece, see encodeRows) and account_states.
          if (KV_TABLES.has(table) && ch.cluster !== undefined) continue
          if (group !== undefined) {
            // A heartbeat right before the check keeps "heard from the coordinator" fresh (and a failed one, which
            // means a rebalance, moves the epoch).
            yield* Effect.promise(() => heartbeat().catch(() => undefined))
            yield* owning(table === "mc_blocks_done" ? "the completion markers" : `the ${table} rows`)
          }
          // The chunks go to the insert as they are (streamed to a server, spooled one by one to the embedded
          // engine's file), after the bytes already in the table's spool file: no whole-body copy.
          const { columns, chunks, rows } = encoder.finishChunks()
          const body = yield* Effect.try({
            try: () => spool.finish(chunks),
            catch: failed(`the ${table} rows' spool file`)
          })
          const endTimer = metrics.consumerInsertSeconds.startTimer({ table })
          const cpuBefore = processCpuSeconds()
          const insert = Effect.tryPromise({
            try: () =>
              ch.insertEncoded({
                table,
                columns,
                format: encoder.format,
                body,
                settings: { insert_deduplication_token: insertToken(table, first, last, digest, generation) }
              }),
            catch: failed(`insert into ${table} (mc ${first}..${last})`)
          })
          // A long insert must not cost the group membership: keep heartbeating while it runs.
          const beat = Effect.promise(() => heartbeat().catch(() => undefined)).pipe(
            Effect.zipRight(Effect.sleep(Duration.seconds(3))),
            Effect.forever
          )
          yield* Effect.raceFirst(insert, Effect.zipRight(beat, Effect.never))
          // The table's file is not needed past its statement (the caller removes any left on a failure).
          spool.remove()
          endTimer()
          // The engine works on its own threads: the process's CPU while the insert ran is its cost.
          const insertCpu = processCpuSeconds() - cpuBefore
          metrics.stageCpuSeconds.inc({ stage: "insert" }, insertCpu)
          metrics.consumerTableCpuSeconds.inc({ table, step: "insert" }, insertCpu)
          metrics.consumerRows.inc({ table }, rows)
        }
      })

    /**
     * The code hashes' key-value rows of a batch whose blocks are all done (after the completion markers: every row
     * is of a done block; src/store/accountCodeKv.ts keeps the newest): the account rows of `account_lookups_kv`
     * (sql/0142), by guarded puts. Per node, so off on a cluster.
     */
    const writeCodes = (items: ReadonlyArray<SinkItem>, first: number, last: number) => {
      if (ch.cluster !== undefined) return Effect.void
      const rows = items.flatMap((i) => latestAccountCodeRows(i.bundle))
      const seqnos = items.map((i) => i.bundle.mc_seqno)
      return Effect.tryPromise({
        try: () => writeAccountCodes(ch.client, rows, seqnos, options.codeKvHooks),
        catch: failed(`account_lookups_kv (mc ${first}..${last})`)
      }).pipe(Effect.asVoid)
    }

    const writeOnce = (sorted: ReadonlyArray<SinkItem>, heartbeat: () => Promise<void>, group: WriteScope | undefined) =>
      Effect.gen(function* () {
        const done = yield* doneAmong(sorted.map((i) => i.bundle.mc_seqno))
        const todo = sorted.filter((i) => !done.has(i.bundle.mc_seqno))
        const alreadyDone = sorted.filter((i) => done.has(i.bundle.mc_seqno)).map((i) => i.bundle.mc_seqno)
        if (todo.length === 0) {
          // a retry after the markers were written but not the code rows (or a replay) writes them (guarded)
          yield* writeCodes(sorted, sorted[0]!.bundle.mc_seqno, sorted[sorted.length - 1]!.bundle.mc_seqno)
          return { stored: [], alreadyDone, transactions: 0, rows: 0 }
        }
        const first = todo[0]!.bundle.mc_seqno
        const last = todo[todo.length - 1]!.bundle.mc_seqno

        // Records this producer publishes carry their trace ids: a batch whose every transaction has one is written
        // as it came, and the cache (which only spares storage lookups for transactions without one) learns nothing
        // from it, so at volume it stays empty instead of churning through its bound in the old generation.
        const untraced = todo.some((i) => i.bundle.transactions.some((t) => t.trace_id === null))
        let bundles: Array<MasterchainBundle> = todo.map((i) => i.bundle)
        if (untraced) {
          const parents = externalParents(todo.flatMap((i) => i.bundle.transactions))
          const history = yield* historyLookup(parents, first)
          const traced = assignTraceIds(
            todo.map((i) => i.bundle.transactions),
            { get: (h) => history.get(h) },
            "own-hash",
            (m, t) => cache.set(m, t)
          )
          bundles = todo.map((i, k) => ({ ...i.bundle, transactions: traced[k]! }))
        }
        const digest = batchDigest(bundles.map((bundle, k) => ({ bundle, digest: todo[k]!.digest })))
        // The batch's spool files go when its inserts end, whatever ended them (the encoding included).
        const bodies = tableBodies()
        const rowCount = yield* encodeRows(bundles, bodies, `mc ${first}..${last}`).pipe(
          // counted before the inserts, which take the encoders' rows
          Effect.map(() => [...bodies.values()].reduce((n, b) => n + b.encoder.rows, 0)),
          Effect.tap(() => insertAll(bodies, first, last, digest, heartbeat, group)),
          Effect.ensuring(Effect.sync(() => removeSpools(bodies)))
        )
        yield* writeCodes(sorted, first, last)
        const transactions = bundles.reduce((n, b) => n + b.transactions.length, 0)
        return { stored: bundles.map((b) => b.mc_seqno), alreadyDone, transactions, rows: rowCount } satisfies WriteResult
      })

    const write = (items: ReadonlyArray<SinkItem>, heartbeat: () => Promise<void>, group?: WriteScope) => {
      const sorted = [...new Map(items.map((i) => [i.bundle.mc_seqno, i])).values()].sort(
        (a, b) => a.bundle.mc_seqno - b.bundle.mc_seqno
      )
      if (sorted.length === 0) return Effect.succeed<WriteResult>({ stored: [], alreadyDone: [], transactions: 0, rows: 0 })
      const cleanup = Effect.tryPromise({
        try: () =>
          deleteIncomplete(ch.client, {
            fromSeqno: sorted[0]!.bundle.mc_seqno,
            ...(ch.cluster ? { cluster: ch.cluster } : {}),
            ...(group === undefined ? {} : { scope: group.scope })
          }),
        catch: failed("removing partial rows")
      }).pipe(Effect.tap((s) => Effect.sync(() => metrics.consumerIncompleteRemoved.inc(s.length))))
      // A failed attempt may have left some tables written (or even the markers, if only the answer was lost):
      // remove rows without marker, then start over from "which of these are done".
      return writeOnce(sorted, heartbeat, group).pipe(
        Effect.tapError((e) =>
          e._tag === "SinkFenced"
            ? Effect.void
            : Effect.logWarning(`sink: ${e.message}; cleaning up and retrying the batch`).pipe(
                Effect.zipRight(group === undefined || group.guard() ? Effect.ignore(cleanup) : Effect.void)
              )
        ),
        Effect.retry({
          while: (e) => e._tag !== "SinkFenced" && (group === undefined || group.guard()),
          schedule: Schedule.exponential(Duration.millis(200)).pipe(
            Schedule.intersect(Schedule.recurs((options.attempts ?? 5) - 1))
          )
        }),
        Effect.tap(publish)
      )
    }

    return {
      recover: Effect.tryPromise({
        try: () => deleteIncomplete(ch.client, ch.cluster ? { cluster: ch.cluster } : {}),
        catch: failed("start-up cleanup")
      }).pipe(
        Effect.tap((s) => Effect.sync(() => metrics.consumerIncompleteRemoved.inc(s.length)))
      ),
      recoverScope: (scope: PartitionScope) =>
        Effect.tryPromise({
          try: () => deleteIncomplete(ch.client, { scope, ...(ch.cluster ? { cluster: ch.cluster } : {}) }),
          catch: failed("cleanup of new partitions")
        }).pipe(
          Effect.tap((s) => Effect.sync(() => metrics.consumerIncompleteRemoved.inc(s.length)))
        ),
      lastDone: Effect.map(
        ch.query<{ s: string | number }>("SELECT toInt64(max(mc_seqno)) AS s, count() AS n FROM mc_blocks_done"),
        (rows) => (rows[0] === undefined || Number((rows[0] as { n?: unknown }).n ?? 0) === 0 ? -1 : Number(rows[0].s))
      ),
      write,
      stored
    } satisfies SinkShape
  })

export class ClickHouseSink extends Context.Tag("ClickHouseSink")<ClickHouseSink, SinkShape>() {
  static readonly layer = Layer.effect(ClickHouseSink, makeClickHouseSink())
  static readonly layerWith = (options: SinkOptions) => Layer.effect(ClickHouseSink, makeClickHouseSink(options))
}
