/**
 * What the main job says while it starts and once it is ready: a line before each slow step (what happens, how long
 * it usually takes), the time it took after it, and one banner with every address a user opens, including a v2 and
 * a v3 URL of a stored masterchain block that holds transactions. Invariant: the texts are pure functions of their
 * inputs (testable without I/O), and no summary ever prints a placeholder for a missing value.
 */
import { Console, Effect, Layer } from "effect"
import { existsSync } from "node:fs"
import { join, resolve } from "node:path"
import type { ClickHouseError } from "../clickhouse/ClickHouse.js"
import type { SqlAccess } from "../clickhouse/SqlEndpoint.js"
import { kafkaLibsDir } from "../infra/kafkaBroker.js"

/** Runs `layer` between a line saying what starts and one saying how long it took. */
export const announced = <ROut, E, RIn, E2, R2>(
  before: Effect.Effect<string | undefined, E2, R2>,
  layer: Layer.Layer<ROut, E, RIn>,
  after: (seconds: string) => string
): Layer.Layer<ROut, E | E2, RIn | R2> =>
  Layer.unwrapEffect(
    Effect.gen(function* () {
      const line = yield* before
      if (line === undefined) return layer
      yield* Console.log(line)
      const started = Date.now()
      return Layer.tap(layer, () => Console.log(after(((Date.now() - started) / 1000).toFixed(1))))
    })
  )

/** The local broker's slow steps still to do: fetching its jars (first run), formatting its storage (first start). */
export const kafkaStartLine = (o: { readonly jarsCached: boolean; readonly formatted: boolean; readonly port: number }): string =>
  [
    "kafka: ",
    o.jarsCached ? "" : "fetching the broker's jars with Maven (first run only, usually 30-120 s), then ",
    o.formatted ? "starting" : "formatting storage and starting",
    ` the local broker on 127.0.0.1:${o.port} (usually 10-45 s, the longer on a busy machine)...`
  ].join("")

/** `kafkaStartLine` for this machine's cache and KAFKA_DATA_DIR; undefined when KAFKA_BROKERS names brokers. */
export const localKafkaStartLine = (o: {
  readonly brokers: ReadonlyArray<string>
  readonly port: number
  readonly dataDir: string
}): string | undefined =>
  o.brokers.length > 0
    ? undefined
    : kafkaStartLine({
        jarsCached: existsSync(join(kafkaLibsDir(), ".complete")),
        formatted: existsSync(join(resolve(o.dataDir), "data", "meta.properties")),
        port: o.port
      })

export const clickHouseStartLine = (o: { readonly url: string | undefined; readonly dataDir: string }): string =>
  o.url === undefined
    ? `clickhouse: opening embedded chdb on ${resolve(o.dataDir)} (usually 2-10 s; the first open creates it)...`
    : `clickhouse: connecting to ${o.url}...`

export const migrationsLine = "clickhouse: applying migrations (usually 1-5 s on a new database, under 1 s after)..."

/** A stored masterchain block whose own (workchain -1) transactions the API serves. */
export interface SampleBlock {
  readonly seqno: number
  readonly transactions: number
}

/** The newest fully stored masterchain block holding masterchain transactions, if any. */
export const findSampleBlock = (
  query: <A>(sql: string) => Effect.Effect<ReadonlyArray<A>, ClickHouseError>
): Effect.Effect<SampleBlock | undefined, ClickHouseError> =>
  Effect.map(
    query<{ seqno: number | string; transactions: number | string }>(
      "SELECT mc_block_seqno AS seqno, count() AS transactions FROM transactions " +
        "WHERE block_workchain = -1 AND mc_block_seqno IN (SELECT mc_seqno FROM mc_blocks_done) " +
        "GROUP BY mc_block_seqno ORDER BY mc_block_seqno DESC LIMIT 1"
    ),
    (rows) => (rows[0] === undefined ? undefined : { seqno: Number(rows[0].seqno), transactions: Number(rows[0].transactions) })
  )

export interface BannerInput {
  /** The API's base address, e.g. http://127.0.0.1:8080. */
  readonly api: string
  readonly sample: SampleBlock | undefined
  readonly metrics: string | undefined
  readonly sql: SqlAccess
}

const MC_SHARD = "-9223372036854775808"

export const sampleUrls = (api: string, seqno: number): { readonly v2: string; readonly v3: string } => ({
  v2: `${api}/api/v2/getBlockTransactionsExt?workchain=-1&shard=${MC_SHARD}&seqno=${seqno}`,
  v3: `${api}/api/v3/masterchainBlockShardState?seqno=${seqno}`
})

/** The one block of addresses printed when the job is ready. */
export const formatBanner = (b: BannerInput): string => {
  const rows: Array<readonly [string, string]> = [["API docs", `${b.api}/api/docs`]]
  if (b.sample !== undefined) {
    const u = sampleUrls(b.api, b.sample.seqno)
    const note = `mc ${b.sample.seqno}, ${b.sample.transactions} masterchain transaction${b.sample.transactions === 1 ? "" : "s"}`
    rows.push(["v2 block", `${u.v2}  (${note})`], ["v3 block", u.v3])
  } else {
    rows.push(["v2/v3 block", "no stored masterchain block holds transactions yet"])
  }
  rows.push(["overview", `${b.api}/overview`])
  rows.push([
    "metrics",
    b.metrics === undefined
      ? `${b.api}/metrics and ${b.api}/health (the read API)`
      : `${b.metrics}/metrics and ${b.metrics}/health (pipeline); ${b.api}/metrics and ${b.api}/health (read API)`
  ])
  rows.push([
    "SQL",
    b.sql.kind === "endpoint"
      ? `${b.sql.url}  (read-only ClickHouse HTTP; try: curl --data-binary 'SELECT count() FROM transactions' ${b.sql.url})`
      : b.sql.kind === "server"
        ? `the ClickHouse server at ${b.sql.url} serves SQL itself (no endpoint started here)`
        : "off (SQL_PORT=0)"
  ])
  const width = Math.max(...rows.map(([k]) => k.length))
  return ["ready:", ...rows.map(([k, v]) => `  ${k.padEnd(width)}  ${v}`), "Ctrl-C stops."].join("\n")
}

export interface RunSummary {
  readonly first: number | undefined
  readonly last: number | undefined
  readonly bundles: number
  readonly published: number
  readonly stored: number
  /** Bundles the consumer found already stored (a replay after a restart). */
  readonly alreadyStored?: number
  readonly deadLetters: number
  readonly seconds: number
}

/** The end-of-backfill line; "nothing new" when the topic already held the whole range. */
export const formatRunSummary = (s: RunSummary): string =>
  s.first === undefined || s.last === undefined || s.bundles === 0
    ? `done: nothing new (the store already holds the range), ${s.seconds.toFixed(1)} s`
    : `done: mc ${s.first}..${s.last}: ${s.bundles} bundles, ${s.published} transactions published, ${s.stored} stored` +
      `${(s.alreadyStored ?? 0) > 0 ? ` (${s.alreadyStored} bundles were already stored)` : ""}` +
      `${s.deadLetters > 0 ? `, ${s.deadLetters} dead letters` : ""}, ${s.seconds.toFixed(1)} s`
