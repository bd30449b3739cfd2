// The producer on its own: toncenter (TONCENTER_URL) -> decoded bundles -> Kafka. Mode and range come from
// PRODUCER_MODE / PRODUCER_FROM / PRODUCER_TO, overridden by --mode, --from, --to. Metrics and /health on
// METRICS_PORT. A backfill ends with a summary line; follow and resume run until Ctrl-C.
import { Console, Effect, Layer } from "effect"
import { parseArgs } from "node:util"
import {
  KafkaConfig,
  LiteserverConfig,
  NetworkConfig,
  ProducerConfig,
  ToncenterConfig,
  settingConfig,
  settings
} from "../src/config.js"
import { KafkaBrokers } from "../src/infra/KafkaBrokers.js"
import { runMain } from "../src/infra/runMain.js"
import { KafkaClient, optionsFromSettings } from "../src/kafka/KafkaClient.js"
import { Health } from "../src/ops/Health.js"
import { Metrics } from "../src/ops/Metrics.js"
import { OpsServerLive } from "../src/ops/OpsServer.js"
import { runProducer, type ProducerMode } from "../src/producer/Producer.js"
import { Upstream } from "../src/source/Upstream.js"
import { pipelineDecode } from "../src/producer/assemble.js"

const { values: args } = parseArgs({
  options: { mode: { type: "string" }, from: { type: "string" }, to: { type: "string" } },
  strict: true
})

const int = (name: string, raw: string | undefined) => {
  if (raw === undefined) return undefined
  const n = Number(raw)
  if (!Number.isSafeInteger(n) || n < 0) throw new Error(`--${name}: expected a masterchain seqno, got ${raw}`)
  return n
}

const program = Effect.gen(function* () {
  const configured = yield* ProducerConfig
  const mode = (args.mode ?? (args.from !== undefined && args.to !== undefined ? "backfill" : configured.mode)) as ProducerMode
  if (!["backfill", "follow", "resume"].includes(mode)) return yield* Effect.dieMessage(`--mode: expected backfill|follow|resume`)
  const summary = yield* runProducer(
    {
      mode,
      from: int("from", args.from) ?? configured.from,
      to: int("to", args.to) ?? configured.to,
      decodeWorkers: configured.decodeWorkers
    },
    pipelineDecode
  )
  yield* Console.log(
    `producer done: mc ${summary.first ?? "-"}..${summary.last ?? "-"}, ${summary.bundles} bundles, ` +
      `${summary.transactions} transactions, ${summary.deadLetters} dead letters`
  )
})

const UpstreamLive = Layer.unwrapEffect(
  Effect.gen(function* () {
    if ((yield* LiteserverConfig).config !== undefined) return Upstream.layerLiteserver
    const t = yield* ToncenterConfig
    if (t.url === undefined) {
      return yield* Effect.dieMessage(
        `${settings.toncenter.url.env} is required by the standalone producer (npm start runs the offline demo)`
      )
    }
    return Upstream.layerFrom({ ...t, url: t.url })
  })
)

const KafkaLive = Layer.unwrapEffect(
  Effect.gen(function* () {
    const s = yield* KafkaConfig
    const network = yield* NetworkConfig
    const { brokers } = yield* KafkaBrokers
    return KafkaClient.layerWith(optionsFromSettings({ ...s, brokers }, network))
  })
).pipe(Layer.provide(KafkaBrokers.layer))

const OpsLive = Layer.unwrapEffect(Effect.map(settingConfig(settings.metrics.port), (port) => OpsServerLive(port)))

runMain(
  program.pipe(
    Effect.provide(OpsLive),
    Effect.provide(Layer.mergeAll(KafkaLive, UpstreamLive, Metrics.layer, Health.layer))
  )
)
