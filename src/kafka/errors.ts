/**
 * The error every Kafka adapter in this project fails with; library exceptions are classified here, once, by
 * kafkajs's `retriable` flag and the broker's error code (never by parsing names or messages). This module does not
 * load kafkajs: the codec imports it, and the decode workers must not carry the client.
 * Invariant: "fenced" means another producer with our transactional id took over, which is never retried.
 */
import { Schema } from "effect"

/** kafkajs's verdict on an exception it raised (every KafkaJSError carries it); undefined for anything else. */
const retriableFlag = (e: unknown): boolean | undefined => {
  const flag = e instanceof Error ? (e as { retriable?: unknown }).retriable : undefined
  return typeof flag === "boolean" ? flag : undefined
}

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
      ...(retriableFlag(cause) === undefined ? {} : { retriable: fenced ? false : retriableFlag(cause) })
    })
  }
}

export class CodecError extends Schema.TaggedError<CodecError>()("CodecError", {
  reason: Schema.Literal("json", "shape", "version"),
  message: Schema.String
}) {}
