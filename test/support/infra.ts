// Decides, once per test run, which real infrastructure the integration tests use, and starts it: Kafka and
// ClickHouse containers when a Docker daemon answers, otherwise the project's local Kafka broker and embedded chdb.
// Invariant: either both components are up and described in `TestInfra`, or start-up throws an error saying why;
// tests never skip for lack of infrastructure.
import { existsSync, mkdtempSync, rmSync } from "node:fs"
import { request } from "node:http"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { repoRoot, startLocalKafka } from "../../src/infra/kafkaBroker.js"
import { freePortPair } from "../../tools/ports.js"

export { freePortPair }

/** What every integration test file receives through `inject("infra")`. JSON-plain (it crosses processes). */
export interface TestInfra {
  readonly mode: "docker" | "local"
  readonly kafka: { readonly brokers: ReadonlyArray<string>; readonly maxMessageBytes: number }
  readonly clickhouse:
    | { readonly backend: "server"; readonly url: string; readonly user: string; readonly password: string }
    /** Each test worker process opens its own data directory under `dataRoot` (chdb: one engine per process). */
    | { readonly backend: "chdb"; readonly dataRoot: string }
  /** Scratch space removed after the run. */
  readonly scratchDir: string
}

export interface StartedTestInfra {
  readonly info: TestInfra
  readonly teardown: () => Promise<void>
}

/** Same limit the product uses by default, so tests publish bundles as large as production does. */
export const TEST_MAX_MESSAGE_BYTES = 64 * 1024 * 1024

const KAFKA_IMAGE = "confluentinc/cp-kafka:7.9.1" // Apache Kafka 3.9, the version of the local broker
const CLICKHOUSE_IMAGE = "clickhouse/clickhouse-server:25.8"

/** The repository root and the real-data fixtures it carries (`test/fixtures/real`). */
export { repoRoot }
export const realFixturesDir = resolve(repoRoot, "test/fixtures/real")

const dockerSocket = (): { socketPath: string } | { host: string; port: number } | undefined => {
  const env = process.env.DOCKER_HOST
  if (env !== undefined && env !== "") {
    if (env.startsWith("unix://")) return { socketPath: env.slice("unix://".length) }
    const m = /^tcp:\/\/([^:/]+):(\d+)/.exec(env)
    return m ? { host: m[1]!, port: Number(m[2]) } : undefined
  }
  return existsSync("/var/run/docker.sock") ? { socketPath: "/var/run/docker.sock" } : undefined
}

/** True when a Docker engine answers `GET /_ping` within two seconds. */
export const dockerAnswers = (): Promise<boolean> =>
  new Promise((resolvePromise) => {
    const target = dockerSocket()
    if (target === undefined) return resolvePromise(false)
    const req = request({ ...target, path: "/_ping", method: "GET", timeout: 2000 }, (res) => {
      res.resume()
      resolvePromise(res.statusCode === 200)
    })
    req.on("timeout", () => req.destroy())
    req.on("error", () => resolvePromise(false))
    req.end()
  })

const startDocker = async (scratchDir: string): Promise<StartedTestInfra> => {
  const { KafkaContainer } = await import("@testcontainers/kafka")
  const { ClickHouseContainer } = await import("@testcontainers/clickhouse")
  const max = String(TEST_MAX_MESSAGE_BYTES)
  const [kafka, clickhouse] = await Promise.all([
    new KafkaContainer(KAFKA_IMAGE)
      .withKraft()
      .withEnvironment({
        KAFKA_AUTO_CREATE_TOPICS_ENABLE: "false",
        KAFKA_MESSAGE_MAX_BYTES: max,
        KAFKA_REPLICA_FETCH_MAX_BYTES: max,
        KAFKA_SOCKET_REQUEST_MAX_BYTES: String(TEST_MAX_MESSAGE_BYTES + 1_048_576),
        KAFKA_TRANSACTION_STATE_LOG_REPLICATION_FACTOR: "1",
        KAFKA_TRANSACTION_STATE_LOG_MIN_ISR: "1",
        KAFKA_OFFSETS_TOPIC_REPLICATION_FACTOR: "1",
        KAFKA_GROUP_INITIAL_REBALANCE_DELAY_MS: "0"
      })
      .start(),
    new ClickHouseContainer(CLICKHOUSE_IMAGE).start()
  ])
  return {
    info: {
      mode: "docker",
      kafka: { brokers: [`${kafka.getHost()}:${kafka.getMappedPort(9093)}`], maxMessageBytes: TEST_MAX_MESSAGE_BYTES },
      clickhouse: {
        backend: "server",
        url: clickhouse.getHttpUrl(),
        user: clickhouse.getUsername(),
        password: clickhouse.getPassword()
      },
      scratchDir
    },
    teardown: async () => {
      await Promise.allSettled([kafka.stop(), clickhouse.stop()])
      rmSync(scratchDir, { recursive: true, force: true })
    }
  }
}

const startLocal = async (scratchDir: string): Promise<StartedTestInfra> => {
  const port = await freePortPair()
  const kafka = await startLocalKafka({
    port,
    dataDir: join(scratchDir, "kafka"),
    maxMessageBytes: TEST_MAX_MESSAGE_BYTES
  })
  return {
    info: {
      mode: "local",
      kafka: { brokers: kafka.brokers, maxMessageBytes: TEST_MAX_MESSAGE_BYTES },
      clickhouse: { backend: "chdb", dataRoot: join(scratchDir, "chdb") },
      scratchDir
    },
    teardown: async () => {
      await kafka.stop()
      rmSync(scratchDir, { recursive: true, force: true })
    }
  }
}

/**
 * Start the test infrastructure. TEST_INFRA=docker|local forces a choice; otherwise Docker is used when its daemon
 * answers. Throws an Error explaining what failed and what to do.
 */
export const startTestInfra = async (): Promise<StartedTestInfra> => {
  const forced = process.env.TEST_INFRA
  if (forced !== undefined && forced !== "" && forced !== "docker" && forced !== "local") {
    throw new Error(`TEST_INFRA must be "docker" or "local", got ${JSON.stringify(forced)}`)
  }
  const useDocker = forced === "docker" || (forced !== "local" && (await dockerAnswers()))
  const scratchDir = mkdtempSync(join(tmpdir(), "ton-exporter-test-"))
  try {
    return useDocker ? await startDocker(scratchDir) : await startLocal(scratchDir)
  } catch (e) {
    rmSync(scratchDir, { recursive: true, force: true })
    const how = useDocker
      ? "with Docker (testcontainers: Kafka and ClickHouse containers); set TEST_INFRA=local to use the local broker"
      : "without Docker (local Kafka broker from Maven Central, needs java and mvn; embedded chdb)"
    throw new Error(`integration test infrastructure could not start ${how}: ${(e as Error).message}`, { cause: e })
  }
}
