/**
 * One sink over a test database, as one consumer process holds it: `withSink(config, f)` builds `ClickHouseSink`
 * (its start-up recovery included) on the settings of `testClickHouse`, runs `f` with it and closes it.
 */
import { Effect, Layer } from "effect"
import { ClickHouse, type ClickHouseClientConfig } from "../../src/clickhouse/ClickHouse.js"
import { Metrics } from "../../src/ops/Metrics.js"
import { ClickHouseSink, type SinkItem } from "../../src/sink/ClickHouseSink.js"
import type { MasterchainBundle } from "../../src/ton/record.js"

export const withSink = <A>(
  config: ClickHouseClientConfig,
  f: (sink: ClickHouseSink["Type"]) => Effect.Effect<A, unknown>
) =>
  Effect.runPromise(
    Effect.flatMap(ClickHouseSink, f).pipe(
      Effect.provide(
        ClickHouseSink.layer.pipe(Layer.provideMerge(ClickHouse.fromConfig(config)), Layer.provide(Metrics.layerTest))
      ),
      Effect.scoped
    ) as Effect.Effect<A, unknown, never>
  )

/** A bundle as the consumer hands it to the sink, with a digest of its own. */
export const sinkItem = (bundle: MasterchainBundle): SinkItem => ({ bundle, digest: `d${bundle.mc_seqno}` })
