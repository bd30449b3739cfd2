// The producer on its own: the upstream (pipelines/live.ts) -> decoded bundles -> Kafka. Mode and range come from
// PRODUCER_MODE / PRODUCER_FROM / PRODUCER_TO, overridden by --mode, --from, --to (read by the same parsers; both
// --from and --to without --mode mean a backfill). Metrics and /health on METRICS_PORT. A backfill ends with a
// summary line; follow and resume run until Ctrl-C.
import { ConfigProvider, Console, Effect, Layer } from "effect"
import { settings } from "../src/config.js"
import { parseCli } from "../src/infra/cli.js"
import { runMain } from "../src/infra/runMain.js"
import { KafkaClient } from "../src/kafka/KafkaClient.js"
import { Health } from "../src/ops/Health.js"
import { Metrics } from "../src/ops/Metrics.js"
import { OpsServerLayer } from "../src/ops/OpsServer.js"
import { Producer } from "../src/producer/Producer.js"
import { ProducerLive } from "./live.js"

const args = parseCli(
  { mode: { type: "string" }, from: { type: "string" }, to: { type: "string" } },
  `usage: npm run producer -- [--mode follow|backfill|resume] [--from MC_SEQNO --to MC_SEQNO]
  (or PRODUCER_MODE, PRODUCER_FROM, PRODUCER_TO; --from and --to without --mode mean a backfill)`
)
const p = settings.producer
const overrides: Array<[string, string | undefined]> = [
  [p.mode.env, args.mode ?? (args.from !== undefined && args.to !== undefined ? "backfill" : undefined)],
  [p.from.env, args.from],
  [p.to.env, args.to]
]
const cli = ConfigProvider.fromMap(new Map(overrides.filter((e): e is [string, string] => e[1] !== undefined))).pipe(
  ConfigProvider.orElse(() => ConfigProvider.fromEnv())
)

const program = Effect.gen(function* () {
  const summary = yield* Effect.flatMap(Producer, (producer) => producer.done)
  yield* Console.log(
    `producer done: mc ${summary.first ?? "-"}..${summary.last ?? "-"}, ${summary.bundles} bundles, ` +
      `${summary.transactions} transactions, ${summary.deadLetters} dead letters`
  )
})

const Live = Layer.mergeAll(ProducerLive, OpsServerLayer).pipe(
  Layer.provide(KafkaClient.layer),
  Layer.provide(Layer.mergeAll(Metrics.layer, Health.layer))
)

runMain(program.pipe(Effect.provide(Live), Effect.withConfigProvider(cli)))
