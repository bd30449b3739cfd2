// Crash safety on the real broker and ClickHouse engine: the producer and the consumer run as separate processes and
// are killed with SIGKILL at random points, and the broker is restarted, while a chain is ingested. ClickHouse must
// end up identical to an uninterrupted run of the same chain (every block, transaction, message row and trace id,
// nothing lost, nothing duplicated), and both must equal the chain itself. The liteserver source takes one kill
// schedule (a producer kill while it reads the chain's block files from a local liteserver, and a consumer kill).
import { spawn, type ChildProcess } from "node:child_process"
import { createWriteStream, mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Kafka, logLevel } from "kafkajs"
import { installKafkaCodecs } from "../../src/kafka/compression.js"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { makeClickHouseClient } from "../../src/clickhouse/ClickHouse.js"
import { messageMcSeqno } from "../../src/kafka/codec.js"
import { topicNames } from "../../src/kafka/topics.js"
import { generateChain } from "../../tools/fake/generate.js"
import { withBlockFiles } from "../../tools/fake/liteserver/blocks.js"
import { startFakeLiteserver, type FakeLiteserver } from "../../tools/fake/liteserver/server.js"
import { startLocalKafka, type LocalKafka } from "../../src/infra/kafkaBroker.js"
import { freePortPair, repoRoot } from "../support/infra.js"
import { chaosChainOptions } from "../support/pipeline/chaosChain.js"
import { expectedFrom } from "../support/pipeline/chainUpstream.js"
import { readStored, type Stored } from "../support/pipeline/stored.js"

const SEED = 23
const MC_BLOCKS = 36
const chain = generateChain(chaosChainOptions(SEED, MC_BLOCKS))
const scratch = mkdtempSync(join(tmpdir(), "pipeline-chaos-"))
const chdbDir = join(scratch, "chdb")
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
const between = (lo: number, hi: number) => lo + Math.floor(Math.random() * (hi - lo))

interface Child {
  readonly proc: ChildProcess
  readonly exited: Promise<number | null>
  /** Resolves when the child printed a line containing `text`. */
  readonly printed: (text: string) => Promise<void>
  readonly isRunning: () => boolean
}

let logN = 0
const start = (name: string, script: string, env: Record<string, string>): Child => {
  const proc = spawn(process.execPath, ["--import", "tsx", script], {
    cwd: repoRoot,
    // SQL_PORT=0: the consumer's SQL endpoint is no part of this test, and its default port may be taken on a shared
    // machine (a consumer that cannot listen there exits).
    env: { ...process.env, LOG_LEVEL: "info", SQL_PORT: "0", ...env },
    stdio: ["ignore", "pipe", "pipe"]
  })
  const log = createWriteStream(join(scratch, `${logN++}-${name}.log`))
  let output = ""
  const waiters: Array<{ text: string; resolve: () => void }> = []
  const onData = (chunk: Buffer) => {
    log.write(chunk)
    output += chunk.toString("utf8")
    for (const w of waiters) if (output.includes(w.text)) w.resolve()
  }
  proc.stdout!.on("data", onData)
  proc.stderr!.on("data", onData)
  let running = true
  const exited = new Promise<number | null>((r) =>
    proc.once("exit", (code) => {
      running = false
      r(code)
    })
  )
  const printed = (text: string) =>
    new Promise<void>((resolve) => {
      if (output.includes(text)) return resolve()
      waiters.push({ text, resolve })
    })
  return { proc, exited, printed, isRunning: () => running }
}

const kill = async (c: Child) => {
  c.proc.kill("SIGKILL")
  await c.exited
}

const consumerSeqno = async (port: number): Promise<number> => {
  try {
    const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text()
    const m = /^ton_consumer_last_mc_seqno (\S+)$/m.exec(text)
    return m ? Number(m[1]) : -1
  } catch {
    return -1
  }
}

interface Run {
  readonly brokers: string
  readonly prefix: string
  readonly database: string
  readonly group: string
}

const startProducer = (r: Run, liteserver?: FakeLiteserver) =>
  start("producer", "test/support/pipeline/producerChild.ts", {
    KAFKA_BROKERS: r.brokers,
    KAFKA_TOPIC_PREFIX: r.prefix,
    CHAIN_SEED: String(SEED),
    CHAIN_MC: String(MC_BLOCKS),
    DELAY_MS: "300",
    LITESERVER_CONFIG: liteserver?.config ?? ""
  })

