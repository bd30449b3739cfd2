/**
 * Message bodies and init states -> `message_contents` rows, one per distinct cell hash. Within a batch the same
 * cell (a body seen by sender and receiver, a common empty body) is emitted once; across batches merges dedupe.
 * A body row carries its decoding (src/ton/bodies) as the JSON text the API serves; an init state's is NULL, as
 * toncenter decodes message bodies only. A cell used both ways is a body row first.
 */
import type { MessageRecord, TransactionRecord } from "../ton/record.js"
import { decodedBodyText } from "../ton/v3Text.js"

export interface MessageContentRow {
  readonly hash: string
  readonly boc: string
  readonly decoded: string | null
}

// The same text the page rows' v3 JSON holds for the body (its decoding rendered once per body hash and thread).
const decodedText = (hash: string, boc: string): string | null => {
  const text = decodedBodyText(hash, boc)
  return text === "null" ? null : text
}

export const messageContentRows = (txs: ReadonlyArray<TransactionRecord>): Array<MessageContentRow> => {
  const byHash = new Map<string, MessageContentRow>()
  const isInitOnly = new Set<string>()
  const add = (m: MessageRecord) => {
    const body = byHash.get(m.body.hash)
    if (body === undefined || isInitOnly.has(m.body.hash)) {
      isInitOnly.delete(m.body.hash)
      byHash.set(m.body.hash, { hash: m.body.hash, boc: m.body.boc, decoded: decodedText(m.body.hash, m.body.boc) })
    }
    if (m.init_state !== null && !byHash.has(m.init_state.hash)) {
      isInitOnly.add(m.init_state.hash)
      byHash.set(m.init_state.hash, { hash: m.init_state.hash, boc: m.init_state.boc, decoded: null })
    }
  }
  for (const tx of txs) {
    if (tx.in_msg !== null) add(tx.in_msg)
    for (const m of tx.out_msgs) add(m)
  }
  return [...byHash.values()]
}
