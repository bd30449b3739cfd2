// Helpers for integration tests: the run's Kafka brokers with per-file topic names, and a ClickHouse client on a
// fresh database of this test file with every migration applied. Invariant: no two test files share a topic or a
// database, so files run in parallel without seeing each other's data.
import { randomBytes } from "node:crypto"
import { join } from "node:path"
import { inject } from "vitest"
import {
  makeClickHouseClient,
  type ClickHouseClientConfig,
  type ClickHouseHandle
} from "../../src/clickhouse/ClickHouse.js"
import { applyMigrations } from "../../src/clickhouse/migrations.js"
import type { TestInfra } from "./infra.js"

export { repoRoot, realFixturesDir } from "./infra.js"

const runId = randomBytes(3).toString("hex")

export const testInfra = (): TestInfra => {
  const infra = inject("infra")
  if (infra === undefined) {
    throw new Error(
      "no test infrastructure: tests that need Kafka or ClickHouse belong under test/integration/ " +
        "(the project whose global setup starts them)"
    )
  }
  return infra
}

const slug = (label: string) =>
  label
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "_")
    .replace(/^_|_$/g, "")
    .slice(0, 40)

export interface TestKafka {
  readonly brokers: ReadonlyArray<string>
  readonly maxMessageBytes: number
  /** A topic name no other test file or run uses: `test.<label>.<name>.<run>-<n>`. */
  readonly topic: (name: string) => string
}

/** The run's brokers and a topic-name maker unique to the caller (`label`: usually the test file's subject). */
export const testKafka = (label = "t"): TestKafka => {
  const infra = testInfra()
  let n = 0
  return {
    brokers: infra.kafka.brokers,
    maxMessageBytes: infra.kafka.maxMessageBytes,
    topic: (name) => `test.${slug(label)}.${slug(name)}.${runId}-${process.pid}-${n++}`
  }
}

export interface TestClickHouse extends ClickHouseHandle {
  /** Settings that open the same database again (e.g. `ClickHouse.fromConfig(config)` in this process). */
  readonly config: ClickHouseClientConfig
  readonly close: () => Promise<void>
}

/**
 * A client on a new database `test_<label>_<random>` with all sql/ migrations applied. With embedded chdb the data
 * directory is per worker process (chdb runs one engine per process); the database is per call.
 */
export const testClickHouse = async (label = "t", options: { migrate?: boolean } = {}): Promise<TestClickHouse> => {
  const infra = testInfra()
  const database = `test_${slug(label)}_${randomBytes(4).toString("hex")}`
  const config: ClickHouseClientConfig =
    infra.clickhouse.backend === "server"
      ? {
          url: infra.clickhouse.url,
          user: infra.clickhouse.user,
          password: infra.clickhouse.password,
          database,
          dataDir: ""
        }
      : {
          url: undefined,
          user: "default",
          password: "",
          database,
          dataDir: join(infra.clickhouse.dataRoot, `worker-${process.pid}`)
        }
  const handle = await makeClickHouseClient(config)
  if (options.migrate !== false) await applyMigrations(handle.client)
  return { ...handle, config, close: () => handle.client.close() }
}
