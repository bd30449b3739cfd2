/**
 * The upstream contract the producer codes against: the latest masterchain seqno and, per masterchain seqno, a raw
 * bundle (every block it commits with all their transactions as the BOCs upstream sent).
 * Invariant: a bundle is complete or it is an error; transactions are ordered by block (masterchain block first, then
 * shard blocks by (workchain, shard, seqno)) and inside a block by (account, lt), so equal inputs give equal bundles.
 */
import { ConfigError, Context, Effect, Layer, Redacted } from "effect"
import { LiteserverConfig, settings, ToncenterConfig } from "../config.js"
import { makeToncenterUpstream } from "./Toncenter.js"
import { liteserverFromSettings } from "./liteserver/Liteserver.js"
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
   * The liteserver source when LITESERVER_CONFIG is set, else toncenter from the TONCENTER_* settings (TONCENTER_URL
   * is then required). Which upstream a runnable uses (this one, or a local stand-in for the offline demo) is decided
   * by the runnables' composition, not by this module.
   */
  static readonly layer: Layer.Layer<Upstream, ConfigError.ConfigError> = Layer.scoped(
    Upstream,
    Effect.gen(function* () {
      const ls = yield* LiteserverConfig
      if (ls.config !== undefined) return yield* liteserverFromSettings({ ...ls, config: ls.config })
      const t = yield* ToncenterConfig
      if (t.url === undefined) {
        return yield* Effect.fail(ConfigError.MissingData([settings.toncenter.url.env], `${settings.toncenter.url.env} is not set`))
      }
      return yield* makeToncenterUpstream({
        url: t.url,
        apiKey: t.apiKey === undefined ? undefined : Redacted.value(t.apiKey),
        v3Url: t.v3Url,
        v3BlocksUrl: t.v3BlocksUrl,
        rps: t.rps,
        endpoints: t.endpoints,
        concurrency: t.concurrency,
        timeoutMs: t.timeoutMs,
        retries: t.retries
      })
    })
  )

  /** The liteserver source from the LITESERVER_* settings (LITESERVER_CONFIG must be set). */
  static readonly layerLiteserver: Layer.Layer<Upstream, ConfigError.ConfigError> = Layer.scoped(
    Upstream,
    Effect.flatMap(LiteserverConfig, (ls) =>
      ls.config === undefined
        ? Effect.fail(ConfigError.MissingData(["LITESERVER_CONFIG"], "LITESERVER_CONFIG is not set"))
        : liteserverFromSettings({ ...ls, config: ls.config })
    )
  )

  /** toncenter over HTTP with explicit options (tests, jobs that start their own fake). */
  static layerFrom(opts: ToncenterOptions): Layer.Layer<Upstream> {
    return Layer.effect(Upstream, makeToncenterUpstream(opts))
  }
}
