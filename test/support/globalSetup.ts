// vitest global setup of the integration project: starts the real Kafka and ClickHouse once per run and hands
// their coordinates to every test file through `provide("infra")`. Invariant: if they cannot start, the whole
// run fails here with the reason, before any test could skip or hang.
import type { TestProject } from "vitest/node"
import { startTestInfra, type TestInfra } from "./infra.js"

declare module "vitest" {
  export interface ProvidedContext {
    infra: TestInfra
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const t0 = Date.now()
  const started = await startTestInfra()
  const { info } = started
  const ch = info.clickhouse.backend === "server" ? `ClickHouse ${info.clickhouse.url}` : "embedded chdb"
  process.stderr.write(
    `[infra] ${info.mode}: Kafka ${info.kafka.brokers.join(",")}, ${ch} (ready in ${Date.now() - t0} ms)\n`
  )
  project.provide("infra", info)
  return started.teardown
}
