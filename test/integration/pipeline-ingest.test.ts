// End to end in one process on the real broker and ClickHouse engine: a generated chain with shard splits, merges
// and several shard blocks per masterchain block (plus the recorded real transactions) goes producer -> Kafka ->
// consumer -> ClickHouse, and ClickHouse then holds exactly the chain's blocks and transactions, each once. The
// producer decodes on two worker threads, and one of them dies mid-run: the attempt restarts from the committed tail.
// It runs three times: over the chain served in-process, the same with the producer's byte budget for fetched bundles
// below any bundle's size (each fetched alone), and through the liteserver source reading the chain's block files
// from a local liteserver over ADNL.
import { Effect, Fiber, Layer } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { ClickHouse } from "../../src/clickhouse/ClickHouse.js"
import { runConsumer } from "../../src/consumer/BundleConsumer.js"
import { chainStats, type ChainData } from "../../tools/fake/ChainData.js"
import { generateChain } from "../../tools/fake/generate.js"
import { withBlockFiles } from "../../tools/fake/liteserver/blocks.js"
import { startFakeLiteserver, type FakeLiteserver } from "../../tools/fake/liteserver/server.js"
import { KafkaClient } from "../../src/kafka/KafkaClient.js"
import { Health } from "../../src/ops/Health.js"
import { Metrics } from "../../src/ops/Metrics.js"
import { runProducer } from "../../src/producer/Producer.js"
import { ClickHouseSink } from "../../src/sink/ClickHouseSink.js"
import { pipelineDecode } from "../../src/producer/assemble.js"
import { Upstream, type RawMasterchainBundle as Raw, type UpstreamService } from "../../src/source/Upstream.js"
import { testClickHouse, testKafka, type TestClickHouse } from "../support/integration.js"
import { chainUpstream, expectedFrom } from "../support/pipeline/chainUpstream.js"
import { liteserverLayer, mapUpstream } from "../support/pipeline/sources.js"
import { readStored, waitForDone } from "../support/pipeline/stored.js"
import type { V2PageBlock, V2PageRow } from "../../src/flatten/v2_pages.js"
import { kvPages } from "../../src/store/backfillPages.js"
import { txPageRow } from "../../src/store/pages.js"
import { ClickHouseTxStore } from "../../src/store/Store.js"

