// The transactions topic as a subscriber sees it, on the real broker and ClickHouse engine: a generated chain with
// shard splits and merges goes through the producer (published in two runs, with a producer killed mid-transaction
// in between); the example subscriber (examples/subscriber.ts, read_committed, in a consumer group) receives every
// transaction exactly once, keyed by account, in (masterchain block, lt) order per account, and nothing of the killed transaction; each
// value is byte-identical to the API's v3 answer for that transaction once the consumer stored the chain, and its
// trace id is the chain-wide one (the restarted producer re-read its history).
import { spawn } from "node:child_process"
import { Effect, Fiber, Layer } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startSubscriber, type Subscriber, type TransactionRecord } from "../../examples/subscriber.js"
import { buildApp } from "../../src/api/app.js"
import { goJson } from "../../src/api/json.js"
import { ClickHouse } from "../../src/clickhouse/ClickHouse.js"
import { runConsumer } from "../../src/consumer/BundleConsumer.js"
import { KafkaClient } from "../../src/kafka/KafkaClient.js"
import { topicNames } from "../../src/kafka/topics.js"
import { Health } from "../../src/ops/Health.js"
import { Metrics } from "../../src/ops/Metrics.js"
import { assembleBundle, pipelineDecode } from "../../src/producer/assemble.js"
import { runProducer } from "../../src/producer/Producer.js"
import { ClickHouseSink } from "../../src/sink/ClickHouseSink.js"
import { Upstream } from "../../src/source/Upstream.js"
import { ClickHouseTxStore } from "../../src/store/Store.js"
import { assignTraceIds } from "../../src/trace/traceIds.js"
import { chainStats } from "../../tools/fake/ChainData.js"
import { generateChain } from "../../tools/fake/generate.js"
import { repoRoot, testClickHouse, testKafka, type TestClickHouse } from "../support/integration.js"
import { chainUpstream, expectedFrom, rawBundle } from "../support/pipeline/chainUpstream.js"
import { chaosChainOptions } from "../support/pipeline/chaosChain.js"
import { waitForDone } from "../support/pipeline/stored.js"

const SEED = 31
const MC_BLOCKS = 16
const chain = generateChain(chaosChainOptions(SEED, MC_BLOCKS))
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

const waitFor = async (what: string, cond: () => boolean, ms = 90_000) => {
  const deadline = Date.now() + ms
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await sleep(200)
  }
}

