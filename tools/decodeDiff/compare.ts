/**
 * Runs the fast decoder and the @ton/core reference on the same input and says whether they agree: the same record
 * (every field, key order included, compared as JSON) or the same DecodeError (reason, message, hash, position).
 * Invariant: a difference is reported with both sides, never summarized away.
 */
import { Either } from "effect"
import { decodeTransaction, type DecodeContext, type DecodeOptions } from "../../src/ton/decode.js"
import { decodeTransactionFast } from "../../src/ton/fast/decode.js"

export interface Outcome {
  readonly agree: boolean
  readonly ok: boolean
  readonly reason: string | null
  readonly reference: string
  readonly fast: string
}

const show = (e: ReturnType<typeof decodeTransaction>): string =>
  Either.isRight(e)
    ? JSON.stringify(e.right)
    : JSON.stringify({ error: e.left.reason, message: e.left.message, hash: e.left.hash, position: e.left.position })

export const compareOne = (boc: string, ctx: DecodeContext, options?: DecodeOptions): Outcome => {
  const ref = decodeTransaction(boc, ctx, options)
  const fast = decodeTransactionFast(boc, ctx, options)
  const reference = show(ref)
  const fastText = show(fast)
  return {
    agree: reference === fastText && Either.isRight(ref) === Either.isRight(fast),
    ok: Either.isRight(ref),
    reason: Either.isLeft(ref) ? ref.left.reason : null,
    reference,
    fast: fastText
  }
}

export interface Tally {
  total: number
  decoded: number
  errors: Map<string, number>
  mismatches: Array<{ readonly source: string; readonly reference: string; readonly fast: string }>
}

export const emptyTally = (): Tally => ({ total: 0, decoded: 0, errors: new Map(), mismatches: [] })

export const record = (t: Tally, source: string, o: Outcome): void => {
  t.total++
  if (o.ok) t.decoded++
  else t.errors.set(o.reason!, (t.errors.get(o.reason!) ?? 0) + 1)
  if (!o.agree) t.mismatches.push({ source, reference: o.reference, fast: o.fast })
}
