/**
 * The upstream contract the producer codes against: the latest masterchain seqno and, per masterchain seqno, a raw
 * bundle (every block it commits with all their transactions as the BOCs upstream sent).
 * Invariant: a bundle is complete or it is an error; transactions are ordered by block (masterchain block first, then
 * shard blocks by (workchain, shard, seqno)) and inside a block by (account, lt), so equal inputs give equal bundles.
 */
import { type ConfigError, Context, Effect, Layer } from "effect"
import { ToncenterConfig } from "../config.js"
import { startFakeToncenter } from "../../tools/fake/server.js"
import { makeToncenterUpstream } from "./Toncenter.js"
import type { ToncenterOptions, UpstreamService } from "./types.js"

export { retryableReasons, UpstreamError } from "./types.js"
export type {
  RawMasterchainBundle,
  RawTransaction,
  ToncenterOptions,
  UpstreamErrorReason,
  UpstreamService
} from "./types.js"

export class Upstream extends Context.Tag("Upstream")<Upstream, UpstreamService>() {
  /**
   * From the TONCENTER_* settings. Without TONCENTER_URL the bundled recorded data is served by an in-process fake
   * toncenter on a loopback port for the layer's lifetime, so the whole pipeline runs offline.
   */
  static readonly layer: Layer.Layer<Upstream, ConfigError.ConfigError> = Layer.scoped(
    Upstream,
    Effect.gen(function* () {
      const t = yield* ToncenterConfig
      if (t.url !== undefined) {
        return yield* makeToncenterUpstream({
          url: t.url,
          apiKey: t.apiKey,
          v3Url: t.v3Url,
          v3BlocksUrl: t.v3BlocksUrl,
          rps: t.rps,
          endpoints: t.endpoints,
          concurrency: t.concurrency,
          timeoutMs: t.timeoutMs,
          retries: t.retries
        })
      }
      const fake = yield* Effect.acquireRelease(
        Effect.promise(() => startFakeToncenter({ chain: { kind: "fixtures" } })),
        (f) => Effect.promise(() => f.stop())
      )
      yield* Effect.logInfo(`no TONCENTER_URL: serving bundled recorded data from ${fake.url}`)
      return yield* makeToncenterUpstream({ url: fake.url, rps: 0, concurrency: t.concurrency, retries: t.retries })
    })
  )

  /** toncenter over HTTP with explicit options (tests, jobs that start their own fake). */
  static layerFrom(opts: ToncenterOptions): Layer.Layer<Upstream> {
    return Layer.effect(Upstream, makeToncenterUpstream(opts))
  }
}
