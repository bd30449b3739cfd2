// The ClickHouse sink scaled out, with real processes: embedded ClickHouse served read-write by its own process
// (npm run clickhouse:serve), three consumer processes (pipelines/consumer.ts) in one Kafka group over a bundle topic
// of six partitions, writing through CLICKHOUSE_URL while a generated chain with splits and merges is published.
// One consumer is SIGKILLed mid-run; the other two take its partitions over. Every table then holds exactly what one
// consumer alone writes from the same topic (compared row by row, duplicates included).
import { spawn, type ChildProcess } from "node:child_process"
import { mkdtempSync, rmSync } from "node:fs"
import { createServer } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { createClient, type ClickHouseClient } from "@clickhouse/client"
import { Effect, Fiber, Layer } from "effect"
import { Kafka, logLevel } from "kafkajs"
import { afterAll, describe, expect, it } from "vitest"
import { ClickHouse } from "../../src/clickhouse/ClickHouse.js"
import { runConsumer } from "../../src/consumer/BundleConsumer.js"
import { KafkaClient } from "../../src/kafka/KafkaClient.js"
import { Health } from "../../src/ops/Health.js"
import { Metrics } from "../../src/ops/Metrics.js"
import { pipelineDecode } from "../../src/producer/assemble.js"
import { runProducer } from "../../src/producer/Producer.js"
import { ClickHouseSink } from "../../src/sink/ClickHouseSink.js"
import { LOOKUPS_KV_FILLED } from "../../src/store/Store.js"
import { Upstream } from "../../src/source/Upstream.js"
import { chainStats } from "../../tools/fake/ChainData.js"
import { generateChain } from "../../tools/fake/generate.js"
import { repoRoot, testClickHouse, testKafka, type TestClickHouse } from "../support/integration.js"
import { chainUpstream } from "../support/pipeline/chainUpstream.js"
import { chaosChainOptions } from "../support/pipeline/chaosChain.js"
import { waitForDone } from "../support/pipeline/stored.js"

const SEED = 47
const MC_BLOCKS = 30
const BLOCK_PARTITIONS = 6
const chain = generateChain(chaosChainOptions(SEED, MC_BLOCKS))
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const s = createServer()
    s.once("error", reject)
    s.listen(0, "127.0.0.1", () => {
      const a = s.address()
      s.close(() => resolve(typeof a === "object" && a !== null ? a.port : 0))
    })
  })

interface Child {
  readonly proc: ChildProcess
  readonly output: () => string
  readonly exited: Promise<unknown>
}

const start = (script: string, env: Record<string, string>): Child => {
  const proc = spawn(process.execPath, ["--import", "tsx", script], {
    cwd: repoRoot,
    env: { ...process.env, LOG_LEVEL: "info", ...env },
    stdio: ["ignore", "pipe", "pipe"]
  })
  let out = ""
  proc.stdout!.on("data", (b: Buffer) => (out += b.toString()))
  proc.stderr!.on("data", (b: Buffer) => (out += b.toString()))
  return { proc, output: () => out, exited: new Promise((r) => proc.once("exit", r)) }
}

const waitFor = async (what: string, cond: () => boolean | Promise<boolean>, ms = 90_000) => {
  const deadline = Date.now() + ms
  while (!(await cond())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await sleep(200)
  }
}

/**
 * Content-addressed tables: any writer writes the same row for a hash (or, in opcode_names, for an opcode: one row
 * per opcode an insert carried), the cleanup leaves them alone, and a rewritten block or another batching may write
 * a row again; readers see them collapsed (FINAL), and so are they compared.
 */
const CONTENT_ADDRESSED = new Set(["message_contents", "account_states", "opcode_names"])

/**
 * The consumer runnable's start-up bookkeeping, not ingested data: `body_decoder_runs` says which body decoder wrote
 * the decoded columns (src/store/BodyRedecode.ts runs in the group's processes, not in the in-process reference).
 */
const START_UP_STATE = new Set(["body_decoder_runs"])

/**
 * Start-up bookkeeping rows inside data tables: the fill of `account_lookups_kv` (sql/0142), run by the same
 * start-up step, marks the table filled with a row of its own key; the copied rows are data and compared.
 */
