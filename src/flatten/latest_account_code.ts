/**
 * The bundle's code-hash enrichment -> `latest_account_code` rows, stamped with the masterchain seqno so the newest
 * report per account wins (ReplacingMergeTree version) and rows of an unfinished block can be found and removed.
 */
import type { MasterchainBundle } from "../ton/record.js"

export interface LatestAccountCodeRow {
  readonly account: string
  readonly mc_seqno: number
  readonly code_hash: string | null
}

export const latestAccountCodeRows = (b: MasterchainBundle): Array<LatestAccountCodeRow> =>
  Object.entries(b.code_hashes).map(([account, code_hash]) => ({ account, mc_seqno: b.mc_seqno, code_hash }))
