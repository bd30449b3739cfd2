// Records go through a real Apache Kafka broker: produced with acks=all by an idempotent producer and read back by
// a consumer group, including across a broker restart on the same data directory, where nothing acknowledged may
// be lost and committed group offsets must survive.
import { Kafka, logLevel, type Producer } from "kafkajs"
import { mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { startLocalKafka, type LocalKafka } from "../../src/infra/kafkaBroker.js"
import { freePortPair } from "../support/infra.js"
import { testKafka } from "../support/integration.js"

const client = (brokers: ReadonlyArray<string>) =>
  new Kafka({
    clientId: "infra-test",
    brokers: [...brokers],
    logLevel: logLevel.NOTHING,
    retry: { retries: 30, maxRetryTime: 2000 }
  })

const idempotentProducer = (kafka: Kafka): Producer =>
  kafka.producer({ idempotent: true, maxInFlightRequests: 1, allowAutoTopicCreation: false })

/** Reads `topic` with a fresh consumer of `groupId` until `expected` values arrived or `ms` passed; commits them. */
const consumeValues = async (
  kafka: Kafka,
  topic: string,
  groupId: string,
  until: (got: ReadonlyArray<string>) => boolean,
  maxBytes: number,
  ms = 60_000
): Promise<Array<string>> => {
  const consumer = kafka.consumer({ groupId, maxBytesPerPartition: maxBytes, maxBytes: maxBytes })
  const got: Array<string> = []
  await consumer.connect()
  await consumer.subscribe({ topic, fromBeginning: true })
  let done: () => void = () => undefined
  const finished = new Promise<void>((r) => (done = r))
  await consumer.run({
    autoCommit: true,
    eachMessage: async ({ message }) => {
      got.push(message.value?.toString("utf8") ?? "")
      if (until(got)) done()
    }
  })
  const timer = setTimeout(done, ms)
  await finished
  clearTimeout(timer)
  await consumer.stop()
  await consumer.disconnect()
  return got
}

describe("Kafka broker of the test run", () => {
  const tk = testKafka("infra-kafka")

  it("delivers records, including one of several megabytes, in order to a consumer group", async () => {
    const kafka = client(tk.brokers)
    const topic = tk.topic("roundtrip")
    const admin = kafka.admin()
    await admin.connect()
    expect(await admin.createTopics({ topics: [{ topic, numPartitions: 1, replicationFactor: 1 }] })).toBe(true)
    await admin.disconnect()

    const producer = idempotentProducer(kafka)
    await producer.connect()
    const big = "x".repeat(8 * 1024 * 1024)
    const values = [...Array.from({ length: 50 }, (_, i) => `m${i}`), big, "last"]
    for (const v of values) await producer.send({ topic, acks: -1, messages: [{ key: "k", value: v }] })
    await producer.disconnect()

    const got = await consumeValues(kafka, topic, `${topic}.g`, (g) => g.length >= values.length, tk.maxMessageBytes)
    expect(got.length).toBe(values.length)
    expect(got).toEqual(values)
  })

  it("refuses to create a topic implicitly", async () => {
    const kafka = client(tk.brokers)
    const producer = kafka.producer({ allowAutoTopicCreation: true, retry: { retries: 1 } })
    await producer.connect()
    await expect(
      producer.send({ topic: tk.topic("never-created"), acks: -1, messages: [{ value: "v" }], timeout: 3000 })
    ).rejects.toThrow()
    await producer.disconnect()
  })
})

describe("local broker restarted mid-stream", () => {
  let local: LocalKafka | undefined
  let dataDir: string | undefined
  afterAll(async () => {
    await local?.stop()
    if (dataDir) rmSync(dataDir, { recursive: true, force: true })
  })

  it("keeps every acknowledged record and the committed group offset", async () => {
    dataDir = mkdtempSync(join(tmpdir(), "infra-kafka-restart-"))
    local = await startLocalKafka({
      port: await freePortPair(),
      dataDir,
      maxMessageBytes: 16 * 1024 * 1024,
      jvmOptions: ["-Xmx384m"]
    })
    const broker = local
    // The JVM's options: the project's own (the JIT stopped at C1), then the caller's, which win over them.
    const jvm = readFileSync(`/proc/${broker.pid()}/cmdline`, "utf8").split("\0")
    const jvmOptions = jvm.slice(0, jvm.indexOf("kafka.Kafka"))
    expect(jvmOptions).toContain("-XX:TieredStopAtLevel=1")
    expect(jvmOptions.lastIndexOf("-Xmx384m")).toBeGreaterThan(jvmOptions.indexOf("-Xmx512m"))
    const kafka = client(broker.brokers)
    const topic = "restart.v1"
    const group = "restart-group"
    const admin = kafka.admin()
    await admin.connect()
    await admin.createTopics({ topics: [{ topic, numPartitions: 2, replicationFactor: 1 }] })
    await admin.disconnect()

    const acked = new Set<string>()
    const producer = idempotentProducer(kafka)
    await producer.connect()
    for (let i = 0; i < 100; i++) {
      await producer.send({ topic, acks: -1, messages: [{ key: `k${i % 7}`, value: `before-${i}` }] })
      acked.add(`before-${i}`)
    }
    // The group reads and commits everything sent so far; after the restart it must start after it.
    const first = await consumeValues(kafka, topic, group, (g) => g.length >= 100, 16 * 1024 * 1024)
    expect(new Set(first)).toEqual(acked)

    // Keep producing while the broker goes down and comes back; only acknowledged sends count.
    let stopProducing = false
    let failed = 0
    const during = (async () => {
      for (let i = 0; !stopProducing; i++) {
        const value = `during-${i}`
        try {
          await producer.send({ topic, acks: -1, messages: [{ key: `k${i % 7}`, value }] })
          acked.add(value)
        } catch {
          failed++
        }
      }
    })()
    await new Promise((r) => setTimeout(r, 500))
    const pidBefore = broker.pid()
    await broker.restart()
    expect(broker.pid()).not.toBe(pidBefore)
    await new Promise((r) => setTimeout(r, 1000))
    stopProducing = true
    await during
    for (let i = 0; i < 50; i++) {
      await producer.send({ topic, acks: -1, messages: [{ key: `k${i % 7}`, value: `after-${i}` }] })
      acked.add(`after-${i}`)
    }
    await producer.disconnect()

    const expected = [...acked].filter((v) => !v.startsWith("before-"))
    expect(expected.filter((v) => v.startsWith("during-")).length).toBeGreaterThan(0)
    const second = await consumeValues(
      kafka,
      topic,
      group,
      (g) => expected.every((v) => g.includes(v)),
      16 * 1024 * 1024
    )
    const seen = new Set(second)
    expect(expected.filter((v) => !seen.has(v))).toEqual([])
    expect(second.filter((v) => v.startsWith("before-"))).toEqual([])
    // Sends that failed during the outage may or may not have landed; nothing else may appear.
    expect(second.filter((v) => !acked.has(v)).every((v) => v.startsWith("during-"))).toBe(true)
  })
})
