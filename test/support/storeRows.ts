/**
 * Writing a batch's rows into a test store the way the consumer does: every table in the consumer's insert order, one
 * statement each, empty tables skipped; `except` leaves out one table (a store written before it, or a block whose
 * completion marker is still to come).
 */
import type { ClickHouseClient } from "@clickhouse/client"
import { INSERT_ORDER, type TableName, type TableRows } from "../../src/flatten/index.js"

export const insertTables = async (client: ClickHouseClient, batch: TableRows, except?: TableName): Promise<void> => {
  for (const table of INSERT_ORDER) {
    if (table === except || batch[table].length === 0) continue
    await client.insert<object>({ table, values: batch[table], format: "JSONEachRow" })
  }
}
