/**
 * Fills the analytics tables from the base tables for a range of masterchain seqnos: for history stored before the
 * analytics migrations existed (materialized views only see later inserts), or to repair a range. Each range is one
 * new insert attempt per block (its own attempt id), built from deduplicated rows of completed blocks, so it never
 * double counts: readers keep one attempt per block.
 * Invariant: the SELECTs compute exactly what the views in sql/0050-0052 do.
 */
import type { ClickHouseClient } from "@clickhouse/client"
import { randomUUID } from "node:crypto"

export interface BackfillOptions {
  readonly fromSeqno: number
  readonly toSeqno: number
  /** Masterchain seqnos per statement (bounds memory). Default 100,000. */
  readonly step?: number
}

const RANGE = "mc_block_seqno BETWEEN {lo:UInt32} AND {hi:UInt32}"
const DONE =
  "mc_block_seqno IN (SELECT mc_seqno FROM mc_blocks_done WHERE mc_seqno BETWEEN {lo:UInt32} AND {hi:UInt32})"

const STATEMENTS: ReadonlyArray<string> = [
  `INSERT INTO analytics_tx_mc
   SELECT t.mc_block_seqno AS mc_seqno, {id:String} AS insert_id, toStartOfHour(toDateTime(t.now, 'UTC')) AS hour,
          max(now64(6, 'UTC')) AS inserted_at, count() AS transactions,
          countIf(NOT ifNull(t.aborted, false)) AS successful, countIf(ifNull(t.aborted, false)) AS aborted,
          sum(toUInt128(t.total_fees)) AS total_fees, uniqState(t.account) AS accounts
   FROM transactions AS t FINAL WHERE ${RANGE} AND ${DONE}
   GROUP BY mc_seqno, insert_id, hour`,
  `INSERT INTO analytics_msg_mc
   SELECT m.mc_block_seqno AS mc_seqno, {id:String} AS insert_id, toStartOfHour(toDateTime(m.tx_now, 'UTC')) AS hour,
          m.direction AS direction, m.type AS type, ifNull(toInt64(m.opcode), -1) AS opcode,
          max(now64(6, 'UTC')) AS inserted_at, count() AS messages, countIf(ifNull(m.bounce, false)) AS bounceable,
          countIf(ifNull(m.bounced, false)) AS bounced, sum(ifNull(m.value, toUInt128(0))) AS value,
          sum(ifNull(m.fwd_fee, toUInt128(0))) AS fwd_fees
   FROM messages AS m FINAL WHERE ${RANGE} AND ${DONE}
   GROUP BY mc_seqno, insert_id, hour, direction, type, opcode`,
  `INSERT INTO analytics_account_day
   SELECT toDate(toDateTime(t.now, 'UTC')) AS day, t.account AS account, t.mc_block_seqno AS mc_seqno,
          {id:String} AS insert_id, count() AS transactions, countIf(ifNull(t.aborted, false)) AS aborted,
          sum(toUInt128(t.total_fees)) AS total_fees, min(t.now) AS first_now, max(t.now) AS last_now,
          min(t.lt) AS first_lt, max(t.lt) AS last_lt
   FROM transactions AS t FINAL WHERE ${RANGE} AND ${DONE}
   GROUP BY day, account, mc_seqno, insert_id`
]

/**
 * Runs the backfill range by range; returns the number of statements run. One attempt id per range is shared by the
 * transaction and account rows, because readers pick the account rows' attempt in analytics_tx_mc.
 */
export const backfillAnalytics = async (client: ClickHouseClient, options: BackfillOptions): Promise<number> => {
  const step = options.step ?? 100_000
  let statements = 0
  for (let lo = options.fromSeqno; lo <= options.toSeqno; lo += step) {
    const hi = Math.min(options.toSeqno, lo + step - 1)
    const id = `backfill-${randomUUID()}`
    for (const query of STATEMENTS) {
      await client.command({ query, query_params: { lo, hi, id } })
      statements++
    }
  }
  return statements
}
