import type { ClickHouseClient } from "@clickhouse/client"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { flattenBundles, INSERT_ORDER } from "../../src/flatten/index.js"
import { ClickHouseTxStore } from "../../src/store/Store.js"
import type { TransactionRecord } from "../../src/ton/record.js"
import { testClickHouse, type TestClickHouse } from "../support/integration.js"
import { realBlockBundles } from "../unit/store/realBlocks.js"

let handle: TestClickHouse
let client: ClickHouseClient
let store: ClickHouseTxStore
const { bundles, rawBocBytes } = realBlockBundles()
const txCount = bundles.reduce((n, b) => n + b.transactions.length, 0)

const rows = async <T>(query: string): Promise<Array<T>> =>
  (await client.query({ query, format: "JSONEachRow", clickhouse_settings: { output_format_json_quote_64bit_integers: 0 } })).json<T>()

beforeAll(async () => {
  handle = await testClickHouse("store real blocks")
  client = handle.client
  store = new ClickHouseTxStore(client)
  const batch = flattenBundles(bundles)
  for (const table of INSERT_ORDER) {
    if (batch[table].length > 0) await client.insert<object>({ table, values: batch[table], format: "JSONEachRow" })
  }
})

afterAll(async () => {
  await handle?.close()
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

  it("stores a transaction in no more bytes than its raw BOC, and its rendered pages in as many again at most", async () => {
    // `v3_pages` (sql/0131) is a key-value table: no parts to merge, and not in system.parts (a derived read copy of
    // `tx_pages`, like it outside the bound on the normalized tables; its size is not measured here)
    for (const table of INSERT_ORDER) {
      if (table !== "v3_pages" && table !== "v2_pages") await client.command({ query: `OPTIMIZE TABLE ${table} FINAL` })
    }
    const parts = await rows<{ table: string; bytes: number; rows: number }>(
      `SELECT table, sum(bytes_on_disk) AS bytes, sum(rows) AS rows FROM system.parts
       WHERE database = currentDatabase() AND active GROUP BY table ORDER BY bytes DESC`
    )
    // The exporter's own tables; views others build on them are reported but not part of the bound.
    const own = new Set<string>(INSERT_ORDER)
    const total = parts.filter((p) => own.has(p.table)).reduce((n, p) => n + Number(p.bytes), 0)
    const lines = [
      `storage: ${txCount} real mainnet transactions, raw BOC ${rawBocBytes} B (${(rawBocBytes / txCount).toFixed(1)} B/tx)`,
      `storage: on disk ${total} B (${(total / txCount).toFixed(1)} B/tx, ${((100 * total) / rawBocBytes).toFixed(1)}% of raw BOC)`,
      ...parts.map(
        (p) =>
          `storage:   ${p.table.padEnd(28)} ${String(p.bytes).padStart(9)} B ${String(p.rows).padStart(6)} rows` +
          (own.has(p.table) ? "" : " (not counted)")
      )
    ]
    console.log(lines.join("\n"))
    // The normalized tables hold everything once; `tx_pages` is the read path's rendered copy, bounded on its own.
    const pages = parts.filter((p) => p.table === "tx_pages").reduce((n, p) => n + Number(p.bytes), 0)
    expect(pages).toBeGreaterThan(0)
    expect(total - pages).toBeLessThanOrEqual(rawBocBytes)
    expect(pages).toBeLessThanOrEqual(rawBocBytes)
  })
})