const START_UP_ROWS: Readonly<Record<string, string>> = {
  account_lookups_kv: `key != '${LOOKUPS_KV_FILLED}'`
}

/** Columns that name an insert attempt or its time, not the data: they differ between any two runs. */
const PER_ATTEMPT = new Set(["insert_id", "inserted_at", "applied_at"])

/**
 * Every table of the database as sorted JSON lines, duplicates kept. Tables of per-attempt aggregates (readers keep
 * one attempt per block) are compared as their distinct attempts' contents: a killed member's attempt is one more.
 */
const dump = async (client: ClickHouseClient): Promise<Record<string, ReadonlyArray<string>>> => {
  const rows = async <T>(query: string) => (await client.query({ query, format: "JSONEachRow" })).json<T>()
  const tables = await rows<{ name: string }>(
    "SELECT name FROM system.tables WHERE database = currentDatabase() AND engine NOT IN ('View', 'MaterializedView') ORDER BY name"
  )
  const out: Record<string, ReadonlyArray<string>> = {}
  for (const { name } of tables) {
    if (START_UP_STATE.has(name)) continue
    const columns = await rows<{ name: string; type: string }>(
      `SELECT name, type FROM system.columns WHERE database = currentDatabase() AND table = '${name}' ORDER BY position`
    )
    const attempts = columns.some((c) => PER_ATTEMPT.has(c.name) && c.name !== "applied_at")
    const exprs = columns
      .filter((c) => !PER_ATTEMPT.has(c.name))
      .map((c) => (c.type.startsWith("AggregateFunction") ? `finalizeAggregation(${c.name})` : c.name))
      .map((e, i) => `toJSONString(${e}) AS c${i}`)
    const list = await rows<Record<string, string>>(
      `SELECT ${attempts ? "DISTINCT " : ""}${exprs.join(", ")} FROM ${name}${CONTENT_ADDRESSED.has(name) ? " FINAL" : ""}` +
        (START_UP_ROWS[name] === undefined ? "" : ` WHERE ${START_UP_ROWS[name]}`)
    )
    out[name] = list.map((r) => JSON.stringify(Object.values(r))).sort()
  }
  return out
}

