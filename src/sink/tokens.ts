/**
 * Deduplication identities of the consumer's inserts. The content digest makes a retried insert of the same batch
 * the same block for ClickHouse; the generation makes it a NEW block after rows were deleted, because ClickHouse's
 * deduplication log outlives a DELETE (checked on chdb 26.7: delete, then re-insert with the same token = 0 rows).
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
