/**
 * Writing a test store by hand the way the consumer writes it, for the tests of the code hashes' key-value rows
 * (`account_code_kv`, `account_lookups_kv`): a batch's tables in insert order, code reports one insert per
 * masterchain block, completion markers; and a code hash made from a label.
 */
import type { ClickHouseClient } from "@clickhouse/client"
import type { TableRows } from "../../src/flatten/index.js"
import type { CodeKvRow } from "../../src/store/accountCodeKv.js"
import { insertTables } from "./storeRows.js"

/** A code hash (44 characters of base64) made from `label`. */
export const code = (label: string): string => Buffer.from(label.padEnd(32, ".").slice(0, 32)).toString("base64")

export const storeWriter = (client: () => ClickHouseClient) => ({
  query: async <T>(sql: string): Promise<Array<T>> =>
    (await client().query({ query: sql, format: "JSONEachRow" })).json<T>(),
  /** Every table of a batch, in the consumer's insert order. */
  insert: (batch: TableRows): Promise<void> => insertTables(client(), batch),
  /** One insert per masterchain block, as the consumer writes them (an insert folds its own rows of one account). */
  insertCodes: async (rows: ReadonlyArray<CodeKvRow>): Promise<void> => {
    for (const mc of new Set(rows.map((r) => r.mc_seqno))) {
      const values = rows.filter((r) => r.mc_seqno === mc)
      await client().insert<object>({ table: "latest_account_code", values, format: "JSONEachRow" })
    }
  },
  markDone: async (...seqnos: Array<number>): Promise<void> => {
    await client().insert<object>({
      table: "mc_blocks_done",
      values: seqnos.map((mc_seqno) => ({ mc_seqno, block_count: 0, tx_count: 0 })),
      format: "JSONEachRow"
    })
  }
})
