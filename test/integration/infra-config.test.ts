// The configuration table is the single source of every setting: .env.example and the README list exactly its
// keys and defaults, and a bad value is reported with its env key by both readers (plain and Effect).
import { ConfigProvider, Effect, Either } from "effect"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { allSettings, AppConfigConfig, ConfigValueError, loadConfig } from "../../src/config.js"
import { runTuning } from "../../src/producer/Producer.js"
import { repoRoot } from "../support/integration.js"

describe("configuration", () => {
  it(".env.example lists every setting with its default, and nothing else", () => {
    const lines = readFileSync(join(repoRoot, ".env.example"), "utf8")
      .split("\n")
      .filter((l) => l.trim() !== "" && !l.startsWith("#"))
    expect(lines).toEqual(allSettings.map((s) => `${s.env}=${s.default}`))
  })

  it("the README's configuration table names every setting", () => {
    const readme = readFileSync(join(repoRoot, "README.md"), "utf8")
    expect(allSettings.filter((s) => !readme.includes(`| \`${s.env}\` |`)).map((s) => s.env)).toEqual([])
  })

  it("reads defaults and derived defaults the same way in both readers", async () => {
    const env = { TONCENTER_API_KEY: "k", KAFKA_BROKERS: "a:1, b:2", API_KEYS: "x,,y" }
    const plain = loadConfig(env)
    const viaEffect = await Effect.runPromise(
      Effect.withConfigProvider(AppConfigConfig, ConfigProvider.fromMap(new Map(Object.entries(env))))
    )
    expect(viaEffect).toEqual(plain)
    expect(plain.toncenter.rps).toBe(10)
    expect(loadConfig({}).toncenter.rps).toBe(1)
    expect(plain.kafka.brokers).toEqual(["a:1", "b:2"])
    expect(plain.api.keys).toEqual(["x", "y"])
    expect(loadConfig({}).clickhouse.url).toBeUndefined()
    // The runnables bound the producer's and the consumer's heap growth unless told otherwise (README, Decisions).
    expect(runTuning(loadConfig({}).producer).heapGrowthPercent).toBe(100)
    expect(loadConfig({ PRODUCER_HEAP_GROWTH_PERCENT: "0" }).producer.heapGrowthPercent).toBe(0)
    expect(loadConfig({}).consumer.heapGrowthPercent).toBe(100)
  })

  it.each([
    ["KAFKA_PORT", "nine"],
    ["API_PORT", "70000"],
    ["NETWORK", "devnet"],
    ["PRODUCER_MODE", "sideways"],
    ["CLICKHOUSE_URL", "clickhouse:8123"],
    ["CLICKHOUSE_DATABASE", "ton-db"],
    ["KAFKA_BROKERS", "localhost"],
    ["CONSUMER_BATCH_ROWS", "0"],
    ["PRODUCER_DECODE_YOUNG_MB", "2"],
    ["PRODUCER_DECODE_YOUNG_MB", "sixteen"],
    ["PRODUCER_HEAP_GROWTH_PERCENT", "-5"],
    ["PRODUCER_HEAP_GROWTH_PERCENT", "half"],
    ["PRODUCER_TRANSACTION_RECORDS", "0"],
    ["CONSUMER_HEAP_GROWTH_PERCENT", "-5"],
    ["CONSUMER_HEAP_GROWTH_PERCENT", "half"],
    ["KAFKA_LOCAL_JVM_OPTIONS", "-Xmx1g Xss512k"]
  ])("rejects %s=%s naming the key in both readers", async (key, value) => {
    expect(() => loadConfig({ [key]: value })).toThrow(ConfigValueError)
    expect(() => loadConfig({ [key]: value })).toThrow(new RegExp(`^${key}: `))
    const result = await Effect.runPromise(
      Effect.either(Effect.withConfigProvider(AppConfigConfig, ConfigProvider.fromMap(new Map([[key, value]]))))
    )
    expect(Either.isLeft(result)).toBe(true)
    expect(String(Either.isLeft(result) ? result.left : "")).toContain(`${key}: `)
  })

  it("reads the local broker's JVM options as a list of options", () => {
    expect(loadConfig({}).kafka.localJvmOptions).toEqual([])
    expect(loadConfig({ KAFKA_LOCAL_JVM_OPTIONS: " -XX:TieredStopAtLevel=4  -Xmx1g " }).kafka.localJvmOptions).toEqual([
      "-XX:TieredStopAtLevel=4",
      "-Xmx1g"
    ])
  })

  it("rejects a backfill range that ends before it starts", () => {
    expect(() => loadConfig({ PRODUCER_FROM: "10", PRODUCER_TO: "9" })).toThrow(/^PRODUCER_TO: /)
  })
})
