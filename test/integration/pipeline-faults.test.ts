// Upstream misbehaviour on the real broker and ClickHouse engine, for both sources: the toncenter source reads the
// fake toncenter over HTTP while it answers 429s, 5xx bursts, malformed and truncated bodies, slow answers and dropped
// connections; the liteserver source reads two local liteservers over ADNL, one lagging behind the other, which
// leaves queries unanswered (timeouts), drops connections, answers errors, answers slowly and sends another block than
// the one asked. On top of either, two transactions arrive as BOCs that do not decode, and one masterchain block is
// refused for good. Every other block and transaction must be stored once, the three bad inputs must be in the
// dead-letter topic with their reason, and the transaction gap must be visible in the blocks' tx_count.
import { beginCell } from "@ton/core"
import { Effect, Either, Fiber, Layer } from "effect"
import { Kafka, logLevel } from "kafkajs"
import { installKafkaCodecs } from "../../src/kafka/compression.js"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { ClickHouse } from "../../src/clickhouse/ClickHouse.js"
import { runConsumer } from "../../src/consumer/BundleConsumer.js"
import type { ChainData } from "../../tools/fake/ChainData.js"
import { generateChain } from "../../tools/fake/generate.js"
import { startFakeToncenter, type FakeToncenter } from "../../tools/fake/server.js"
import { withBlockFiles } from "../../tools/fake/liteserver/blocks.js"
import { startFakeLiteserver, type FakeLiteserver } from "../../tools/fake/liteserver/server.js"
import { decodeDeadLetter, type DeadLetter } from "../../src/kafka/codec.js"
import { KafkaClient } from "../../src/kafka/KafkaClient.js"
import { topicNames } from "../../src/kafka/topics.js"
import { Health } from "../../src/ops/Health.js"
import { makeMetrics, Metrics } from "../../src/ops/Metrics.js"
import { runProducer } from "../../src/producer/Producer.js"
import { ClickHouseSink } from "../../src/sink/ClickHouseSink.js"
import { Upstream, UpstreamError, type UpstreamService } from "../../src/source/Upstream.js"
import { decodeTransaction } from "../../src/ton/decode.js"
import { testClickHouse, testKafka, type TestClickHouse } from "../support/integration.js"
import { expectedFrom } from "../support/pipeline/chainUpstream.js"
import { liteserverLayer, mapUpstream } from "../support/pipeline/sources.js"
import { readStored, waitForDone } from "../support/pipeline/stored.js"

const readDeadLetters = async (brokers: ReadonlyArray<string>, topic: string, expected: number) => {
  // The producer writes KAFKA_COMPRESSION (zstd by default): this plain kafkajs reader needs the codecs.
  installKafkaCodecs()
  const kafka = new Kafka({ clientId: "dlq-reader", brokers: [...brokers], logLevel: logLevel.NOTHING })
  const consumer = kafka.consumer({ groupId: `${topic}-reader`, readUncommitted: false })
  const letters: Array<DeadLetter> = []
  await consumer.connect()
  await consumer.subscribe({ topic, fromBeginning: true })
  await new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, 30_000)
    void consumer.run({
      eachMessage: async ({ message }) => {
        letters.push(Either.getOrThrow(decodeDeadLetter(message.value)))
        if (letters.length >= expected) {
          clearTimeout(timer)
          resolve()
        }
      }
    })
  })
  await consumer.disconnect()
  return letters
}

