/**
 * The server configuration the embedded engine starts with: RocksDB options of the key-value tables, which are read
 * from the `rocksdb` section of the configuration when a table opens and cannot be given as settings. It reaches the
 * engine as an argument of the process's first connection, which starts the engine (later connections share it, and
 * their arguments are ignored). Invariant: with every option at the engine's own default the engine starts with no
 * configuration file at all, exactly as it did before this module (the product's settings leave three options off
 * the engine's defaults: the lookups' block cache, the page tables' blob files and the v3 tables' Bloom filters).
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
  /**
   * Bits per key of the Bloom filter RocksDB writes into each new table file of `v3_pages` and `account_lookups_kv`;
   * absent or 0: none (RocksDB's own). Files already written keep what they have until a compaction rewrites them
   * (a file records its filter, so a table of files with and without filters reads as one).
   */
  readonly kvBloomBits?: number
}

/** The tables whose point reads the Bloom filters serve: a v3 page's two statements. */
const BLOOM_TABLES = ["v3_pages", "account_lookups_kv"] as const

/**
 * The configuration text for `options`, or undefined when none differs from the engine's defaults. RocksDB takes a
 * bare number for `block_cache` as the capacity of a new LRU cache of that table alone, `compression` as the codec of
 * the table's new blocks, `enable_blob_files` with `min_blob_size` as values of that size and more kept in blob files,
 * and `filter_policy` `bloomfilter:BITS:false` as a full-file Bloom filter of BITS bits per
 * key in each new file (a table section matches the table by name in every database).
 */
export const engineConfigXml = (options: EngineOptions): string | undefined => {
  const bytes = options.lookupsCacheBytes
  if (!Number.isSafeInteger(bytes) || bytes < 0) throw new RangeError(`lookups cache: ${bytes} is not a byte count`)
  const codec = options.v3PagesCompression ?? "zstd"
  if (!TABLE_COMPRESSIONS.includes(codec)) throw new RangeError(`v3_pages compression: ${String(codec)}`)
  const minBlob = options.pagesMinBlobBytes ?? 0
  if (!Number.isSafeInteger(minBlob) || minBlob < 0) throw new RangeError(`pages min blob: ${minBlob} is not a byte count`)
  const bits = options.kvBloomBits ?? 0
  if (!Number.isSafeInteger(bits) || bits < 0 || bits > 64) throw new RangeError(`Bloom filter: ${bits} bits per key`)
  // per table: its block-based table options and its column family options, each a list of option lines
  const block = new Map<string, Array<string>>()
  const family = new Map<string, Array<string>>()
  const add = (m: Map<string, Array<string>>, table: string, line: string): void => {
    m.set(table, [...(m.get(table) ?? []), line])
  }
  if (bytes > 0) add(block, "account_lookups_kv", `<block_cache>${bytes}</block_cache>`)
  if (bits > 0) for (const t of BLOOM_TABLES) add(block, t, `<filter_policy>bloomfilter:${bits}:false</filter_policy>`)
  if (codec !== "zstd") add(family, "v3_pages", `<compression>${ROCKSDB_COMPRESSION[codec]}</compression>`)
  // blob files for the page tables' large values, each blob in its table's codec
  if (minBlob > 0)
    for (const [table, blobCodec] of [
      ["v3_pages", codec],
      ["v2_pages", "zstd"]
    ] as const) {
      add(family, table, "<enable_blob_files>true</enable_blob_files>")
      add(family, table, `<min_blob_size>${minBlob}</min_blob_size>`)
      add(family, table, `<blob_compression_type>${ROCKSDB_COMPRESSION[blobCodec]}</blob_compression_type>`)
    }
  const names = [...new Set([...block.keys(), ...family.keys()])]
  if (names.length === 0) return undefined
  const section = (tag: string, lines: ReadonlyArray<string> | undefined): Array<string> =>
    lines === undefined ? [] : [`        <${tag}>`, ...lines.map((l) => `          ${l}`), `        </${tag}>`]
  const tables = names.flatMap((name) => [
    "      <table>",
    `        <name>${name}</name>`,
    ...section("block_based_table_options", block.get(name)),
    ...section("column_family_options", family.get(name)),
    "      </table>"
  ])
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
