/**
 * The one error the TON decoding layer raises: every malformed or unsupported input ends here with a reason the
 * pipeline can route on (dead-letter, skip, alert) without parsing messages.
 * Invariant: nothing in src/ton throws past its public functions; library exceptions are classified into a reason.
 */
import { Schema } from "effect"

export const DecodeErrorReason = Schema.Literal(
  "not_base64",
  "bad_boc",
  "truncated",
  "not_a_transaction",
  "not_a_block",
  "bad_message",
  "exotic_cell"
)
export type DecodeErrorReason = typeof DecodeErrorReason.Type

export class DecodeError extends Schema.TaggedError<DecodeError>()("DecodeError", {
  reason: DecodeErrorReason,
  message: Schema.String,
  /** Hash of the offending transaction (or cell), standard base64, when one could be computed. */
  hash: Schema.optional(Schema.String),
  /** Where the problem is: a byte offset in the BOC ("byte 17") or a path in the transaction ("in_msg.body/0"). */
  position: Schema.optional(Schema.String)
}) {}
