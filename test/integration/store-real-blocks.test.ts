import type { ClickHouseClient } from "@clickhouse/client"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { flattenBundles, INSERT_ORDER } from "../../src/flatten/index.js"
import { ClickHouseTxStore } from "../../src/store/Store.js"
import type { TransactionRecord } from "../../src/ton/record.js"
import { testClickHouse, type TestClickHouse } from "../support/integration.js"
import { insertTables } from "../support/storeRows.js"
import { realBlockBundles } from "../unit/store/realBlocks.js"

let handle: TestClickHouse
let client: ClickHouseClient
let store: ClickHouseTxStore
const { bundles, rawBocBytes } = realBlockBundles()
const txCount = bundles.reduce((n, b) => n + b.transactions.length, 0)

/** A store as a consumer writes it: a single node's (`pageKv`) or a cluster's (every piece in `tx_pages`). */
const writeStore = async (label: string, pageKv: boolean): Promise<TestClickHouse> => {
  const h = await testClickHouse(label)
  const batch = flattenBundles(bundles, { pageKv })
  await insertTables(h.client, batch)
  return h
}

let withEveryPiece: TestClickHouse | undefined

beforeAll(async () => {
  handle = await writeStore("store real blocks", true)
  client = handle.client
  store = new ClickHouseTxStore(client)
})

afterAll(async () => {
  await handle?.close()
  await withEveryPiece?.close()
})

const cmp = <A extends string | bigint>(a: A, b: A): number => (a < b ? -1 : a > b ? 1 : 0)

describe("real mainnet blocks through ClickHouse", () => {
  it("serves every decoded transaction back unchanged, by masterchain block and by block cursor", async () => {
    for (const b of bundles) {
      const all = await store.transactionsByMcSeqno(b.mc_seqno, { limit: 1000, offset: 0, sort: "asc" })
      const expected = [...b.transactions].sort((x, y) => cmp(BigInt(x.lt), BigInt(y.lt)) || cmp(x.account, y.account))
      expect(all).toStrictEqual(expected)
      for (const blk of [b.mc_block, ...b.shard_blocks]) {
        const own = b.transactions.filter((t) => t.block.seqno === blk.id.seqno && t.block.shard === blk.id.shard)
        for (const count of [40, 256]) {
          const walked: Array<TransactionRecord> = []
          let after: { account: string; lt: string } | null = null
          for (;;) {
            const page = await store.blockTransactions(blk.id, after, count)
            walked.push(...page)
            if (page.length < count) break
            after = { account: page.at(-1)!.account.split(":")[1]!, lt: page.at(-1)!.lt }
          }
          expect(walked).toStrictEqual(own)
        }
      }
    }
  })

  it("stores a transaction in no more bytes than its raw BOC, and each rendered copy of its pages in as many again at most", async () => {
    // `v3_pages` and `v2_pages` (sql/0131, 0132) are key-value tables: not in system.parts; the engine reports the size
    // of their files in system.tables once OPTIMIZE has flushed the memtable (sql/0133: inserts go through it, so the
    // files are compressed). A single node's consumer writes the pages there and `tx_pages` only for blocks they cannot
    // serve (none among these); a store with every piece in `tx_pages` (a cluster's, or one written before) is
    // measured beside it.
    const kv = new Set<string>(["v3_pages", "v2_pages"])
    // `account_lookups_kv` (sql/0142) is one too: a copy of the known states (its view's) and each account's code hash
    // (the consumer's puts), counted with the normalized tables; so is `mc_shards_kv` (sql/0150), each masterchain
    // block's blocks and shard tops rendered.
    const kvTables = new Set<string>([...kv, "account_lookups_kv", "mc_shards_kv"])
    const own = new Set<string>([...INSERT_ORDER, "account_lookups_kv"])
    const pageTables = new Set<string>(["tx_pages", ...kv])
    const measure = async (c: ClickHouseClient, shape: string) => {
      for (const table of own) {
        await c.command({ query: kvTables.has(table) ? `OPTIMIZE TABLE ${table}` : `OPTIMIZE TABLE ${table} FINAL` })
      }
      const parts = await (
        await c.query({
          query: `SELECT table, sum(bytes_on_disk) AS bytes, sum(rows) AS rows FROM system.parts
                  WHERE database = currentDatabase() AND active GROUP BY table
                  UNION ALL
                  SELECT name AS table, total_bytes AS bytes, NULL AS rows FROM system.tables
                  WHERE database = currentDatabase() AND name IN ('v3_pages', 'v2_pages', 'account_lookups_kv', 'mc_shards_kv')
                  ORDER BY bytes DESC`,
          format: "JSONEachRow",
          clickhouse_settings: { output_format_json_quote_64bit_integers: 0 }
        })
      ).json<{ table: string; bytes: number; rows: number | null }>()
      // The exporter's own tables; views others build on them are reported but not part of the bound.
      const sizeOf = (t: string) => Number(parts.find((p) => p.table === t)?.bytes ?? 0)
      const total = parts.filter((p) => own.has(p.table)).reduce((n, p) => n + Number(p.bytes), 0)
      const pages = [...pageTables].reduce((n, t) => n + sizeOf(t), 0)
      const lines = [
        `storage (${shape}): ${txCount} real mainnet transactions, raw BOC ${rawBocBytes} B (${(rawBocBytes / txCount).toFixed(1)} B/tx)`,
        `storage (${shape}): on disk ${total} B (${(total / txCount).toFixed(1)} B/tx, ${((100 * total) / rawBocBytes).toFixed(1)}% of raw BOC), ` +
          `of which rendered pages ${pages} B (${((100 * pages) / rawBocBytes).toFixed(1)}%)`,
        ...parts.map(
          (p) =>
            `storage:   ${p.table.padEnd(28)} ${String(p.bytes).padStart(9)} B ${String(p.rows ?? "").padStart(6)} rows` +
            (own.has(p.table) ? (pageTables.has(p.table) ? " (rendered pages)" : "") : " (not counted)")
        )
      ]
      console.log(lines.join("\n"))
      // The normalized tables hold everything once; each rendered copy of the pages is bounded on its own.
      expect(total - pages).toBeLessThanOrEqual(rawBocBytes)
      for (const t of pageTables) expect(sizeOf(t), t).toBeLessThanOrEqual(rawBocBytes)
      return { total, sizeOf }
    }
    const single = await measure(client, "a single node's consumer")
    withEveryPiece = await writeStore("store real blocks every piece", false)
    const everyPiece = await measure(withEveryPiece.client, "every piece in tx_pages")
    // every block of these fits its v2 row: no piece in tx_pages, both key-value copies there
    expect(single.sizeOf("tx_pages")).toBe(0)
    for (const t of kv) expect(single.sizeOf(t), t).toBeGreaterThan(0)
    for (const t of pageTables) expect(everyPiece.sizeOf(t), t).toBeGreaterThan(0)
    // the copy left out is what the store saves (the other tables hold the same rows; their sizes vary by a few bytes)
    expect(single.total).toBeLessThan(everyPiece.total - everyPiece.sizeOf("tx_pages") / 2)
  })
})
