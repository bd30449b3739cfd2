// The embedded engine's RocksDB options reach it: with CLICKHOUSE_LOOKUPS_CACHE_BYTES set, `account_lookups_kv`
// (sql/0142) reads through a block cache of that size, so a second full read of more than RocksDB's own 32 MiB of
// blocks misses nothing, while a table of the same rows without the option (RocksDB's own cache) misses again; with
// CLICKHOUSE_V3_PAGES_COMPRESSION=lz4, `v3_pages` (sql/0131) is opened with LZ4 and writes LZ4 blocks, larger than the
// ZSTD ones of a table of the same rows without the option, and reads them back unchanged; with
// CLICKHOUSE_PAGES_MIN_BLOB_BYTES set, `v3_pages` and `v2_pages` (sql/0132) keep their values in RocksDB's blob files
// (a table of the same rows without the option has none), and read them back unchanged; with
// CLICKHOUSE_KV_BLOOM_BITS set, both tables write Bloom filters into their files, so a multi-get of keys no file holds
// reads no data block, where a table without them reads one per key. An existing store migrates: sql/0145 compacts
// both tables of a store whose rows lie in several files over levels into one file each (which carries the filter),
// the rows unchanged.
// Always the embedded engine, whatever the run's backend: the settings exist only there.
import { copyFileSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { makeClickHouseClient, type ClickHouseHandle } from "../../src/clickhouse/ClickHouse.js"
import { applyMigrations, defaultMigrationsDir } from "../../src/clickhouse/migrations.js"

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
    pagesMinBlobBytes: 4096,
    kvBloomBits: 10
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

/** An option RocksDB recorded in the options file it wrote on opening the table (the newest such file). */
const openedOption = async (table: string, option: string): Promise<string> => {
  const dir = await tableDir(table)
  const newest = readdirSync(dir)
    .filter((f) => f.startsWith("OPTIONS-"))
    .sort((a, b) => Number(a.slice(8)) - Number(b.slice(8)))
    .at(-1)!
  return new RegExp(`^\\s*${option}=(\\S+)$`, "m").exec(readFileSync(join(dir, newest), "utf8"))![1]!
}
const openedCompression = (table: string): Promise<string> => openedOption(table, "compression")

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

/** RocksDB's statistics `names` of `table` in `database` so far, summed. */
const stat = async (table: string, names: ReadonlyArray<string>, database = "engine_config"): Promise<number> =>
  Number(
    (await text(
      `SELECT sum(value) FROM system.rocksdb WHERE database = '${database}' AND table = '${table}'
       AND name IN ('${names.join("','")}')`
    )) || 0
  )
const DATA_BLOCKS = ["block.cache.data.hit", "block.cache.data.miss"]

describe("CLICKHOUSE_KV_BLOOM_BITS", () => {
  it("opens v3_pages and account_lookups_kv with a Bloom filter, other tables without", async () => {
    expect(await openedOption("account_lookups_kv", "filter_policy")).toBe("bloomfilter:10:false")
    expect(await openedOption("v3_pages", "filter_policy")).toBe("bloomfilter:10:false")
    expect(await openedOption("default_cache_kv", "filter_policy")).toBe("nullptr")
  })

  it("lets a multi-get of keys no file holds skip the file, where a table without filters reads a block a key", async () => {
    // keys inside the tables' key range ('k0'..'k59999'), none of them stored; at 10 bits a key about 1% of the
    // filter's answers are false positives, which read their block
    const absent = Array.from({ length: 50 }, (_, i) => `'k${i}x'`).join(",")
    const get = (table: string) => text(`SELECT count() FROM ${table} WHERE key IN (${absent})`)
    const filtered = await stat("account_lookups_kv", DATA_BLOCKS)
    const useful = await stat("account_lookups_kv", ["bloom.filter.useful"])
    expect(await get("account_lookups_kv")).toBe("0")
    expect((await stat("account_lookups_kv", DATA_BLOCKS)) - filtered).toBeLessThanOrEqual(5)
    expect((await stat("account_lookups_kv", ["bloom.filter.useful"])) - useful).toBeGreaterThanOrEqual(45)
    const plain = await stat("default_cache_kv", DATA_BLOCKS)
    expect(await get("default_cache_kv")).toBe("0")
    expect((await stat("default_cache_kv", DATA_BLOCKS)) - plain).toBeGreaterThanOrEqual(50)
  })
})

describe("sql/0145: an existing store's v3 key-value tables compacted", () => {
  const OLD = "engine_config_old"
  let old: ClickHouseHandle
  const oldText = async (query: string): Promise<string> =>
    (await (await old.client.query({ query, format: "TabSeparated" })).text()).trim()
  const files = async (table: string): Promise<number> => {
    const dir = await oldText(`SELECT data_paths[1] FROM system.tables WHERE database = '${OLD}' AND name = '${table}'`)
    return readdirSync(dir).filter((f) => f.endsWith(".sst")).length
  }
  const digests = () =>
    Promise.all([
      oldText("SELECT count(), sum(cityHash64(mc_block_seqno, asc_rank, lines)) FROM v3_pages"),
      oldText("SELECT count(), sum(cityHash64(key, mc_seqno, value)) FROM account_lookups_kv")
    ])
  let before: Array<string>

  beforeAll(async () => {
    old = await makeClickHouseClient({
      url: undefined,
      user: "default",
      password: "",
      database: OLD,
      dataDir,
      kvBloomBits: 10
    })
    // the store as the migrations before 0145 leave it
    const earlier = mkdtempSync(join(tmpdir(), "migrations-0144-"))
    for (const f of readdirSync(defaultMigrationsDir).filter((f) => f.endsWith(".sql") && f < "0145"))
      copyFileSync(join(defaultMigrationsDir, f), join(earlier, f))
    await applyMigrations(old.client, earlier)
    rmSync(earlier, { recursive: true, force: true })
    // rows in several files over levels, as a consumer's batches leave them: each insert its own file (the engine's
    // bulk path), every file over the whole key range
    const bulk = (on: 0 | 1) =>
      Promise.all(
        ["v3_pages", "account_lookups_kv"].map((t) =>
          old.client.command({ query: `ALTER TABLE ${t} MODIFY SETTING optimize_for_bulk_insert = ${on}` })
        )
      )
    await bulk(1)
    for (let batch = 0; batch < 3; batch++) {
      await old.client.command({
        query: `INSERT INTO v3_pages (mc_block_seqno, asc_rank, lines)
                SELECT toUInt32(number * 3 + ${batch}), [1, 2], [repeat(hex(sipHash128(number, ${batch})), 40), 'x']
                FROM numbers(300)`
      })
      await old.client.command({
        query: `INSERT INTO account_lookups_kv (key, mc_seqno, value)
                SELECT concat('k', toString(number * 3 + ${batch})), 0, repeat(hex(sipHash128(number)), 4)
                FROM numbers(3000)`
      })
    }
    await bulk(0)
    before = await digests()
  })

  afterAll(async () => {
    await old?.client.close()
  })

  it("leaves one file per table where there were several, the rows unchanged", async () => {
    expect(await files("v3_pages")).toBeGreaterThanOrEqual(3)
    expect(await files("account_lookups_kv")).toBeGreaterThanOrEqual(3)
    const report = await applyMigrations(old.client)
    expect(report.applied).toContain("0145_compact_v3_kv_tables.sql")
    expect(await files("v3_pages")).toBe(1)
    expect(await files("account_lookups_kv")).toBe(1)
    expect(await digests()).toEqual(before)
    expect(before[0]).toMatch(/^900\t\d+$/)
    expect(before[1]).toMatch(/^9000\t\d+$/)
  })

  it("writes the compacted files with the filter: a get of an absent key reads no data block", async () => {
    const blocks = await stat("account_lookups_kv", DATA_BLOCKS, OLD)
    expect(await oldText("SELECT count() FROM account_lookups_kv WHERE key IN ('k1x', 'k2x', 'k3x')")).toBe("0")
    expect((await stat("account_lookups_kv", DATA_BLOCKS, OLD)) - blocks).toBe(0)
  })
})
