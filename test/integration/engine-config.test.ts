// The embedded engine's RocksDB options reach it: with CLICKHOUSE_LOOKUPS_CACHE_BYTES set, `account_lookups_kv`
// (sql/0142) reads through a block cache of that size, so a second full read of more than RocksDB's own 32 MiB of
// blocks misses nothing, while a table of the same rows without the option (RocksDB's own cache) misses again.
// Always the embedded engine, whatever the run's backend: the setting exists only there.
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { makeClickHouseClient, type ClickHouseHandle } from "../../src/clickhouse/ClickHouse.js"
import { applyMigrations } from "../../src/clickhouse/migrations.js"

const dataDir = mkdtempSync(join(tmpdir(), "engine-config-"))
let ch: ClickHouseHandle

const text = async (query: string): Promise<string> =>
  (await (await ch.client.query({ query, format: "TabSeparated" })).text()).trim()

/** Block cache misses of `table` so far (RocksDB's statistics, kept per table since it opened). */
const misses = async (table: string): Promise<number> =>
  Number(
    (await text(
      `SELECT sum(value) FROM system.rocksdb WHERE database = currentDatabase() AND table = '${table}'
       AND name = 'block.cache.data.miss'`
    )) || 0
  )

/** Every row once through the table's iterator, which fills the block cache as a point read does. */
const readAll = (table: string): Promise<string> => text(`SELECT count() FROM ${table} WHERE NOT ignore(value)`)

// 60,000 rows of ~800 bytes: ~48 MB of blocks once decompressed, more than RocksDB's own 32 MiB cache holds
const fill = async (table: string): Promise<void> => {
  await ch.client.command({
    query: `INSERT INTO ${table} (key, mc_seqno, value)
            SELECT concat('k', toString(number)), 0, repeat(hex(sipHash128(number)), 25) FROM numbers(60000)`
  })
  // the rows leave the memtable for a table file, where reads go through the block cache
  await ch.client.command({ query: `OPTIMIZE TABLE ${table}` })
}

beforeAll(async () => {
  ch = await makeClickHouseClient({
    url: undefined,
    user: "default",
    password: "",
    database: "engine_config",
    dataDir,
    lookupsCacheBytes: 96 * 1024 * 1024
  })
  await applyMigrations(ch.client)
  await ch.client.command({
    query: `CREATE TABLE default_cache_kv (key String, mc_seqno UInt32, value String)
            ENGINE = EmbeddedRocksDB PRIMARY KEY key SETTINGS optimize_for_bulk_insert = 0`
  })
  await fill("account_lookups_kv")
  await fill("default_cache_kv")
})

afterAll(async () => {
  await ch?.client.close()
  rmSync(dataDir, { recursive: true, force: true })
})

describe("CLICKHOUSE_LOOKUPS_CACHE_BYTES", () => {
  it("sizes account_lookups_kv's block cache: a second full read misses no block", async () => {
    expect(await readAll("account_lookups_kv")).toBe("60000")
    const before = await misses("account_lookups_kv")
    expect(before).toBeGreaterThan(10_000)
    expect(await readAll("account_lookups_kv")).toBe("60000")
    expect((await misses("account_lookups_kv")) - before).toBe(0)
  })

  it("leaves other key-value tables with RocksDB's own cache, which the same rows overflow", async () => {
    expect(await readAll("default_cache_kv")).toBe("60000")
    const before = await misses("default_cache_kv")
    expect(await readAll("default_cache_kv")).toBe("60000")
    expect((await misses("default_cache_kv")) - before).toBeGreaterThan(5_000)
  })
})
