/**
 * Message bodies and init states -> `message_contents` rows, one per distinct cell hash. Within a batch the same
 * cell (a body seen by sender and receiver, a common empty body) is emitted once; across batches merges dedupe.
 */
import type { MessageRecord, TransactionRecord } from "../ton/record.js"

export interface MessageContentRow {
  readonly hash: string
  readonly boc: string
}

export const messageContentRows = (txs: ReadonlyArray<TransactionRecord>): Array<MessageContentRow> => {
  const byHash = new Map<string, MessageContentRow>()
  const add = (m: MessageRecord) => {
    if (!byHash.has(m.body.hash)) byHash.set(m.body.hash, { hash: m.body.hash, boc: m.body.boc })
    if (m.init_state !== null && !byHash.has(m.init_state.hash)) {
      byHash.set(m.init_state.hash, { hash: m.init_state.hash, boc: m.init_state.boc })
    }
  }
  for (const tx of txs) {
    if (tx.in_msg !== null) add(tx.in_msg)
    for (const m of tx.out_msgs) add(m)
  }
  return [...byHash.values()]
}
