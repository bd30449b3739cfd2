// The embedded engine's configuration text from its options: none at all when nothing differs from the engine's
// defaults (it starts exactly as without the file), else the lookups table's block cache, the v3 page rows' codec, the
// page tables' blob files and the v3 tables' Bloom filters, each in the one section of its table by name; the
// temporary file that carries it to the engine is gone once the engine is open.
import { existsSync, readFileSync } from "node:fs"
import { describe, expect, it } from "vitest"
import { engineConfigXml, withEngineConfig } from "../../../src/clickhouse/engineConfig.js"

describe("engine configuration", () => {
  it("is absent with the lookups cache at 0, and no argument reaches the engine", () => {
    expect(engineConfigXml({ lookupsCacheBytes: 0 })).toBeUndefined()
    expect(withEngineConfig({ lookupsCacheBytes: 0 }, (args) => args)).toEqual([])
  })

  it("sizes account_lookups_kv's block cache alone, in bytes", () => {
    const xml = engineConfigXml({ lookupsCacheBytes: 134217728 })!
    expect(xml).toContain("<rocksdb>")
    expect(xml.match(/<table>/g)).toHaveLength(1)
    expect(xml).toContain("<name>account_lookups_kv</name>")
    expect(xml).toContain("<block_cache>134217728</block_cache>")
  })

  it("is absent with the v3 page rows' codec at the engine's own ZSTD", () => {
    expect(engineConfigXml({ lookupsCacheBytes: 0, v3PagesCompression: "zstd" })).toBeUndefined()
  })

  it("gives v3_pages the codec in a section of its own, RocksDB's name for it", () => {
    const lz4 = engineConfigXml({ lookupsCacheBytes: 0, v3PagesCompression: "lz4" })!
    expect(lz4.match(/<table>/g)).toHaveLength(1)
    expect(lz4).toContain("<name>v3_pages</name>")
    expect(lz4).toMatch(
      /<column_family_options>\s*<compression>kLZ4Compression<\/compression>\s*<\/column_family_options>/
    )
    expect(engineConfigXml({ lookupsCacheBytes: 0, v3PagesCompression: "none" })).toContain(
      "<compression>kNoCompression</compression>"
    )
    const both = engineConfigXml({ lookupsCacheBytes: 1 << 20, v3PagesCompression: "lz4" })!
    expect(both.match(/<table>/g)).toHaveLength(2)
    expect(both).toContain("<block_cache>1048576</block_cache>")
    expect(both).toContain("<compression>kLZ4Compression</compression>")
  })

  it("is absent with the page tables' blob size at 0", () => {
    expect(engineConfigXml({ lookupsCacheBytes: 0, pagesMinBlobBytes: 0 })).toBeUndefined()
  })

  it("keeps both page tables' large values in blob files, each in its table's section, the blobs in the table's codec", () => {
    const xml = engineConfigXml({ lookupsCacheBytes: 0, pagesMinBlobBytes: 4096 })!
    const sections = xml.split("<table>").slice(1)
    expect(sections).toHaveLength(2)
    for (const [section, table] of sections.map((s, k) => [s, ["v3_pages", "v2_pages"][k]!] as const)) {
      expect(section).toContain(`<name>${table}</name>`)
      expect(section).toMatch(
        /<column_family_options>\s*<enable_blob_files>true<\/enable_blob_files>\s*<min_blob_size>4096<\/min_blob_size>\s*<blob_compression_type>kZSTD<\/blob_compression_type>\s*<\/column_family_options>/
      )
    }
    // with the v3 codec: one v3_pages section, its blobs in that codec
    const lz4 = engineConfigXml({ lookupsCacheBytes: 0, v3PagesCompression: "lz4", pagesMinBlobBytes: 8192 })!
    expect(lz4.match(/<name>v3_pages<\/name>/g)).toHaveLength(1)
    expect(lz4).toMatch(
      /<name>v3_pages<\/name>\s*<column_family_options>\s*<compression>kLZ4Compression<\/compression>\s*<enable_blob_files>true<\/enable_blob_files>\s*<min_blob_size>8192<\/min_blob_size>\s*<blob_compression_type>kLZ4Compression</
    )
    expect(lz4).toMatch(/<name>v2_pages<\/name>[\s\S]*<blob_compression_type>kZSTD</)
    expect(lz4).not.toContain("account_lookups_kv")
    // every option of the product's defaults together: one section per table
    const all = engineConfigXml({ lookupsCacheBytes: 1 << 20, pagesMinBlobBytes: 4096, kvBloomBits: 10 })!
    expect(all.match(/<table>/g)).toHaveLength(3)
    expect(all).toMatch(
      /<name>v3_pages<\/name>\s*<block_based_table_options>\s*<filter_policy>bloomfilter:10:false<\/filter_policy>\s*<\/block_based_table_options>\s*<column_family_options>\s*<enable_blob_files>true</
    )
  })

  it("is absent with no Bloom filter bits", () => {
    expect(engineConfigXml({ lookupsCacheBytes: 0, kvBloomBits: 0 })).toBeUndefined()
  })

  it("gives v3_pages and account_lookups_kv a Bloom filter of the bits per key, in their own sections", () => {
    const xml = engineConfigXml({ lookupsCacheBytes: 0, kvBloomBits: 10 })!
    expect(xml.match(/<table>/g)).toHaveLength(2)
    for (const name of ["v3_pages", "account_lookups_kv"])
      expect(xml).toMatch(
        new RegExp(
          `<name>${name}</name>\\s*<block_based_table_options>\\s*` +
            "<filter_policy>bloomfilter:10:false</filter_policy>\\s*</block_based_table_options>"
        )
      )
    // with the cache and the codec: one section per table, each option in its table's section
    const all = engineConfigXml({ lookupsCacheBytes: 1 << 20, v3PagesCompression: "lz4", kvBloomBits: 6 })!
    expect(all.match(/<table>/g)).toHaveLength(2)
    expect(all).toMatch(
      /<name>account_lookups_kv<\/name>\s*<block_based_table_options>\s*<block_cache>1048576<\/block_cache>\s*<filter_policy>bloomfilter:6:false<\/filter_policy>/
    )
    expect(all).toMatch(
      /<name>v3_pages<\/name>\s*<block_based_table_options>\s*<filter_policy>bloomfilter:6:false<\/filter_policy>\s*<\/block_based_table_options>\s*<column_family_options>\s*<compression>kLZ4Compression<\/compression>/
    )
  })

  it("refuses Bloom filter bits that are not a count up to 64", () => {
    expect(() => engineConfigXml({ lookupsCacheBytes: 0, kvBloomBits: -1 })).toThrow(RangeError)
    expect(() => engineConfigXml({ lookupsCacheBytes: 0, kvBloomBits: 2.5 })).toThrow(RangeError)
    expect(() => engineConfigXml({ lookupsCacheBytes: 0, kvBloomBits: 65 })).toThrow(RangeError)
  })

  it("refuses a size that is not a byte count", () => {
    expect(() => engineConfigXml({ lookupsCacheBytes: -1 })).toThrow(RangeError)
    expect(() => engineConfigXml({ lookupsCacheBytes: 1.5 })).toThrow(RangeError)
    expect(() => engineConfigXml({ lookupsCacheBytes: 0, pagesMinBlobBytes: -1 })).toThrow(RangeError)
  })

  it("hands the engine a file holding the text, removed once the engine is open", () => {
    let file = ""
    const text = withEngineConfig({ lookupsCacheBytes: 1 << 20 }, (args) => {
      expect(args).toHaveLength(1)
      file = args[0]!.replace(/^--config-file=/, "")
      return readFileSync(file, "utf8")
    })
    expect(text).toBe(engineConfigXml({ lookupsCacheBytes: 1 << 20 }))
    expect(existsSync(file)).toBe(false)
  })
})