describe("ClickHouse sink as three consumer processes in one group", () => {
  const tk = testKafka("consumer-group")
  const prefix = tk.topic("p")
  const children: Array<Child> = []
  let dataDir: string | undefined
  let reference: TestClickHouse | undefined
  let remote: ClickHouseClient | undefined

  afterAll(async () => {
    if (process.env.SHOW_CHILD_OUTPUT === "1") for (const c of children) process.stdout.write(`--- child\n${c.output()}\n`)
    for (const c of children) if (c.proc.exitCode === null && c.proc.signalCode === null) c.proc.kill("SIGKILL")
    await Promise.all(children.map((c) => c.exited))
    await remote?.close()
    await reference?.close()
    if (dataDir !== undefined) rmSync(dataDir, { recursive: true, force: true })
  })

  it("loses one member to SIGKILL and still stores exactly what a single consumer stores", { timeout: 240_000 }, async () => {
    const stats = chainStats(chain)
    expect(stats.splitChildren).toBeGreaterThan(0)
    expect(stats.merges).toBeGreaterThan(0)

    const kafkaLayer = KafkaClient.layerWith({
      brokers: tk.brokers,
      clientId: "group",
      topicPrefix: prefix,
      network: chain.network,
      maxMessageBytes: tk.maxMessageBytes,
      blockPartitions: BLOCK_PARTITIONS
    })
    await Effect.runPromise(Effect.provide(Effect.void, kafkaLayer))

    // The store: embedded ClickHouse in its own process, read-write over HTTP.
    dataDir = mkdtempSync(join(tmpdir(), "consumer-group-"))
    const sqlPort = await freePort()
    const database = "group_store"
    const server = start("pipelines/clickhouse-server.ts", {
      CLICKHOUSE_URL: "",
      CLICKHOUSE_DATA_DIR: dataDir,
      CLICKHOUSE_DATABASE: database,
      SQL_HOST: "127.0.0.1",
      SQL_PORT: String(sqlPort)
    })
    children.push(server)
    await waitFor("the ClickHouse server", () => server.output().includes("read-write ClickHouse HTTP on"), 120_000)
    const url = `http://127.0.0.1:${sqlPort}/`
    remote = createClient({ url, database })

    const consumerEnv = async (): Promise<Record<string, string>> => ({
      CLICKHOUSE_URL: url,
      CLICKHOUSE_DATABASE: database,
      KAFKA_BROKERS: tk.brokers.join(","),
      KAFKA_TOPIC_PREFIX: prefix,
      KAFKA_CLIENT_ID: "group",
      KAFKA_MAX_MESSAGE_BYTES: String(tk.maxMessageBytes),
      KAFKA_BLOCK_PARTITIONS: String(BLOCK_PARTITIONS),
      NETWORK: chain.network,
      CONSUMER_GROUP: `${prefix}-sinks`,
      CONSUMER_BATCH_ROWS: "200",
      CONSUMER_BATCH_MS: "200",
      CONSUMER_SESSION_TIMEOUT_MS: "6000",
      METRICS_PORT: String(await freePort())
    })
    const consumers: Array<Child> = []
    for (let i = 0; i < 3; i++) {
      const c = start("pipelines/consumer.ts", await consumerEnv())
      consumers.push(c)
      children.push(c)
    }
    // All three in the group before anything is published, so the load is shared from the first block.
    const admin = new Kafka({ brokers: [...tk.brokers], clientId: "group-watch", logLevel: logLevel.NOTHING }).admin()
    await admin.connect()
    try {
      await waitFor(
        "three members in a stable group",
        async () => {
          const [g] = (await admin.describeGroups([`${prefix}-sinks`])).groups
          return g?.state === "Stable" && g.members.length === 3
        },
        120_000
      )
    } finally {
      await admin.disconnect()
    }

    // The producer publishes slowly enough for a member to die with work in hand.
    const base = chainUpstream(chain)
    const slow = { ...base, bundle: (s: number) => Effect.zipRight(Effect.sleep(250), base.bundle(s)) }
    const producing = Effect.runPromise(
      runProducer(
        { mode: "backfill", from: chain.first, to: chain.last, progressMs: 0, prefetch: 1, maxBundlesPerTransaction: 2 },
        pipelineDecode
      ).pipe(Effect.provide(Layer.mergeAll(kafkaLayer, Layer.succeed(Upstream, slow), Metrics.layerTest, Health.layer)))
    )
    const markers = async () =>
      Number(
        (await (await remote!.query({ query: "SELECT count() AS n FROM mc_blocks_done", format: "JSONEachRow" })).json<{ n: string }>())[0]
          ?.n ?? 0
      )
    await waitFor("a third of the chain stored", async () => (await markers()) >= MC_BLOCKS / 3, 120_000)
    consumers[0]!.proc.kill("SIGKILL")
    await consumers[0]!.exited
    const atKill = await markers()
    expect(atKill).toBeLessThan(MC_BLOCKS)

    await producing
    await waitForDone(remote, MC_BLOCKS, 120_000)
    await sleep(2_000)
    for (const c of consumers.slice(1)) c.proc.kill("SIGTERM")
    await Promise.all(consumers.slice(1).map((c) => c.exited))

    // One consumer alone, in this process, on the same topic from the start.
    reference = await testClickHouse("consumer_group_reference")
    const single = Effect.runFork(
      runConsumer({ groupId: `${prefix}-single`, batchRows: 500, batchMs: 300, progressMs: 0 }).pipe(
        Effect.provide(ClickHouseSink.layer.pipe(Layer.provideMerge(ClickHouse.fromConfig(reference.config)))),
        Effect.provide(Layer.mergeAll(kafkaLayer, Metrics.layerTest, Health.layer))
      )
    )
    await waitForDone(reference.client, MC_BLOCKS)
    await Effect.runPromise(Fiber.interrupt(single))

    const [scaled, alone] = [await dump(remote), await dump(reference.client)]
    expect(Object.keys(scaled)).toEqual(Object.keys(alone))
    expect(alone.mc_blocks_done!.length).toBe(MC_BLOCKS)
    expect(alone.transactions!.length).toBe(stats.txs)
    for (const table of Object.keys(alone)) expect({ table, rows: scaled[table] }).toEqual({ table, rows: alone[table] })
  })
})
