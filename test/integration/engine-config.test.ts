// The embedded engine's RocksDB options reach it: with CLICKHOUSE_LOOKUPS_CACHE_BYTES set, `account_lookups_kv`
// (sql/0142) reads through a block cache of that size, so a second full read of more than RocksDB's own 32 MiB of
// blocks misses nothing, while a table of the same rows without the option (RocksDB's own cache) misses again; with
// CLICKHOUSE_V3_PAGES_COMPRESSION=lz4, `v3_pages` (sql/0131) is opened with LZ4 and writes LZ4 blocks, larger than the
// ZSTD ones of a table of the same rows without the option, and reads them back unchanged; with
// CLICKHOUSE_PAGES_MIN_BLOB_BYTES set, `v3_pages` and `v2_pages` (sql/0132) keep their values in RocksDB's blob files
// (a table of the same rows without the option has none), and read them back unchanged.
// Always the embedded engine, whatever the run's backend: the settings exist only there.
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs"
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
    lookupsCacheBytes: 96 * 1024 * 1024,
    v3PagesCompression: "lz4",
    pagesMinBlobBytes: 4096
  })
  await applyMigrations(ch.client)
  await ch.client.command({
    query: `CREATE TABLE default_cache_kv (key String, mc_seqno UInt32, value String)
            ENGINE = EmbeddedRocksDB PRIMARY KEY key SETTINGS optimize_for_bulk_insert = 0`
  })
  await fill("account_lookups_kv")
  await fill("default_cache_kv")
  await ch.client.command({ query: "CREATE TABLE default_codec_pages AS v3_pages" })
  await fillPages("v3_pages")
  await fillPages("default_codec_pages")
  await ch.client.command({ query: "CREATE TABLE default_blob_v2 AS v2_pages" })
  await fillV2("v2_pages")
  await fillV2("default_blob_v2")
})

// 300 blocks' v2 rows of ~6 KB of JSON-like text, and 100 small ones (under the blob size)
const fillV2 = async (table: string): Promise<void> => {
  await ch.client.command({
    query: `INSERT INTO ${table} (block, mc_block_seqno, root_hash, file_hash, keys, v2)
            SELECT concat('0:8000000000000000:', toString(number)), toUInt32(number), hex(sipHash128(number)), hex(sipHash128(number, 1)),
                   '', if(number < 300, repeat(concat('{"hash":"', hex(sipHash128(number, 2)), '","lt":"', toString(number), '"}'), 100), 'small')
            FROM numbers(400)`
  })
  await ch.client.command({ query: `OPTIMIZE TABLE ${table}` })
}

// 200 blocks of 100 lines of JSON-like text: what a page row holds, compressible as it is
const fillPages = async (table: string): Promise<void> => {
  await ch.client.command({
    query: `INSERT INTO ${table} (mc_block_seqno, asc_rank, lines)
            SELECT toUInt32(number), range(1, 101),
                   arrayMap(i -> concat('{"account":"0:', hex(sipHash128(number, i)), '","lt":"', toString(number * 1000 + i),
                                        '","description":{"aborted":false,"compute_ph":{"gas_used":"', toString(i * 7),
                                        '","success":true}},"in_msg":{"value":"', toString(number * i), '"}}'), range(100))
            FROM numbers(200)`
  })
  await ch.client.command({ query: `OPTIMIZE TABLE ${table}` })
}

/** The table's directory: its RocksDB files. */
const tableDir = async (table: string): Promise<string> =>
  text(`SELECT data_paths[1] FROM system.tables WHERE database = currentDatabase() AND name = '${table}'`)

/** The codec RocksDB recorded in the options file it wrote on opening the table (the newest such file). */
const openedCompression = async (table: string): Promise<string> => {
  const dir = await tableDir(table)
  const newest = readdirSync(dir)
    .filter((f) => f.startsWith("OPTIONS-"))
    .sort((a, b) => Number(a.slice(8)) - Number(b.slice(8)))
    .at(-1)!
  return /^\s*compression=(\w+)$/m.exec(readFileSync(join(dir, newest), "utf8"))![1]!
}

/** Bytes of the table's files of `kind`: table files (`.sst`) and blob files (`.blob`) by default. */
const fileBytes = async (table: string, kind: RegExp = /\.(sst|blob)$/): Promise<number> => {
  const dir = await tableDir(table)
  return readdirSync(dir)
    .filter((f) => kind.test(f))
    .reduce((n, f) => n + statSync(join(dir, f)).size, 0)
}

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

describe("CLICKHOUSE_V3_PAGES_COMPRESSION", () => {
  it("opens v3_pages with LZ4 and leaves other tables with the engine's ZSTD", async () => {
    expect(await openedCompression("v3_pages")).toBe("kLZ4Compression")
    expect(await openedCompression("default_codec_pages")).toBe("kZSTD")
    expect(await openedCompression("account_lookups_kv")).toBe("kZSTD")
  })

  it("writes v3_pages' blocks with it: larger files than ZSTD's for the same rows, read back the same", async () => {
    const lz4 = await fileBytes("v3_pages")
    const zstd = await fileBytes("default_codec_pages")
    expect(zstd).toBeGreaterThan(0)
    expect(lz4).toBeGreaterThan(zstd * 1.2)
    const digest = (table: string) =>
      text(`SELECT count(), sum(cityHash64(mc_block_seqno, asc_rank, lines)) FROM ${table}`)
    expect(await digest("v3_pages")).toBe(await digest("default_codec_pages"))
    expect(await digest("v3_pages")).toMatch(/^200\t\d+$/)
  })
})

describe("CLICKHOUSE_PAGES_MIN_BLOB_BYTES", () => {
  const digest = (table: string, columns: string) => text(`SELECT count(), sum(cityHash64(${columns})) FROM ${table}`)

  it("keeps v3_pages' and v2_pages' large values in blob files, and tables without the option none", async () => {
    for (const table of ["v3_pages", "v2_pages"]) {
      const blobs = await fileBytes(table, /\.blob$/)
      // the values are in the blobs: the table files hold little more than the keys and references
      expect(blobs).toBeGreaterThan(5 * (await fileBytes(table, /\.sst$/)))
    }
    expect(await fileBytes("default_codec_pages", /\.blob$/)).toBe(0)
    expect(await fileBytes("default_blob_v2", /\.blob$/)).toBe(0)
    expect(await fileBytes("account_lookups_kv", /\.blob$/)).toBe(0)
  })

  it("reads the rows back unchanged, those under the size too", async () => {
    const v2 = "block, mc_block_seqno, root_hash, file_hash, keys, v2"
    expect(await digest("v2_pages", v2)).toBe(await digest("default_blob_v2", v2))
    expect(await digest("v2_pages", v2)).toMatch(/^400\t\d+$/)
    expect(await text("SELECT v2 FROM v2_pages WHERE block = '0:8000000000000000:350'")).toBe("small")
    expect(await text("SELECT length(v2) FROM v2_pages WHERE block = '0:8000000000000000:7'")).toBe(
      await text("SELECT length(v2) FROM default_blob_v2 WHERE block = '0:8000000000000000:7'")
    )
    const v3 = "mc_block_seqno, asc_rank, lines"
    expect(await digest("v3_pages", v3)).toBe(await digest("default_codec_pages", v3))
  })
})
