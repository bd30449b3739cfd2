/**
 * The error every Kafka adapter in this project fails with; library exceptions are classified here, once.
 * Invariant: "fenced" means another producer with our transactional id took over, which is never retried.
 */
import { Schema } from "effect"

export class KafkaError extends Schema.TaggedError<KafkaError>()("KafkaError", {
  reason: Schema.Literal("connect", "admin", "send", "fenced", "consume", "commit"),
  message: Schema.String
}) {
  static from(reason: KafkaError["reason"], cause: unknown): KafkaError {
    const name = typeof cause === "object" && cause !== null && "type" in cause ? String(cause.type) : ""
    const message = cause instanceof Error ? cause.message : String(cause)
    const fenced =
      name === "INVALID_PRODUCER_EPOCH" ||
      name === "PRODUCER_FENCED" ||
      (cause instanceof Error && cause.name === "KafkaJSProducerFencedError")
    return new KafkaError({ reason: fenced ? "fenced" : reason, message: name ? `${name}: ${message}` : message })
  }
}

export class CodecError extends Schema.TaggedError<CodecError>()("CodecError", {
  reason: Schema.Literal("json", "shape", "version"),
  message: Schema.String
}) {}
