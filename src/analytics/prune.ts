/**
 * Removes superseded insert attempts from the analytics tables for completed masterchain blocks: everything but the
 * attempt readers pick (most rows, then latest). Readers ignore those rows anyway; this only gives the disk back.
 * Invariant: a block without a completion marker is never touched (its attempts may still be in flight), and the
 * kept attempt is chosen by the same rule as the views, so every view answers the same before and after.
 */
import type { ClickHouseClient } from "@clickhouse/client"

export interface PruneOptions {
  readonly fromSeqno: number
  readonly toSeqno: number
}

const chosen = (table: string, count: string) => `
  SELECT mc_seqno, argMax(insert_id, (n, at))
  FROM (SELECT mc_seqno, insert_id, sum(${count}) AS n, max(inserted_at) AS at FROM ${table}
        WHERE mc_seqno BETWEEN {lo:UInt32} AND {hi:UInt32} GROUP BY mc_seqno, insert_id)
  GROUP BY mc_seqno`

const DONE = "mc_seqno IN (SELECT mc_seqno FROM mc_blocks_done WHERE mc_seqno BETWEEN {lo:UInt32} AND {hi:UInt32})"

/** Account rows go first: their kept attempt is looked up in analytics_tx_mc, which must still hold every attempt. */
const STATEMENTS: ReadonlyArray<string> = [
  `DELETE FROM analytics_account_day WHERE mc_seqno BETWEEN {lo:UInt32} AND {hi:UInt32} AND ${DONE}
     AND (mc_seqno, insert_id) NOT IN (${chosen("analytics_tx_mc", "transactions")})`,
  `DELETE FROM analytics_tx_mc WHERE mc_seqno BETWEEN {lo:UInt32} AND {hi:UInt32} AND ${DONE}
     AND (mc_seqno, insert_id) NOT IN (${chosen("analytics_tx_mc", "transactions")})`,
  `DELETE FROM analytics_msg_mc WHERE mc_seqno BETWEEN {lo:UInt32} AND {hi:UInt32} AND ${DONE}
     AND (mc_seqno, insert_id) NOT IN (${chosen("analytics_msg_mc", "messages")})`
]

export const pruneAnalyticsAttempts = async (client: ClickHouseClient, options: PruneOptions): Promise<void> => {
  for (const query of STATEMENTS) {
    await client.command({
      query,
      query_params: { lo: options.fromSeqno, hi: options.toSeqno },
      clickhouse_settings: { lightweight_deletes_sync: "2" }
    })
  }
}