describe("transactions topic: the example subscriber against the real broker", () => {
  const tk = testKafka("kafka-subscriber")
  const prefix = tk.topic("p")
  const clientId = "txtopic"
  let ch: TestClickHouse
  let subscriber: Subscriber | undefined

  beforeAll(async () => {
    ch = await testClickHouse("kafka_subscriber")
  })
  afterAll(async () => {
    await subscriber?.stop()
    await ch?.close()
  })

  it("delivers every transaction once, whole blocks only, equal to the API's v3 answers", { timeout: 400_000 }, async () => {
    const stats = chainStats(chain)
    expect(stats.splitChildren).toBeGreaterThan(0)
    expect(stats.merges).toBeGreaterThan(0)
    const expected = expectedFrom(chain)
    const mid = chain.first + Math.floor(MC_BLOCKS / 2)
    const txsUpTo = (last: number) => expectedFrom(chain, chain.first, last).txHashes.length

    const layers = Layer.mergeAll(
      KafkaClient.layerWith({
        brokers: tk.brokers,
        clientId,
        topicPrefix: prefix,
        network: chain.network,
        maxMessageBytes: tk.maxMessageBytes,
        partitions: 4
      }),
      Layer.succeed(Upstream, chainUpstream(chain)),
      Metrics.layerTest,
      Health.layer
    )
    // The resume runs with a bound on heap growth, so its committed bundles' bytes are freed at once (Producer.ts
    // `releasePublished`): what the subscriber and the API see must not change.
    const produce = (mode: "backfill" | "resume", to: number) =>
      Effect.runPromise(
        runProducer(
          {
            mode,
            from: chain.first,
            to,
            progressMs: 0,
            prefetch: 4,
            decodeWorkers: 2,
            maxBundlesPerTransaction: 3,
            heapGrowthPercent: mode === "resume" ? 50 : 0
          },
          pipelineDecode
        ).pipe(Effect.provide(layers))
      )

    // The topics exist once a client made them; the subscriber starts before anything is published.
    await Effect.runPromise(Effect.provide(Effect.void, layers))
    const topic = topicNames(prefix, chain.network).transactions
    const received: Array<TransactionRecord> = []
    subscriber = await startSubscriber({
      brokers: tk.brokers,
      topic,
      groupId: `${prefix}-subscriber`,
      fromMcSeqno: chain.first,
      onTransaction: async (tx) => {
        received.push(tx)
      }
    })

    await produce("backfill", mid)
    await waitFor("the first run's transactions", () => received.length >= txsUpTo(mid))

    // A producer dies with a transaction open: its records are in the log, its commit never comes.
    const child = spawn(process.execPath, ["--import", "tsx", "test/unit/kafka/support/openTransactionChild.ts"], {
      cwd: repoRoot,
      env: {
        ...process.env,
        KAFKA_BROKERS: tk.brokers.join(","),
        KAFKA_TOPIC_PREFIX: prefix,
        CLIENT_ID: clientId,
        CHAIN_SEED: String(SEED),
        CHAIN_MC: String(MC_BLOCKS),
        FROM: String(mid + 1),
        COUNT: "2"
      },
      stdio: ["ignore", "pipe", "pipe"]
    })
    let childOutput = ""
    child.stdout!.on("data", (b: Buffer) => (childOutput += b.toString()))
    child.stderr!.on("data", (b: Buffer) => (childOutput += b.toString()))
    const exited = new Promise((r) => child.once("exit", r))
    await waitFor("the dying producer's open transaction", () => childOutput.includes("open-transaction-sent"), 120_000)
    await sleep(3_000)
    child.kill("SIGKILL")
    await exited
    expect(received.length).toBe(txsUpTo(mid))

    // The next producer fences the dead one (aborting its transaction) and goes on from the committed tail.
    const summary = await produce("resume", chain.last)
    expect(summary).toMatchObject({ first: mid + 1, last: chain.last, deadLetters: 0 })
    await waitFor("every transaction", () => received.length >= expected.txHashes.length)
    await sleep(3_000)

    // Exactly once, keyed by account, per-account lt order within a partition.
    const hashes = received.map((r) => JSON.parse(r.value.toString("utf8")).hash as string)
    expect(hashes.length).toBe(expected.txHashes.length)
    expect([...hashes].sort()).toEqual(expected.txHashes)
    const partitionOf = new Map<string, number>()
    const lastAt = new Map<string, [number, bigint]>()
    for (const r of received) {
      const v = JSON.parse(r.value.toString("utf8")) as { account: string; lt: string; mc_block_seqno: number }
      expect(r.account).toBe(v.account)
      expect(r.mcSeqno).toBe(v.mc_block_seqno)
      expect(partitionOf.get(r.account) ?? r.partition).toBe(r.partition)
      partitionOf.set(r.account, r.partition)
      // Per account: masterchain order, and lt order within a block.
      const [seqno, lt] = lastAt.get(r.account) ?? [-1, -1n]
      expect(v.mc_block_seqno > seqno || (v.mc_block_seqno === seqno && BigInt(v.lt) > lt)).toBe(true)
      lastAt.set(r.account, [v.mc_block_seqno, BigInt(v.lt)])
    }
    expect(new Set(received.map((r) => r.partition)).size).toBeGreaterThan(1)

    // Trace ids are the chain-wide ones, across the producer restart.
    const bundles = []
    for (let s = chain.first; s <= chain.last; s++) {
      bundles.push(assembleBundle(rawBundle(chain, s)!, chain.network, pipelineDecode).bundle.transactions)
    }
    const reference = new Map(
      assignTraceIds(bundles, { get: () => undefined }, "own-hash")
        .flat()
        .map((t) => [t.hash, t.trace_id])
    )
    const byHash = new Map(received.map((r, i) => [hashes[i]!, r]))
    for (const [h, r] of byHash) expect(JSON.parse(r.value.toString("utf8")).trace_id).toBe(reference.get(h))

    // The consumer stores the chain; the API's v3 answers hold the very bytes the subscriber received.
    const consumer = Effect.runFork(
      runConsumer({ groupId: `${prefix}-sink`, batchRows: 500, batchMs: 300, progressMs: 0 }).pipe(
        Effect.provide(ClickHouseSink.layer.pipe(Layer.provideMerge(ClickHouse.fromConfig(ch.config)))),
        Effect.provide(layers)
      )
    )
    await waitForDone(ch.client, expected.mcSeqnos.length)
    await Effect.runPromise(Fiber.interrupt(consumer))
    const app = buildApp({
      store: new ClickHouseTxStore(ch.client),
      config: { network: chain.network === "testnet" ? "testnet" : "mainnet", api: { keys: [], rateLimit: 0 }, cacheBytes: 0 }
    })
    let compared = 0
    for (const seqno of expected.mcSeqnos) {
      const res = await app.inject(`/api/v3/transactionsByMasterchainBlock?seqno=${seqno}&limit=1000`)
      expect(res.statusCode).toBe(200)
      const body = res.body
      const answer = JSON.parse(body) as { transactions: Array<{ hash: string }> }
      for (const element of answer.transactions) {
        const value = byHash.get(element.hash)!.value.toString("utf8")
        expect(value).toBe(goJson(element))
        expect(body.includes(value)).toBe(true)
        compared++
      }
    }
    expect(compared).toBe(expected.txHashes.length)
    await app.close()
  })
})
