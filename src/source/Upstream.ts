/**
 * The upstream contract the producer codes against: the latest masterchain seqno and, per masterchain seqno, a raw
 * bundle (every block it commits with all their transactions as the BOCs upstream sent).
 * Invariant: a bundle is complete or it is an error; transactions are ordered by block (masterchain block first, then
 * shard blocks by (workchain, shard, seqno)) and inside a block by (account, lt), so equal inputs give equal bundles.
 */
import { Context, Layer } from "effect"
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
  /** toncenter over HTTP with explicit options (tests, the all-in-one job). */
  static layerFrom(opts: ToncenterOptions): Layer.Layer<Upstream> {
    return Layer.effect(Upstream, makeToncenterUpstream(opts))
  }
}