let lastPort = 0
const startConsumer = (r: Run, metricsPort: number) => {
  lastPort = metricsPort
  return startConsumerOn(r, metricsPort)
}
const startConsumerOn = (r: Run, metricsPort: number) =>
  start("consumer", "pipelines/consumer.ts", {
    KAFKA_BROKERS: r.brokers,
    KAFKA_TOPIC_PREFIX: r.prefix,
    NETWORK: chain.network,
    CLICKHOUSE_DATA_DIR: chdbDir,
    CLICKHOUSE_DATABASE: r.database,
    CONSUMER_GROUP: r.group,
    CONSUMER_BATCH_ROWS: "300",
    CONSUMER_BATCH_MS: "200",
    CONSUMER_SESSION_TIMEOUT_MS: "8000",
    METRICS_PORT: String(metricsPort)
  })

/** Waits for the consumer's stored seqno; a consumer that exited on its own is restarted, as a supervisor would. */
const waitConsumerAt = async (
  get: () => { child: Child; port: number },
  restart: () => Promise<void>,
  seqno: number,
  ms: number
) => {
  const deadline = Date.now() + ms
  while (Date.now() < deadline) {
    if (!get().child.isRunning()) await restart()
    if ((await consumerSeqno(get().port)) >= seqno) return
    await sleep(300)
  }
  throw new Error(`consumer did not reach mc ${seqno} in ${ms} ms (logs in ${scratch})`)
}

/** mc seqnos of the bundle topic in log order, as a read_committed subscriber sees them. */
const topicSeqnos = async (brokers: string, prefix: string, expected: number): Promise<Array<number>> => {
  // The producer writes KAFKA_COMPRESSION (zstd by default): this plain kafkajs reader needs the codecs.
  installKafkaCodecs()
  const kafka = new Kafka({ clientId: "chaos-reader", brokers: brokers.split(","), logLevel: logLevel.NOTHING })
  const consumer = kafka.consumer({
    groupId: `${prefix}-reader`,
    readUncommitted: false,
    maxBytesPerPartition: 64 << 20
  })
  const seen: Array<number> = []
  await consumer.connect()
  await consumer.subscribe({ topic: topicNames(prefix, chain.network).blocks, fromBeginning: true })
  await new Promise<void>((resolve) => {
    let timer = setTimeout(resolve, 20_000)
    void consumer.run({
      eachMessage: async ({ message }) => {
        seen.push(messageMcSeqno(message) ?? -1)
        // Keep reading a little after the expected count: a repeat would arrive after it.
        if (seen.length >= expected) {
          clearTimeout(timer)
          timer = setTimeout(resolve, 3_000)
        }
      }
    })
  })
  await consumer.disconnect()
  return seen
}

const readDatabase = async (database: string): Promise<Stored> => {
  const h = await makeClickHouseClient({ url: undefined, user: "default", password: "", database, dataDir: chdbDir })
  try {
    return await readStored(h.client)
  } finally {
    await h.client.close()
  }
}

