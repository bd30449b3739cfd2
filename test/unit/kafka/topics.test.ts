// ensureTopics on a fresh cluster shared by processes starting together: a topic another process has just created
// may be missing from the answering broker's metadata for a moment (seen as UNKNOWN_TOPIC_OR_PARTITION, which kafkajs
// marks retriable), and that must not stop a start; anything else still does, at once.
import { Effect, Either } from "effect"
import type { Admin, ITopicConfig } from "kafkajs"
import { describe, expect, it } from "vitest"
import { ensureTopics } from "../../../src/kafka/topics.js"

const specs: ReadonlyArray<ITopicConfig> = [{ topic: "t.blocks", numPartitions: 1 }]

/** A broker error as kafkajs raises it: its code in `type`, its verdict in `retriable`. */
const brokerError = (type: string, retriable: boolean) => Object.assign(new Error(type), { type, retriable })

/** An admin whose topic already exists (created by another process) and whose metadata fails `failures` times first. */
const admin = (failures: number, error: Error) => {
  let calls = 0
  const fake = {
    listTopics: async () => ["t.blocks"],
    createTopics: async () => true,
    fetchTopicMetadata: async () => {
      calls++
      if (calls <= failures) throw error
      return { topics: [{ name: "t.blocks", partitions: [{ partitionId: 0, leader: 1, replicas: [1], isr: [1] }] }] }
    }
  }
  return { admin: fake as unknown as Admin, calls: () => calls }
}

describe("ensureTopics", () => {
  it("waits for a topic another process just created to reach the broker's metadata", async () => {
    const a = admin(3, brokerError("UNKNOWN_TOPIC_OR_PARTITION", true))
    const result = await Effect.runPromise(Effect.either(ensureTopics(a.admin, specs)))
    expect(Either.isRight(result)).toBe(true)
    expect(a.calls()).toBe(4)
  })

  it("fails at once on an error that asking again cannot mend", async () => {
    const a = admin(3, brokerError("TOPIC_AUTHORIZATION_FAILED", false))
    const result = await Effect.runPromise(Effect.either(ensureTopics(a.admin, specs)))
    expect(Either.isLeft(result) && result.left.message).toContain("TOPIC_AUTHORIZATION_FAILED")
    expect(a.calls()).toBe(1)
  })

  it("still checks the partition count once the metadata answers", async () => {
    const a = admin(0, brokerError("UNKNOWN_TOPIC_OR_PARTITION", true))
    const result = await Effect.runPromise(Effect.either(ensureTopics(a.admin, [{ topic: "t.blocks", numPartitions: 4 }])))
    expect(Either.isLeft(result) && result.left.message).toContain("has 1 partitions, expected 4")
  })
})