describe("pipeline: upstream faults and poisoned transactions", () => {
  const chs: Array<TestClickHouse> = []
  let chain: ChainData
  let fake: FakeToncenter | undefined
  const lites: Array<FakeLiteserver> = []
  const tk = testKafka("pipeline-faults")

  beforeAll(async () => {
    chain = generateChain({
      seed: 5,
      mcBlocks: 12,
      txPerBlock: 4,
      initialShards: 2,
      maxShards: 4,
      fixtures: false,
      network: "testnet"
    })
  })
  afterAll(async () => {
    await fake?.stop()
    for (const l of lites) await l.stop()
    for (const ch of chs) await ch.close()
  })

  /** Runs the chain `served` through `source` with the poison and the refused block on top, and checks the outcome. */
  const survives = async (name: string, served: ChainData, source: Layer.Layer<Upstream>) => {
    const ch = await testClickHouse(`pipeline_faults_${name}`)
    chs.push(ch)
    // Two transactions in two different masterchain blocks: one BOC that is not base64 at all, one valid BOC
    // whose root cell is not a transaction.
    const victims = [served.first + 2, served.first + 7].map((s) => {
      const mc = served.masterchain.get(s)!
      const block = [...mc.shardBlocks, mc.block].find((b) => b.txs.length > 0)!
      return block.txs[0]!.hash
    })
    const lostBlock = served.first + 4
    const poisonFor = new Map([
      [victims[0]!, "%%% not a boc %%%"],
      [victims[1]!, beginCell().storeUint(0xdeadbeef, 32).endCell().toBoc().toString("base64")]
    ])
    const upstream = mapUpstream(source, (svc): UpstreamService => ({
      ...svc,
      bundle: (s: number) =>
        // One masterchain block upstream refuses for good: it must become a block dead letter, not a stall.
        s === lostBlock
          ? Effect.fail(new UpstreamError({ reason: "bad_request", message: "LITE_SERVER_UNKNOWN: refused" }))
          : Effect.map(svc.bundle(s), (raw) => ({
              ...raw,
              transactions: raw.transactions.map((t) =>
                poisonFor.has(t.hash) ? { ...t, boc: poisonFor.get(t.hash)! } : t
              )
            }))
    }))

    const metrics = makeMetrics(false)
    const prefix = tk.topic(`f-${name}`)
    const layers = Layer.mergeAll(
      KafkaClient.layerWith({
        brokers: tk.brokers,
        clientId: `faults-${name}`,
        topicPrefix: prefix,
        network: served.network,
        maxMessageBytes: tk.maxMessageBytes
      }),
      Layer.succeed(Metrics, metrics),
      Health.layer
    )
    const summary = await Effect.runPromise(
      runProducer({ mode: "backfill", from: served.first, to: served.last, progressMs: 0 }, decodeTransaction).pipe(
        Effect.provide(upstream),
        Effect.provide(layers)
      )
    )
    expect(summary).toMatchObject({
      first: served.first,
      last: served.last,
      bundles: served.last - served.first,
      deadLetters: 3
    })
    const counted = (await metrics.deadLetters.get()).values
    expect(counted.reduce((n, v) => n + v.value, 0)).toBe(3)

    const consumer = Effect.runFork(
      runConsumer({ groupId: `${prefix}-sink`, batchRows: 1_000, batchMs: 200, progressMs: 0 }).pipe(
        Effect.provide(ClickHouseSink.layer.pipe(Layer.provideMerge(ClickHouse.fromConfig(ch.config)))),
        Effect.provide(layers)
      )
    )
    const before = expectedFrom(served, served.first, lostBlock - 1)
    const after = expectedFrom(served, lostBlock + 1, served.last)
    const expected = {
      mcSeqnos: [...before.mcSeqnos, ...after.mcSeqnos],
      blocks: [...before.blocks, ...after.blocks].sort(),
      txHashes: [...before.txHashes, ...after.txHashes].sort()
    }
    await waitForDone(ch.client, expected.mcSeqnos.length)
    await Effect.runPromise(Fiber.interrupt(consumer))

    const stored = await readStored(ch.client)
    expect(stored.done).toEqual(expected.mcSeqnos.map(String))
    expect(stored.blocks).toEqual(expected.blocks)
    expect(stored.txHashes).toEqual(expected.txHashes.filter((h) => !poisonFor.has(h)))
    // The gap is visible in storage: the blocks' tx_count (from upstream) exceeds their stored transactions by 2.
    const rs = await ch.client.query({
      query: `SELECT toInt64(sum(tx_count)) - toInt64((SELECT count() FROM transactions)) AS missing FROM blocks`,
      format: "JSONEachRow"
    })
    expect(Number((await rs.json<{ missing: string }>())[0]!.missing)).toBe(2)

    const all = await readDeadLetters(tk.brokers, topicNames(prefix, served.network).deadLetter, 3)
    const letters = all.filter((l) => l.kind === "transaction")
    expect(letters.map((l) => l.tx_hash).sort()).toEqual([...victims].sort())
    expect(letters.every((l) => l.payload === poisonFor.get(l.tx_hash!))).toBe(true)
    expect(letters.map((l) => l.reason).sort()).toEqual(["not_a_transaction", "not_base64"])
    expect(all.filter((l) => l.kind === "block").map((l) => [l.mc_seqno, l.reason])).toEqual([
      [lostBlock, "upstream_bad_request"]
    ])
  }

  it("survives toncenter's faults without gaps and dead-letters exactly the poisoned transactions and the refused block", async () => {
    fake = await startFakeToncenter({
      chain,
      faults: [
        { endpoint: "getBlockTransactionsExt", kind: "rate_limit", every: 5 },
        { endpoint: "getBlockHeader", kind: "server_error", from: 3, count: 3, status: 502 },
        { endpoint: "*", kind: "malformed", every: 13 },
        { endpoint: "*", kind: "truncated", every: 17 },
        { endpoint: "*", kind: "reset", every: 19 },
        { endpoint: "*", kind: "slow", every: 7, delayMs: 300 }
      ]
    })
    const source = Upstream.layerFrom({
      url: fake.url,
      rps: 1000,
      concurrency: 4,
      retries: 10,
      retryBaseMs: 10,
      retryMaxMs: 100,
      timeoutMs: 2_000
    })
    await survives("toncenter", chain, source)
    const faulted = fake.requests.filter((r) => r.fault !== undefined && r.fault !== "slow")
    expect(new Set(faulted.map((r) => r.fault))).toEqual(
      new Set(["rate_limit", "server_error", "malformed", "truncated", "reset"])
    )
  })

  it("survives the liteservers' faults and a lagging liteserver the same way", { timeout: 180_000 }, async () => {
    const files = withBlockFiles(chain)
    // one server three masterchain blocks behind, one that misbehaves: together they serve every block
    const behind = await startFakeLiteserver({ chain: files, lag: 3 })
    lites.push(behind)
    const faulty = await startFakeLiteserver({
      chain: files,
      faults: [
        { method: "getBlock", kind: "timeout", every: 11 },
        { method: "getBlock", kind: "drop", every: 13 },
        { method: "getBlock", kind: "error", code: 500, every: 7 },
        { method: "getBlock", kind: "wrong_block", from: 4, count: 2 },
        { method: "lookupBlock", kind: "error", from: 2, count: 2 },
        { method: "*", kind: "slow", every: 5, delayMs: 300 }
      ]
    })
    lites.push(faulty)
    await survives("liteserver", files.chain, liteserverLayer([faulty, behind], { timeoutMs: 1_000, retries: 16 }))
    const faulted = faulty.requests.filter((r) => r.fault !== undefined && r.fault !== "slow")
    expect(new Set(faulted.map((r) => r.fault))).toEqual(new Set(["timeout", "drop", "error", "wrong_block"]))
    // the lagging server was used, and told the source it lacks the newest blocks (651) rather than serving others
    expect(behind.requests.some((r) => r.result === "ok" && r.method === "getBlock")).toBe(true)
    expect(behind.requests.some((r) => r.result === 651)).toBe(true)
  })
})
