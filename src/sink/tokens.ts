/**
 * Deduplication identities of the consumer's inserts. They act only where ClickHouse keeps a deduplication log: on
 * Replicated*MergeTree tables (a cluster: src/clickhouse/cluster.ts), whose window is on by default. There the
 * content digest makes a retried insert of the same batch the same block, and the generation makes it a NEW block
 * after rows were deleted, because the log outlives a DELETE (checked on chdb 26.7 with a window set: delete, then
 * re-insert with the same token = 0 rows). On plain MergeTree (the embedded engine, a single server)
 * `non_replicated_deduplication_window` stays 0, so these tokens change nothing: exactly-once rests on
 * ReplacingMergeTree row identity and the completion marker (sql/README.md, "Exactly-once by identity").
 * Invariant: (table, seqno range, content, generation) -> token is a pure function.
 */
import { createHash } from "node:crypto"
import type { MasterchainBundle } from "../ton/record.js"

/** Digest of a batch: each bundle's wire digest plus the trace ids the consumer assigned (they are part of the rows). */
export const batchDigest = (
  items: ReadonlyArray<{ readonly digest: string; readonly bundle: MasterchainBundle }>
): string => {
  const h = createHash("sha256")
  for (const item of items) {
    h.update(item.digest)
    for (const tx of item.bundle.transactions) h.update(tx.trace_id ?? "-")
  }
  return h.digest("hex").slice(0, 32)
}

export const valueDigest = (value: Buffer): string => createHash("sha256").update(value).digest("hex")

export const insertToken = (
  table: string,
  firstSeqno: number,
  lastSeqno: number,
  digest: string,
  generation: string
): string => `${table}:${firstSeqno}-${lastSeqno}:${digest}:${generation}`