describe("pipeline: generated chain through Kafka into ClickHouse", () => {
  const chs: Array<TestClickHouse> = []
  let chain: ChainData
  let lite: FakeLiteserver
  const tk = testKafka("pipeline-ingest")

  beforeAll(async () => {
    chain = generateChain({
      seed: 11,
      mcBlocks: 24,
      txPerBlock: 5,
      initialShards: 2,
      maxShards: 8,
      splitChance: 0.35,
      mergeChance: 0.35,
      maxBlocksPerShard: 3,
      fixtures: true,
      network: "testnet"
    })
    lite = await startFakeLiteserver({ chain: withBlockFiles(chain) })
  })
  afterAll(async () => {
    await lite?.stop()
    for (const ch of chs) await ch.close()
  })

  /** Ingests `served` (the chain as the upstream serves it) through `source` and checks ClickHouse against it. */
  const ingest = async (name: string, served: ChainData, source: Layer.Layer<Upstream>, inflightBytes?: number) => {
    const ch = await testClickHouse(`pipeline_ingest_${name}`)
    chs.push(ch)
    const stats = chainStats(served)
    // The first answer for one block in the middle cannot be encoded at all (a BigInt has no JSON form): the worker
    // handling it dies, which must fail that attempt (not hang it) and leave no gap and no repeat once the next
    // attempt succeeds.
    const killer = served.first + 10
    let killed = 0
    const upstream = mapUpstream(source, (base): UpstreamService => ({
      ...base,
      bundle: (seqno: number) =>
        seqno === killer && killed++ === 0
          ? Effect.map(base.bundle(seqno), (raw) => ({ ...raw, code_hashes: { x: 1n } }) as unknown as Raw)
          : base.bundle(seqno)
    }))
    const layers = Layer.mergeAll(
      KafkaClient.layerWith({
        brokers: tk.brokers,
        clientId: `pipeline-ingest-${name}`,
        topicPrefix: tk.topic(`p-${name}`),
        network: served.network,
        maxMessageBytes: tk.maxMessageBytes
      }),
      Metrics.layerTest,
      Health.layer
    )
    const sinkLayers = ClickHouseSink.layer.pipe(Layer.provideMerge(ClickHouse.fromConfig(ch.config)))
    const summary = await Effect.runPromise(
      runProducer(
        { mode: "backfill", from: served.first, to: served.last, progressMs: 0, prefetch: 4, decodeWorkers: 2, inflightBytes },
        pipelineDecode
      ).pipe(Effect.provide(upstream), Effect.provide(layers))
    )
    const expected = expectedFrom(served)
    expect(summary).toMatchObject({ first: served.first, last: served.last, deadLetters: 0 })
    expect(summary.transactions).toBe(expected.txHashes.length)
    expect(killed).toBe(2)

    const consumer = Effect.runFork(
      runConsumer({ groupId: tk.topic(`group-${name}`), batchRows: 500, batchMs: 300, progressMs: 0 }).pipe(
        Effect.provide(sinkLayers),
        Effect.provide(layers)
      )
    )
    await waitForDone(ch.client, expected.mcSeqnos.length)
    await Effect.runPromise(Fiber.interrupt(consumer))

    const stored = await readStored(ch.client)
    expect(stored.done).toEqual(expected.mcSeqnos.map(String))
    expect(stored.blocks).toEqual(expected.blocks)
    expect(stored.txHashes).toEqual(expected.txHashes)
    expect(stored.txs.every((t) => !t.includes("|-|"))).toBe(true)
    // The key-value page rows (sql/0131, sql/0132), through the sink's encoder: a v3 row per masterchain block and a
    // v2 row per block, each exactly the rows the page render makes from the stored records; tx_pages holds no piece
    // (a single node's consumer writes it only for blocks without a v2 row, and every block of the chain fits).
    const q = async <T>(query: string) => (await ch.client.query({ query, format: "JSONEachRow" })).json<T>()
    const [kv] = await q<{ n: string; t: string }>("SELECT count() AS n, toString(sum(length(keys)) / 84) AS t FROM v2_pages")
    expect(Number(kv!.n)).toBe(expected.blocks.length)
    expect(Number(kv!.t)).toBe(expected.txHashes.length)
    const [pieces] = await q<{ n: string }>("SELECT count() AS n FROM tx_pages")
    expect(Number(pieces!.n)).toBe(0)
    const store = new ClickHouseTxStore(ch.client)
    const blockRows = await q<V2PageBlock>(
      `SELECT workchain, toString(shard) AS shard, seqno, toString(root_hash) AS root_hash,
              toString(file_hash) AS file_hash, mc_block_seqno FROM blocks FINAL`
    )
    const v3Rows = await q<{ mc_block_seqno: number; asc_rank: Array<number>; lines: Array<string> }>(
      "SELECT mc_block_seqno, asc_rank, lines FROM v3_pages"
    )
    const v2Rows = await q<V2PageRow>("SELECT block, mc_block_seqno, root_hash, file_hash, keys, v2 FROM v2_pages")
    for (const mc of expected.mcSeqnos) {
      const records = await store.transactionsByMcSeqno(mc, { limit: 100_000, offset: 0, sort: "asc" })
      const made = kvPages(mc, records.map(txPageRow), blockRows.filter((b) => Number(b.mc_block_seqno) === mc))
      const v3 = v3Rows.find((r) => Number(r.mc_block_seqno) === mc)
      expect(v3 && { ...v3, mc_block_seqno: Number(v3.mc_block_seqno) }, `v3_pages ${mc}`).toEqual(made.v3)
      for (const row of made.v2) {
        const stored = v2Rows.find((r) => r.block === row.block)
        expect(stored && { ...stored, mc_block_seqno: Number(stored.mc_block_seqno) }, row.block).toEqual(row)
      }
      expect(made.pieces).toEqual([])
    }
    // The chain exercises what it claims to: splits, merges, several shard blocks per masterchain block, and the
    // recorded real transactions, which must all be stored.
    expect(stats.splitChildren).toBeGreaterThan(0)
    expect(stats.merges).toBeGreaterThan(0)
    expect(stats.blocks).toBeGreaterThan(stats.mcBlocks * 2)
    const real = [...served.masterchain.values()]
      .filter((mc) => mc.seqno >= served.first)
      .flatMap((mc) => [mc.block, ...mc.shardBlocks])
      .flatMap((b) => b.txs.filter((t) => t.origin !== "generated").map((t) => t.hash))
    expect(real.length).toBeGreaterThan(1000)
    const storedSet = new Set(stored.txHashes)
    expect(real.filter((h) => !storedSet.has(h))).toEqual([])
  }

  it("stores exactly the chain's blocks and transactions, with trace ids (upstream in-process)", async () => {
    await ingest("inproc", chain, Layer.succeed(Upstream, chainUpstream(chain)))
  })

  it("the same with a byte budget smaller than any bundle (PRODUCER_INFLIGHT_BYTES=1): each bundle fetched alone, none lost", async () => {
    await ingest("budget", chain, Layer.succeed(Upstream, chainUpstream(chain)), 1)
  })

  it(
    "stores exactly the chain's blocks and transactions, with trace ids (liteserver source)",
    { timeout: 180_000 },
    async () => {
      lite.clearRequests()
      await ingest("lite", lite.chain, liteserverLayer([lite]))
      // the blocks really came over the lite API: every block of the range was asked for with getBlock
      const asked = new Set(
        lite.requests.filter((r) => r.method === "getBlock" && r.result === "ok").map((r) => r.block)
      )
      expect(expectedFrom(lite.chain).blocks.filter((b) => !asked.has(b.split(":").slice(0, 3).join(":")))).toEqual([])
    }
  )
})
