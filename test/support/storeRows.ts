/**
 * Writing a batch's rows into a test store the way the consumer does: every table in the consumer's insert order, one
 * statement each, empty tables skipped; `except` leaves out one table (a store written before it, or a block whose
 * completion marker is still to come).
 */
import type { ClickHouseClient } from "@clickhouse/client"
import type { ClickHouseHandle } from "../../src/clickhouse/ClickHouse.js"
import { INSERT_ORDER, type TableName, type TableRows } from "../../src/flatten/index.js"
import type { RowEncoder } from "../../src/sink/encode.js"

export const insertTables = async (client: ClickHouseClient, batch: TableRows, except?: TableName): Promise<void> => {
  for (const table of INSERT_ORDER) {
    if (table === except || batch[table].length === 0) continue
    await client.insert<object>({ table, values: batch[table], format: "JSONEachRow" })
  }
}

/**
 * The batch's rows encoded by `encoder` (the sink's `encoderFor`, or `textEncoderFor`) into chunks of 300 bytes, so
 * that a body is many pieces with values straddling them, and inserted table by table as the sink hands them over.
 */
export const insertEncodedTables = async (
  ch: Pick<ClickHouseHandle, "insertEncoded">,
  batch: TableRows,
  encoder: (table: string, chunkBytes: number) => RowEncoder
): Promise<void> => {
  for (const table of INSERT_ORDER) {
    const e = encoder(table, 300)
    for (const row of batch[table]) e.add(row)
    if (e.rows === 0) continue
    const { columns, chunks } = e.finishChunks()
    await ch.insertEncoded({ table, columns, format: e.format, body: chunks })
  }
}
