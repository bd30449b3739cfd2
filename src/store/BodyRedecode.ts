/**
 * The re-decode of a store written by an older body decoder (./redecode.ts) as a start-up step of the processes that
 * migrate the schema. `layer` runs it beside the service (the consumer ingests meanwhile: its rows already hold this
 * decoder's values) and stops it between batches at shutdown, to resume at the next start; `layerAwaited` finishes
 * it before the layer is built (the all-in-one process, whose API would otherwise cache pages rendered before it).
 * A failure is logged, never fatal: the version stays unrecorded, so the next start tries again. After it, the
 * key-value table of a v3 page's lookups (sql/0142, ./accountLookupsKv.ts) and the key-value v3 and v2 page rows
 * (sql/0131, sql/0132) and the masterchain blocks' rows of blocks and shard tops (sql/0150) missing for done blocks
 * are filled the same way (./backfillV3Pages.ts, ./backfillV2Pages.ts, ./backfillMcShards.ts), and the known states
 * embedded into the v3 page rows written before the consumer embedded them (./embedV3States.ts).
 */
import { Context, Effect, Layer, Runtime } from "effect"
import { ClickHouse } from "../clickhouse/ClickHouse.js"
import { Migrations } from "../clickhouse/migrations.js"
import { installFastCellHash } from "../ton/fastHash.js"
import { backfillV3Pages } from "./backfillV3Pages.js"
import { embedV3States } from "./embedV3States.js"
import { backfillV2Pages } from "./backfillV2Pages.js"
import { backfillMcShards } from "./backfillMcShards.js"
import { fillAccountLookupsKv } from "./accountLookupsKv.js"
import { redecodeBodies, type RedecodeReport } from "./redecode.js"

export class BodyRedecode extends Context.Tag("ton-exporter/BodyRedecode")<
  BodyRedecode,
  {
    /** The run's report once it ended (undefined when it failed). */
    readonly done: Effect.Effect<RedecodeReport | undefined>
  }
>() {
  private static readonly start = Effect.gen(function* () {
    yield* Migrations
    const ch = yield* ClickHouse
    // Every stored body is parsed again: the faster cell code (the consumer installs it too).
    yield* Effect.sync(installFastCellHash)
    const runtime = yield* Effect.runtime<never>()
    const log = (line: string) => Runtime.runFork(runtime)(Effect.logInfo(line))
    const controller = new AbortController()
    const running = redecodeBodies(ch.client, {
      ...(ch.cluster ? { cluster: ch.cluster } : {}),
      signal: controller.signal,
      onProgress: log
    }).then(
      (report) => {
        if (report.outcome === "newer") {
          log(`redecode: the store holds body decoder version ${report.from}, newer than this build's: left as is`)
        }
        if (report.outcome === "stopped") log("redecode: stopped at shutdown; the next start resumes it")
        return report
      },
      (e: unknown) => {
        Runtime.runFork(runtime)(
          Effect.logWarning(`redecode: failed, retried at the next start: ${(e as Error)?.message ?? String(e)}`)
        )
        return undefined
      }
    ).then(async (report) => {
      // Each fill below logs its line when it did something; a failure is logged and the next start tries again.
      const fill = (name: string, run: () => Promise<string | null>) =>
        run().then(
          (line) => {
            if (line !== null) log(line)
          },
          (e: unknown) => {
            const reason = (e as Error)?.message ?? String(e)
            Runtime.runFork(runtime)(Effect.logWarning(`${name}: fill failed, retried at the next start: ${reason}`))
          }
        )
      // First the one key-value table a v3 page's lookups read (sql/0142): the known states copied from
      // `account_states`, each account's newest done code hash put from `latest_account_code` (safe beside this
      // process's own puts). Off on a cluster; until it is filled pages read those two MergeTree tables.
      if (ch.cluster !== undefined || controller.signal.aborted) return report
      await fill("account_lookups_kv", async () => {
        const n = await fillAccountLookupsKv(ch.client)
        if (n === null) return null
        return `account_lookups_kv: copied ${n.states} account states and ${n.accounts} accounts' code hashes`
      })
      // Then the key-value v3 page rows (sql/0131) of done blocks not filled yet (after a re-render, which fills its
      // own blocks' rows): off on a cluster.
      if (ch.cluster !== undefined || controller.signal.aborted) return report
      await fill("v3_pages", async () => {
        const rows = await backfillV3Pages(ch.client, { signal: controller.signal })
        return rows > 0 ? `v3_pages: filled ${rows} masterchain block rows` : null
      })
      // Then the known states embedded into the v3 page rows written before the consumer embedded them (sql/0151),
      // once the lookups table above is filled.
      if (controller.signal.aborted) return report
      await fill("v3_pages states", async () => {
        const rows = await embedV3States(ch.client, { signal: controller.signal })
        return rows > 0 ? `v3_pages: embedded the known states of ${rows} masterchain block rows` : null
      })
      // Then the key-value v2 page rows (sql/0132) of done blocks not filled yet, the same way.
      if (controller.signal.aborted) return report
      await fill("v2_pages", async () => {
        const rows = await backfillV2Pages(ch.client, { signal: controller.signal })
        return rows > 0 ? `v2_pages: filled ${rows} block rows` : null
      })
      // Then the key-value rows of the masterchain blocks' blocks and shard tops (sql/0150), the same way.
      if (controller.signal.aborted) return report
      await fill("mc_shards_kv", async () => {
        const rows = await backfillMcShards(ch.client, { signal: controller.signal })
        return rows > 0 ? `mc_shards_kv: filled ${rows} masterchain block rows` : null
      })
      return report
    })
    yield* Effect.addFinalizer(() =>
      Effect.promise(() => {
        controller.abort()
        return running
      })
    )
    return { done: Effect.promise(() => running) }
  })

  /** Runs beside the service; shutdown waits for the current batch. */
  static readonly layer = Layer.scoped(BodyRedecode, BodyRedecode.start)

  /** Built once the run ended. */
  static readonly layerAwaited = Layer.scoped(
    BodyRedecode,
    Effect.tap(BodyRedecode.start, (s) => s.done)
  )
}
