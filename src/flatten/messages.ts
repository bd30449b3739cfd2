/**
 * TransactionRecord -> `messages` rows: its in-message (msg_index 0) and each out-message at its out_msgs index, so
 * the out_msgs order is rebuilt from the key. Bodies and init states are kept by hash only (message_contents).
 * value_extra_currencies is stored as a Map, which cannot be NULL: it is null exactly when `value` is null.
 * `decoded_opcode` is the opcode's name in the body-decoding scheme (src/ton/bodies), as the v3 API serves it.
 */
import { opcodeName } from "../ton/bodies/decode.js"
import type { ExtraCurrencies, MessageRecord, MessageType, TransactionRecord } from "../ton/record.js"

export interface MessageRow {
  readonly mc_block_seqno: number
  readonly tx_account: string
  readonly tx_lt: string
  readonly direction: "in" | "out"
  readonly msg_index: number
  readonly tx_hash: string
  readonly tx_now: number
  readonly block_workchain: number
  readonly block_shard: string
  readonly block_seqno: number
  readonly trace_id: string | null
  readonly type: MessageType
  readonly hash: string
  readonly hash_norm: string | null
  readonly source: string | null
  readonly destination: string | null
  readonly value: string | null
  readonly value_extra_currencies: ExtraCurrencies
  readonly fwd_fee: string | null
  readonly ihr_fee: string | null
  readonly import_fee: string | null
  readonly created_lt: string | null
  readonly created_at: number | null
  readonly opcode: number | null
  readonly decoded_opcode: string | null
  readonly ihr_disabled: boolean | null
  readonly bounce: boolean | null
  readonly bounced: boolean | null
  readonly body_hash: string
  readonly init_state_hash: string | null
}

/** Thrown for a record that breaks a rule the table layout relies on: a bug upstream, never bad chain data. */
export class UnstorableRecordError extends Error {
  override readonly name = "UnstorableRecordError"
}

const messageRow = (tx: TransactionRecord, m: MessageRecord, direction: "in" | "out", index: number): MessageRow => {
  if ((m.value === null) !== (m.value_extra_currencies === null)) {
    throw new UnstorableRecordError(
      `message ${m.hash} of tx ${tx.hash}: value and value_extra_currencies must be null together`
    )
  }
  return {
    mc_block_seqno: tx.mc_block_seqno,
    tx_account: tx.account,
    tx_lt: tx.lt,
    direction,
    msg_index: index,
    tx_hash: tx.hash,
    tx_now: tx.now,
    block_workchain: tx.block.workchain,
    block_shard: tx.block.shard,
    block_seqno: tx.block.seqno,
    trace_id: tx.trace_id,
    type: m.type,
    hash: m.hash,
    hash_norm: m.hash_norm,
    source: m.source,
    destination: m.destination,
    value: m.value,
    value_extra_currencies: m.value_extra_currencies ?? {},
    fwd_fee: m.fwd_fee,
    ihr_fee: m.ihr_fee,
    import_fee: m.import_fee,
    created_lt: m.created_lt,
    created_at: m.created_at,
    opcode: m.opcode,
    decoded_opcode: opcodeName(m.opcode),
    ihr_disabled: m.ihr_disabled,
    bounce: m.bounce,
    bounced: m.bounced,
    body_hash: m.body.hash,
    init_state_hash: m.init_state?.hash ?? null
  }
}

export const messageRows = (tx: TransactionRecord): Array<MessageRow> => {
  const rows: Array<MessageRow> = []
  if (tx.in_msg !== null) rows.push(messageRow(tx, tx.in_msg, "in", 0))
  tx.out_msgs.forEach((m, i) => rows.push(messageRow(tx, m, "out", i)))
  return rows
}
