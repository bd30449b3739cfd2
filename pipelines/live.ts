// The choices the runnables share, made once: which upstream (liteservers when LITESERVER_CONFIG is set, toncenter
// when TONCENTER_URL is set, otherwise the local fake serving the bundled real transactions: the offline demo) and the producer's run that follows from it.
// Invariant: this is the only module that chooses an upstream; the product's modules (src/) never import the fake.
import { Config, type ConfigError, Context, Effect, Layer, Option } from "effect"
import { LiteserverConfig, ProducerConfig, settings, ToncenterConfig } from "../src/config.js"
import { Producer, type ProducerRun, runTuning } from "../src/producer/Producer.js"
import { Upstream } from "../src/source/Upstream.js"
import { startFakeToncenter } from "../tools/fake/server.js"

export interface UpstreamInfo {
  /** For the start-up banner. */
  readonly description: string
  /** The local fake's chain, which the offline demo backfills; undefined for a real upstream. */
  readonly range: { readonly first: number; readonly last: number } | undefined
}

/** Which upstream this process uses, as a service beside the `Upstream` it provides. */
export class UpstreamChoice extends Context.Tag("ton-exporter/UpstreamChoice")<UpstreamChoice, UpstreamInfo>() {
  static readonly layer: Layer.Layer<Upstream | UpstreamChoice, ConfigError.ConfigError> = Layer.unwrapScoped(
    Effect.gen(function* () {
      const ls = yield* LiteserverConfig
      if (ls.config !== undefined) {
        return Layer.merge(Upstream.layer, Layer.succeed(UpstreamChoice, { description: `liteservers ${ls.config}`, range: undefined }))
      }
      const t = yield* ToncenterConfig
      if (t.url !== undefined) {
        return Layer.merge(Upstream.layer, Layer.succeed(UpstreamChoice, { description: t.url, range: undefined }))
      }
      const fake = yield* Effect.acquireRelease(
        Effect.promise(() => startFakeToncenter({ chain: { kind: "fixtures" } })),
        (f) => Effect.promise(() => f.stop())
      )
      return Layer.merge(
        Upstream.layerFrom({ url: fake.url, rps: 1000, concurrency: 8 }),
        Layer.succeed(UpstreamChoice, {
          description: `local fake toncenter ${fake.url} (bundled real transactions, mc ${fake.chain.first}..${fake.chain.last})`,
          range: { first: fake.chain.first, last: fake.chain.last }
        })
      )
    })
  )
}

/** PRODUCER_* settings; on the offline fake without an explicit PRODUCER_MODE, a backfill of the fake's chain. */
export const producerRun: Effect.Effect<ProducerRun, ConfigError.ConfigError, UpstreamChoice> = Effect.gen(function* () {
  const configured = yield* ProducerConfig
  const { range } = yield* UpstreamChoice
  const explicitMode = Option.isSome(yield* Config.option(Config.nonEmptyString(settings.producer.mode.env)))
  const common = runTuning(configured)
  return range !== undefined && !explicitMode
    ? { mode: "backfill", from: configured.from ?? range.first, to: configured.to ?? range.last, ...common }
    : { mode: configured.mode, from: configured.from, to: configured.to, ...common }
})

/** The producer service running `producerRun` over the chosen upstream. */
export const ProducerLive = Layer.unwrapEffect(Effect.map(producerRun, Producer.layerWith)).pipe(
  Layer.provideMerge(UpstreamChoice.layer)
)
