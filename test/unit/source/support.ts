// Shared by the source tests: run an Upstream against a fake toncenter and collect results or typed errors.
import { Effect, Either } from "effect"
import { makeToncenterUpstream } from "../../../src/source/Toncenter.js"
import type { RawMasterchainBundle, ToncenterOptions, UpstreamError } from "../../../src/source/Upstream.js"

export const run = <A>(eff: Effect.Effect<A, UpstreamError>): Promise<Either.Either<A, UpstreamError>> =>
  Effect.runPromise(Effect.either(eff))

export const upstream = (opts: ToncenterOptions) => Effect.runPromise(makeToncenterUpstream(opts))

export const bundles = async (opts: ToncenterOptions, from: number, to: number) => {
  const up = await upstream(opts)
  const out: Array<RawMasterchainBundle> = []
  for (let s = from; s <= to; s++) out.push(await Effect.runPromise(up.bundle(s)))
  return out
}
