/**
 * The error every Kafka adapter in this project fails with; library exceptions are classified here, once, by
 * kafkajs's own error class, its `retriable` flag and the broker's error code (never by parsing names or messages).
 * Invariant: "fenced" means another producer with our transactional id took over, which is never retried.
 */
import { Schema } from "effect"
import kafkajs from "kafkajs"

// kafkajs is CommonJS and its error classes are not among the names Node can import from it directly.
const { KafkaJSError } = kafkajs

/** An exception kafkajs raised (and, inside its consumer loop, handles itself: rejoin, retry or crash). */
export const isKafkaJsError = (e: unknown): e is InstanceType<typeof KafkaJSError> => e instanceof KafkaJSError

export class KafkaError extends Schema.TaggedError<KafkaError>()("KafkaError", {
  reason: Schema.Literal("connect", "admin", "send", "fenced", "consume", "commit"),
  message: Schema.String,
  /** kafkajs's verdict: the same call may succeed when repeated (absent: not a kafkajs error). */
  retriable: Schema.optional(Schema.Boolean)
}) {
  static from(reason: KafkaError["reason"], cause: unknown): KafkaError {
    const code = typeof cause === "object" && cause !== null && "type" in cause ? String(cause.type) : ""
    const message = cause instanceof Error ? cause.message : String(cause)
    const fenced = code === "INVALID_PRODUCER_EPOCH" || code === "PRODUCER_FENCED"
    return new KafkaError({
      reason: fenced ? "fenced" : reason,
      message: code ? `${code}: ${message}` : message,
      ...(isKafkaJsError(cause) ? { retriable: fenced ? false : cause.retriable } : {})
    })
  }
}

export class CodecError extends Schema.TaggedError<CodecError>()("CodecError", {
  reason: Schema.Literal("json", "shape", "version"),
  message: Schema.String
}) {}
