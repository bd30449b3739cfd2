// The two real sources as pipeline tests use them: the liteserver source over local liteservers (the `Upstream` a
// scope owns, closed with the run), and the fake toncenter's chain rebuilt as block files, so that both fakes serve
// the same chain with the same block ids. Invariant: tests of either source see the product's source code, never a
// stand-in; only the servers it talks to are fakes.
import { Effect, Layer } from "effect"
import { parseDirect } from "../../../src/source/liteserver/addresses.js"
import { makeLiteserverUpstream } from "../../../src/source/liteserver/Liteserver.js"
import { Upstream, type UpstreamService } from "../../../src/source/Upstream.js"
import type { FakeLiteserver } from "../../../tools/fake/liteserver/server.js"

export interface LiteTestOptions {
  readonly timeoutMs?: number
  readonly retries?: number
  readonly retryBaseMs?: number
  readonly retryMaxMs?: number
  readonly rps?: number
  /**
   * Offer the producer the bundles as block files (`bundleFiles`), as the runnables' source does: its decoder (a
   * decode worker, when the run has them) reads each block whole. Off by default: `bundle` then reads them here.
   */
  readonly files?: boolean
}

/** The liteserver source over the given local liteservers, with retries quick enough for tests. */
export const liteserverLayer = (
  servers: ReadonlyArray<Pick<FakeLiteserver, "config">>,
  opts: LiteTestOptions = {}
): Layer.Layer<Upstream> =>
  Layer.scoped(
    Upstream,
    Effect.map(
      makeLiteserverUpstream({
        servers: parseDirect(servers.map((s) => s.config).join(","))!,
        timeoutMs: opts.timeoutMs ?? 2_000,
        retries: opts.retries ?? 12,
        retryBaseMs: opts.retryBaseMs ?? 20,
        retryMaxMs: opts.retryMaxMs ?? 200,
        rps: opts.rps,
        // as the runnables read: headers from the files, each block read whole once (here by `bundle` itself)
        blockFiles: true
      }),
      (up): UpstreamService => ({
        head: up.head,
        bundle: up.bundle,
        ...(opts.files === true && up.bundleFiles !== undefined ? { bundleFiles: up.bundleFiles } : {})
      })
    )
  )

/**
 * The same layer's upstream with its bundles passed through `f` (a test's poison or kill on top of a source). `f`
 * sees `head` and `bundle` only: block files would bypass what it does to the bundles.
 */
export const mapUpstream = (
  layer: Layer.Layer<Upstream>,
  f: (svc: UpstreamService) => UpstreamService
): Layer.Layer<Upstream> =>
  Layer.effect(
    Upstream,
    Effect.map(Upstream, (svc) => f({ head: svc.head, bundle: svc.bundle }))
  ).pipe(Layer.provide(layer))
