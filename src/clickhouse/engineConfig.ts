/**
 * The server configuration the embedded engine starts with: RocksDB options of the key-value tables, which are read
 * from the `rocksdb` section of the configuration when a table opens and cannot be given as settings. It reaches the
 * engine as an argument of the process's first connection, which starts the engine (later connections share it, and
 * their arguments are ignored). Invariant: with every option at the engine's own default the engine starts with no
 * configuration file at all, exactly as it did before this module (the product's settings leave two options off the
 * engine's defaults: the lookups' block cache and the page tables' blob files).
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { TABLE_COMPRESSIONS, type TableCompression } from "../config.js"

/** RocksDB's names of the codecs, as its column family options take them (`zstd`: the engine's own). */
const ROCKSDB_COMPRESSION: Record<TableCompression, string> = {
  zstd: "kZSTD",
  lz4: "kLZ4Compression",
  none: "kNoCompression"
}

export interface EngineOptions {
  /** RocksDB block cache of `account_lookups_kv` (sql/0142), bytes; 0 leaves RocksDB's own (32 MiB per table). */
  readonly lookupsCacheBytes: number
  /**
   * Compression of the blocks RocksDB writes for `v3_pages` (sql/0131) from now on; absent: the engine's own (ZSTD).
   * Blocks already written keep theirs until a compaction rewrites them (each block records its codec, so a table of
   * mixed blocks reads as one).
   */
  readonly v3PagesCompression?: TableCompression
  /**
   * Values of at least this many bytes in the page tables (`v3_pages` sql/0131, `v2_pages` sql/0132) go to RocksDB's
   * blob files when written (flush or compaction), leaving a reference in the table files, so that compaction
   * rewrites references instead of the rows; absent or 0: RocksDB's own (values in the table files).
   */
  readonly pagesMinBlobBytes?: number
}

/**
 * The configuration text for `options`, or undefined when none differs from the engine's defaults. RocksDB takes a
 * bare number for `block_cache` as the capacity of a new LRU cache of that table alone, and `compression` as the
 * codec of the table's new blocks (a table section matches the table by name in every database).
 */
export const engineConfigXml = (options: EngineOptions): string | undefined => {
  const bytes = options.lookupsCacheBytes
  if (!Number.isSafeInteger(bytes) || bytes < 0) throw new RangeError(`lookups cache: ${bytes} is not a byte count`)
  const codec = options.v3PagesCompression ?? "zstd"
  if (!TABLE_COMPRESSIONS.includes(codec)) throw new RangeError(`v3_pages compression: ${String(codec)}`)
  const minBlob = options.pagesMinBlobBytes ?? 0
  if (!Number.isSafeInteger(minBlob) || minBlob < 0) throw new RangeError(`pages min blob: ${minBlob} is not a byte count`)
  const tables: Array<string> = []
  if (bytes > 0)
    tables.push(
      "      <!-- CLICKHOUSE_LOOKUPS_CACHE_BYTES -->",
      "      <table>",
      "        <name>account_lookups_kv</name>",
      "        <block_based_table_options>",
      `          <block_cache>${bytes}</block_cache>`,
      "        </block_based_table_options>",
      "      </table>"
    )
  if (codec !== "zstd")
    tables.push(
      "      <!-- CLICKHOUSE_V3_PAGES_COMPRESSION -->",
      "      <table>",
      "        <name>v3_pages</name>",
      "        <column_family_options>",
      `          <compression>${ROCKSDB_COMPRESSION[codec]}</compression>`,
      "        </column_family_options>",
      "      </table>"
    )
  // CLICKHOUSE_PAGES_MIN_BLOB_BYTES: sections of their own (RocksDB applies every section naming the table, in order);
  // the blobs take the table's codec
  if (minBlob > 0)
    for (const [table, blobCodec] of [
      ["v3_pages", codec],
      ["v2_pages", "zstd"]
    ] as const)
      tables.push(
        "      <!-- CLICKHOUSE_PAGES_MIN_BLOB_BYTES -->",
        "      <table>",
        `        <name>${table}</name>`,
        "        <column_family_options>",
        "          <enable_blob_files>true</enable_blob_files>",
        `          <min_blob_size>${minBlob}</min_blob_size>`,
        `          <blob_compression_type>${ROCKSDB_COMPRESSION[blobCodec]}</blob_compression_type>`,
        "        </column_family_options>",
        "      </table>"
      )
  if (tables.length === 0) return undefined
  return [
    "<clickhouse>",
    "  <rocksdb>",
    "    <tables>",
    ...tables,
    "    </tables>",
    "  </rocksdb>",
    "</clickhouse>",
    ""
  ].join("\n")
}

/**
 * Runs `open` with the engine's arguments for `options`: none when nothing is configured, else one that loads the
 * text from a file of its own in the system's temporary directory (`withConfigFile`).
 */
export const withEngineConfig = <A>(options: EngineOptions, open: (args: ReadonlyArray<string>) => A): A => {
  const xml = engineConfigXml(options)
  return xml === undefined ? open([]) : withConfigFile(xml, open)
}

/**
 * Runs `open` with the engine's argument that loads configuration `xml` from a file of its own in the system's
 * temporary directory, removed once `open` returns (the engine reads it once, at start; the data directory may still
 * be another process's until the engine holds it).
 */
export const withConfigFile = <A>(xml: string, open: (args: ReadonlyArray<string>) => A): A => {
  const dir = mkdtempSync(join(tmpdir(), "engine-config-"))
  try {
    const file = join(dir, "config.xml")
    writeFileSync(file, xml)
    return open([`--config-file=${file}`])
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}
