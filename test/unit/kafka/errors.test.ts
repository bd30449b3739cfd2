/**
 * Kafka failures classified by kafkajs's `retriable` flag and the broker's error code:
 * a fenced producer is never retriable, and what kafkajs did not raise carries no retriable verdict.
 */
import kafkajs from "kafkajs"
import { describe, expect, it } from "vitest"
import { KafkaError } from "../../../src/kafka/errors.js"

const { KafkaJSError, KafkaJSNonRetriableError, KafkaJSProtocolError } = kafkajs

describe("KafkaError.from", () => {
  it("keeps kafkajs's retriable verdict", () => {
    expect(KafkaError.from("send", new KafkaJSError("broker away")).retriable).toBe(true)
    expect(KafkaError.from("send", new KafkaJSNonRetriableError("too large")).retriable).toBe(false)
  })

  it("classifies a fenced producer by the broker's error code, never retriable", () => {
    const fenced = new KafkaJSProtocolError({ message: "fenced", type: "PRODUCER_FENCED", code: 90, retriable: true } as never)
    const e = KafkaError.from("send", fenced)
    expect(e.reason).toBe("fenced")
    expect(e.retriable).toBe(false)
    expect(e.message).toContain("PRODUCER_FENCED")
  })

  it("gives no verdict for what kafkajs did not raise", () => {
    const e = KafkaError.from("commit", new Error("ours"))
    expect(e.reason).toBe("commit")
    expect(e.retriable).toBeUndefined()
  })
})