describe("pipeline: kills and a broker restart change nothing", () => {
  let kafka: LocalKafka
  let brokers: string

  beforeAll(async () => {
    kafka = await startLocalKafka({ port: await freePortPair(), dataDir: join(scratch, "kafka") })
    brokers = kafka.brokers.join(",")
  }, 180_000)
  afterAll(async () => kafka?.stop())

  // The uninterrupted reference run, once for both tests.
  let referenceRun: Promise<Stored> | undefined
  const reference = () =>
    (referenceRun ??= (async () => {
      const clean: Run = { brokers, prefix: "clean", database: "clean", group: "clean-sink" }
      const c0 = { child: startConsumer(clean, await freePortPair()), port: lastPort }
      const p0 = startProducer(clean)
      expect(await p0.exited).toBe(0)
      await waitConsumerAt(
        () => c0,
        async () => {
          c0.child = startConsumer(clean, (c0.port = await freePortPair()))
        },
        chain.last,
        120_000
      )
      c0.child.proc.kill("SIGTERM")
      await c0.child.exited
      const stored = await readDatabase("clean")
      const expected = expectedFrom(chain)
      expect(stored.done).toEqual(expected.mcSeqnos.map(String))
      expect(stored.blocks).toEqual(expected.blocks)
      expect(stored.txHashes).toEqual(expected.txHashes)
      return stored
    })())

  it("an interrupted run stores exactly what an uninterrupted one stores", { timeout: 600_000 }, async () => {
    const chaos: Run = { brokers, prefix: "chaos", database: "chaos", group: "chaos-sink" }
    await reference()

    // The same chain with SIGKILLs at random points of progress and a broker restart in the middle.
    const steps: Array<string> = []
    const c = { child: startConsumer(chaos, await freePortPair()), port: lastPort }
    const restartConsumer = async () => {
      if (c.child.isRunning()) await kill(c.child)
      else steps.push("consumer exited by itself")
      c.child = startConsumer(chaos, await freePortPair())
      c.port = lastPort
    }
    let producer = startProducer(chaos)
    const killProducerSoon = async (lo: number, hi: number) => {
      await producer.printed("producer: backfill from")
      await sleep(between(lo, hi))
      await kill(producer)
      producer = startProducer(chaos)
    }

    // Two schedules run at once: the producer's (two kills and the broker restart, timed from its start-up) and the
    // consumer's (two kills, timed by its stored progress).
    const producerSchedule = (async () => {
      await killProducerSoon(500, 3_000)
      steps.push("killed producer")
      await producer.printed("producer: backfill from")
      await sleep(between(500, 2_000))
      steps.push(`restart broker (consumer at mc ${await consumerSeqno(c.port)})`)
      await kafka.restart()
      if (producer.isRunning()) {
        await killProducerSoon(500, 3_000)
        steps.push("killed producer")
      }
    })()
    const consumerSchedule = (async () => {
      const firstKillAt = chain.first + between(2, 8)
      await waitConsumerAt(() => c, restartConsumer, firstKillAt, 180_000)
      steps.push(`kill consumer at mc ${await consumerSeqno(c.port)}`)
      await restartConsumer()
      await waitConsumerAt(() => c, restartConsumer, firstKillAt + between(4, 12), 180_000)
      steps.push(`kill consumer at mc ${await consumerSeqno(c.port)}`)
      await restartConsumer()
    })()
    await Promise.all([producerSchedule, consumerSchedule])
    expect(await producer.exited).toBe(0)
    await waitConsumerAt(() => c, restartConsumer, chain.last, 180_000)
    c.child.proc.kill("SIGTERM")
    await c.child.exited
    console.log(`chaos steps: ${steps.join("; ")}`)

    // Kafka itself holds every block once, in order, despite two producer kills and a broker restart.
    const range = expectedFrom(chain).mcSeqnos
    expect(await topicSeqnos(brokers, chaos.prefix, range.length)).toEqual(range)

    const clean = await reference()
    const interrupted = await readDatabase("chaos")
    expect(interrupted.done).toEqual(clean.done)
    expect(interrupted.blocks).toEqual(clean.blocks)
    expect(interrupted.txHashes).toEqual(clean.txHashes)
    expect(interrupted.txs).toEqual(clean.txs)
    expect(interrupted.messages).toEqual(clean.messages)
  })

  it(
    "the liteserver source: a killed producer and a killed consumer change nothing",
    { timeout: 600_000 },
    async () => {
      const clean = await reference()
      // The same chain as block files (new block ids, the same transactions), answered with some latency so that a
      // kill lands mid-stream.
      const files = withBlockFiles(chain)
      const liteserver = await startFakeLiteserver({ chain: files, latencyMs: 40 })
      try {
        const run: Run = { brokers, prefix: "chaos-lite", database: "chaos_lite", group: "chaos-lite-sink" }
        const steps: Array<string> = []
        const c = { child: startConsumer(run, await freePortPair()), port: lastPort }
        const restartConsumer = async () => {
          if (c.child.isRunning()) await kill(c.child)
          else steps.push("consumer exited by itself")
          c.child = startConsumer(run, await freePortPair())
          c.port = lastPort
        }
        const chainBlocks = expectedFrom(files.chain).blocks.length
        let producer = startProducer(run, liteserver)
        const producerSchedule = (async () => {
          // killed mid-stream: once the liteserver has served some of the chain's blocks
          const servedBlocks = () => liteserver.requests.filter((r) => r.method === "getBlock").length
          const killAt = between(30, 80)
          while (servedBlocks() < killAt && producer.isRunning()) await sleep(20)
          await kill(producer)
          steps.push(`killed producer after ${servedBlocks()} getBlock queries (${chainBlocks} blocks in the chain)`)
          producer = startProducer(run, liteserver)
        })()
        const consumerSchedule = (async () => {
          await waitConsumerAt(() => c, restartConsumer, chain.first + between(2, 12), 180_000)
          steps.push(`kill consumer at mc ${await consumerSeqno(c.port)}`)
          await restartConsumer()
        })()
        await Promise.all([producerSchedule, consumerSchedule])
        expect(await producer.exited).toBe(0)
        await waitConsumerAt(() => c, restartConsumer, chain.last, 180_000)
        c.child.proc.kill("SIGTERM")
        await c.child.exited
        console.log(`chaos steps (liteserver): ${steps.join("; ")}`)

        const range = expectedFrom(files.chain).mcSeqnos
        expect(await topicSeqnos(brokers, run.prefix, range.length)).toEqual(range)
        const interrupted = await readDatabase(run.database)
        // the blocks are the block files' (their ids differ from the in-process chain's); everything else is the same
        expect(interrupted.blocks).toEqual(expectedFrom(files.chain).blocks)
        expect(interrupted.done).toEqual(clean.done)
        expect(interrupted.txHashes).toEqual(clean.txHashes)
        expect(interrupted.txs).toEqual(clean.txs)
        expect(interrupted.messages).toEqual(clean.messages)
      } finally {
        await liteserver.stop()
      }
    }
  )
})
