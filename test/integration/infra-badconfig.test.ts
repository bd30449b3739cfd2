// Bad configuration stops start-up with one error naming the setting to fix, in bounded time, without a stack
// trace: a Kafka broker that is not there, a wrong ClickHouse URL, a chdb data directory held by another process.
import { type ChildProcess, spawn } from "node:child_process"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Cause, Effect, Exit, Layer, Option } from "effect"
import { afterAll, describe, expect, it } from "vitest"
import { ClickHouseError, makeClickHouseClient } from "../../src/clickhouse/ClickHouse.js"
import { KafkaBrokers } from "../../src/infra/KafkaBrokers.js"
import { KafkaBrokerError } from "../../src/infra/kafkaBroker.js"
import { repoRoot } from "../support/integration.js"

const scratch = mkdtempSync(join(tmpdir(), "infra-badconfig-"))
afterAll(() => rmSync(scratch, { recursive: true, force: true }))

interface Finished {
  readonly code: number | null
  readonly stderr: string
  readonly ms: number
}

/** Run a TypeScript entry point of the repository with `env` added, as a user would, and collect what it says. */
const runEntry = (entry: string, env: Record<string, string>, timeoutMs = 60_000): Promise<Finished> =>
  new Promise((resolvePromise) => {
    const t0 = Date.now()
    const child = spawn(process.execPath, ["--import", "tsx", entry], {
      cwd: repoRoot,
      env: { ...process.env, ...env },
      stdio: ["ignore", "ignore", "pipe"]
    })
    let stderr = ""
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString("utf8")))
    const killer = setTimeout(() => child.kill("SIGKILL"), timeoutMs)
    child.on("exit", (code) => {
      clearTimeout(killer)
      resolvePromise({ code, stderr, ms: Date.now() - t0 })
    })
  })

const noStack = (text: string) => expect(text).not.toMatch(/^\s+at .+:\d+:\d+\)?$/m)

describe("KAFKA_BROKERS pointing nowhere", () => {
  it("fails the KafkaBrokers layer with an error naming KAFKA_BROKERS", async () => {
    const t0 = Date.now()
    const exit = await Effect.runPromiseExit(
      Effect.scoped(
        Layer.build(
          KafkaBrokers.fromConfig({
            brokers: ["127.0.0.1:1"],
            port: 1,
            dataDir: "unused",
            maxMessageBytes: 1024,
            localJvmOptions: []
          })
        )
      )
    )
    expect(Date.now() - t0).toBeLessThan(30_000)
    const failure = Exit.isFailure(exit) ? Option.getOrUndefined(Cause.failureOption(exit.cause)) : undefined
    expect(failure).toBeInstanceOf(KafkaBrokerError)
    expect(failure?.reason).toBe("Unreachable")
    expect(failure?.message).toContain("KAFKA_BROKERS=127.0.0.1:1")
  })

  it("stops `npm start` with one line naming KAFKA_BROKERS and exit code 1", async () => {
    const r = await runEntry("pipelines/infra.ts", {
      KAFKA_BROKERS: "127.0.0.1:1",
      CLICKHOUSE_DATA_DIR: join(scratch, "start-chdb")
    })
    expect(r.code).toBe(1)
    expect(r.stderr).toContain("KafkaBrokerError: KAFKA_BROKERS=127.0.0.1:1")
    noStack(r.stderr)
    expect(r.ms).toBeLessThan(60_000)
  })

  it("rejects a malformed KAFKA_BROKERS before connecting", async () => {
    const r = await runEntry("pipelines/infra.ts", { KAFKA_BROKERS: "localhost" })
    expect(r.code).toBe(1)
    expect(r.stderr).toContain("KAFKA_BROKERS: expected host:port")
    noStack(r.stderr)
  })
})

describe("CLICKHOUSE_URL pointing nowhere", () => {
  it("rejects makeClickHouseClient with a ClickHouseError naming CLICKHOUSE_URL", async () => {
    const error = await makeClickHouseClient({
      url: "http://127.0.0.1:1",
      user: "default",
      password: "",
      database: "ton",
      dataDir: "unused"
    }).then(
      () => undefined,
      (e: unknown) => e
    )
    expect(error).toBeInstanceOf(ClickHouseError)
    expect((error as ClickHouseError).reason).toBe("Unreachable")
    expect((error as ClickHouseError).message).toContain("CLICKHOUSE_URL=http://127.0.0.1:1")
  })

  it("stops the migrate command with one line naming CLICKHOUSE_URL and exit code 1", async () => {
    const r = await runEntry("pipelines/migrate.ts", { CLICKHOUSE_URL: "http://127.0.0.1:1" })
    expect(r.code).toBe(1)
    expect(r.stderr).toContain("ClickHouseError: CLICKHOUSE_URL=http://127.0.0.1:1")
    noStack(r.stderr)
  })
})

describe("CLICKHOUSE_DATA_DIR held by another process", () => {
  let holder: ChildProcess | undefined
  afterAll(async () => {
    if (holder && holder.exitCode === null) {
      const gone = new Promise((r) => holder!.once("exit", r))
      holder.stdin?.end()
      await gone
    }
  })

  it("stops the migrate command with one line naming CLICKHOUSE_DATA_DIR", async () => {
    const dir = join(scratch, "held-chdb")
    holder = spawn(process.execPath, ["--import", "tsx", "test/support/holdChdb.ts", dir], {
      cwd: repoRoot,
      stdio: ["pipe", "pipe", "inherit"]
    })
    await new Promise<void>((resolvePromise, reject) => {
      holder!.stdout!.on("data", (d: Buffer) => d.toString().includes("ready") && resolvePromise())
      holder!.once("exit", (code) => reject(new Error(`holder exited early with ${code}`)))
    })
    const r = await runEntry("pipelines/migrate.ts", { CLICKHOUSE_DATA_DIR: dir })
    expect(r.code).toBe(1)
    expect(r.stderr).toContain(`ClickHouseError: CLICKHOUSE_DATA_DIR=${dir}`)
    expect(r.stderr).toContain("another process")
    noStack(r.stderr)
  })
})

describe("KafkaBrokerError", () => {
  it("names KAFKA_PORT when the local broker's port is taken", async () => {
    const { createServer } = await import("node:net")
    const server = createServer()
    const port = await new Promise<number>((r) =>
      server.listen(0, "127.0.0.1", () => r((server.address() as { port: number }).port))
    )
    try {
      const { startLocalKafka } = await import("../../src/infra/kafkaBroker.js")
      const error = await startLocalKafka({ port, dataDir: join(scratch, "port-taken") }).then(
        () => undefined,
        (e: unknown) => e
      )
      expect(error).toBeInstanceOf(KafkaBrokerError)
      expect((error as KafkaBrokerError).reason).toBe("PortInUse")
      expect((error as KafkaBrokerError).message).toContain(`KAFKA_PORT=${port}`)
    } finally {
      server.close()
    }
  })
})
