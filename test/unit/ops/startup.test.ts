import { describe, expect, it } from "vitest"
import { formatBanner, formatRunSummary, kafkaStartLine, sampleUrls } from "../../../src/ops/startup.js"

describe("start-up lines", () => {
  it("say which slow Kafka steps remain", () => {
    expect(kafkaStartLine({ jarsCached: false, formatted: false, port: 19092 })).toMatch(
      /^kafka: fetching the broker's jars with Maven \(first run only, .*\), then formatting storage and starting the local broker on 127\.0\.0\.1:19092 \(usually .*\)\.\.\.$/
    )
    expect(kafkaStartLine({ jarsCached: true, formatted: true, port: 1 })).toMatch(/^kafka: starting the local broker on/)
  })
})

describe("run summary", () => {
  it("says nothing new instead of printing placeholders", () => {
    const line = formatRunSummary({ first: undefined, last: undefined, bundles: 0, published: 0, stored: 0, deadLetters: 0, seconds: 1.25 })
    expect(line).toBe("done: nothing new (the store already holds the range), 1.3 s")
    expect(line).not.toMatch(/-\.\.-|undefined/)
  })

  it("names the range and counts, and dead letters only when there are some", () => {
    expect(formatRunSummary({ first: 1000, last: 1015, bundles: 16, published: 1507, stored: 1507, deadLetters: 0, seconds: 50.2 })).toBe(
      "done: mc 1000..1015: 16 bundles, 1507 transactions published, 1507 stored, 50.2 s"
    )
    expect(formatRunSummary({ first: 1, last: 1, bundles: 1, published: 2, stored: 2, deadLetters: 3, seconds: 1 })).toContain(", 3 dead letters,")
    expect(
      formatRunSummary({ first: 1000, last: 1015, bundles: 16, published: 1507, stored: 0, alreadyStored: 16, deadLetters: 0, seconds: 9 })
    ).toBe("done: mc 1000..1015: 16 bundles, 1507 transactions published, 0 stored (16 bundles were already stored), 9.0 s")
  })
})

describe("banner", () => {
  const api = "http://127.0.0.1:8080"
  it("lists every address, with a block that holds transactions", () => {
    const text = formatBanner({
      api,
      sample: { seqno: 1003, transactions: 3 },
      metrics: "http://127.0.0.1:9464",
      sql: { kind: "endpoint", url: "http://127.0.0.1:8123/" }
    })
    const { v2, v3 } = sampleUrls(api, 1003)
    expect(v2).toBe(`${api}/api/v2/getBlockTransactionsExt?workchain=-1&shard=-9223372036854775808&seqno=1003`)
    expect(v3).toBe(`${api}/api/v3/masterchainBlockShardState?seqno=1003`)
    for (const s of [`${api}/api/docs`, v2, v3, `${api}/overview`, "http://127.0.0.1:9464/metrics", "http://127.0.0.1:8123/"]) {
      expect(text).toContain(s)
    }
    expect(text).toContain("3 masterchain transactions")
    expect(text.split("\n")[0]).toBe("ready:")
  })

  it("says so when no block with transactions is stored, and when a server serves SQL", () => {
    const text = formatBanner({ api, sample: undefined, metrics: "http://127.0.0.1:9464", sql: { kind: "server", url: "http://ch:8123" } })
    expect(text).toContain("no stored masterchain block holds transactions yet")
    expect(text).toContain("the ClickHouse server at http://ch:8123 serves SQL itself (no endpoint started here)")
    expect(text).not.toContain("seqno=")
  })
})
