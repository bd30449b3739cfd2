// The sink's encoded insert (RowBinary for the largest tables, JSONCompactEachRow, TabSeparated for the pages) stores exactly what the client's JSONEachRow insert stores, table by table, on real and
// synthetic bundles; and the analytics views see one insert per table statement, as before.
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { flattenBundles, INSERT_ORDER } from "../../src/flatten/index.js"
import { makeMetrics } from "../../src/ops/Metrics.js"
import { engineMemoryTracked } from "../../src/sink/ClickHouseSink.js"
import { encoderFor } from "../../src/sink/encode.js"
import { testClickHouse, type TestClickHouse } from "../support/integration.js"
import { realBundle, syntheticBundle } from "../unit/store/records.js"

let viaClient: TestClickHouse
let viaEncoded: TestClickHouse
const rows = flattenBundles([realBundle(), ...[1000, 1001, 1002].map(syntheticBundle)])

const dump = async (ch: TestClickHouse, table: string): Promise<string> => {
  const rs = await ch.client.query({ query: `SELECT * FROM ${table} ORDER BY ALL`, format: "JSONEachRow" })
  return rs.text()
}

beforeAll(async () => {
  viaClient = await testClickHouse("sink client")
  viaEncoded = await testClickHouse("sink encoded")
  for (const table of INSERT_ORDER) {
    const values = rows[table] as Array<object>
    if (values.length === 0) continue
    await viaClient.client.insert<object>({ table, values, format: "JSONEachRow" })
    // Small chunks, so that most bodies are several of them, handed over as the sink hands them.
    const encoder = encoderFor(table, 4096)
    for (const row of values) encoder.add(row)
    const { columns, chunks } = encoder.finishChunks()
    await viaEncoded.insertEncoded({ table, columns, format: encoder.format, body: chunks })
  }
}, 120_000)

afterAll(async () => {
  await viaClient?.close()
  await viaEncoded?.close()
})

describe("encoded inserts", () => {
  it("store the same rows as JSONEachRow objects in every table", async () => {
    for (const table of INSERT_ORDER) {
      const expected = await dump(viaClient, table)
      if ((rows[table] as Array<unknown>).length > 0) expect(expected.length).toBeGreaterThan(0)
      expect({ table, rows: await dump(viaEncoded, table) }).toEqual({ table, rows: expected })
    }
  })

  it("fire the analytics views once per statement", async () => {
    const attempts = async (ch: TestClickHouse) =>
      (
        await (
          await ch.client.query({
            query: "SELECT uniqExact(insert_id) AS i, sum(transactions) AS n FROM analytics_tx_mc",
            format: "JSONEachRow"
          })
        ).json<{ i: string; n: string }>()
      )[0]
    expect(await attempts(viaEncoded)).toEqual({ i: "1", n: String(rows.transactions.length) })
    expect(await attempts(viaClient)).toEqual(await attempts(viaEncoded))
  })

  it("tell the embedded engine's own tracked memory to the metrics when scraped (a server has no such gauge)", async () => {
    const metrics = makeMetrics(false)
    const engine = viaEncoded.embedded
    if (engine === undefined) {
      expect(viaEncoded.backend).toBe("server")
      expect(await metrics.registry.metrics()).not.toContain("ton_engine_memory_tracked_bytes")
      return
    }
    const tracked = await engineMemoryTracked(engine)
    // The engine holds at least its own caches and the tables' metadata: some megabytes, never nothing.
    expect(tracked).toBeGreaterThan(1024 * 1024)
    metrics.trackEngineMemory(() => engineMemoryTracked(engine))
    metrics.trackEngineMemory(() => engineMemoryTracked(engine)) // a second client of the engine: still one gauge
    const line = (await metrics.registry.metrics()).split("\n").find((l) => l.startsWith("ton_engine_memory_tracked_bytes "))
    expect(Number(line?.split(" ")[1])).toBeGreaterThan(1024 * 1024)
  })

  it("insert nothing for an empty body", async () => {
    await viaEncoded.insertEncoded({ table: "mc_blocks_done", columns: ["mc_seqno"], format: "JSONCompactEachRow", body: Buffer.alloc(0) })
    expect(await dump(viaEncoded, "mc_blocks_done")).toEqual(await dump(viaClient, "mc_blocks_done"))
  })
})
