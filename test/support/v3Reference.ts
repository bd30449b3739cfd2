// The v3 Transaction and Message renderers as they were written first (objects assembled by spreading), kept as the
// reference the faster renderers in src/ton/v3.ts are compared with (test/unit/ton/v3Differential.test.ts): the
// same keys in the same order, so the same JSON.
import { Cell } from "@ton/core"
import { decodeMessageBody, opcodeName } from "../../src/ton/bodies/decode.js"
import type { AccountStateRecord, MessageRecord, TransactionRecord } from "../../src/ton/record.js"
import { goString, loadSnakeLenient } from "../../src/ton/text.js"
import {
  opcodeHex,
  renderV3AccountState,
  renderV3Description,
  shardHex,
  type V3DecodedContent,
  type V3Message,
  type V3Shape,
  type V3Transaction
} from "../../src/ton/v3.js"

const decodedComment = (m: MessageRecord): V3DecodedContent | null => {
  if (m.opcode !== 0) return null
  const bytes = loadSnakeLenient(Cell.fromBase64(m.body.boc), 32)
  return { type: "text_comment", comment: bytes === null ? "" : goString(bytes) }
}

const byCreatedLt = (a: MessageRecord, b: MessageRecord): number => {
  const x = BigInt(a.created_lt ?? "0")
  const y = BigInt(b.created_lt ?? "0")
  return x < y ? -1 : x > y ? 1 : 0
}

export const referenceV3Message = (m: MessageRecord, shape: V3Shape = "current"): V3Message => {
  const current = shape === "current"
  const head = {
    hash: m.hash,
    source: m.source,
    destination: m.destination,
    value: m.value,
    value_extra_currencies: m.value_extra_currencies,
    fwd_fee: m.fwd_fee,
    // Since global version 12 that slot holds extra_flags; the indexer reads it as such and reports ihr_fee 0.
    ihr_fee: m.ihr_fee === null ? null : "0",
    ...(current ? { extra_flags: m.ihr_fee } : {}),
    created_lt: m.created_lt,
    created_at: m.created_at === null ? null : String(m.created_at),
    opcode: opcodeHex(m.opcode),
    ...(current ? { decoded_opcode: opcodeName(m.opcode) } : {})
  }
  const decoded = current ? decodeMessageBody(m.body.hash, m.body.boc) : decodedComment(m)
  const base: V3Message = {
    ...head,
    ihr_disabled: m.ihr_disabled,
    bounce: m.bounce,
    bounced: m.bounced,
    import_fee: m.import_fee,
    message_content: { hash: m.body.hash, body: m.body.boc, decoded },
    init_state: m.init_state === null ? null : { hash: m.init_state.hash, body: m.init_state.boc, decoded: null }
  }
  return m.hash_norm === null ? base : { ...base, hash_norm: m.hash_norm }
}

export const referenceV3Transaction = (
  tx: TransactionRecord,
  states: ReadonlyMap<string, AccountStateRecord>,
  shape: V3Shape = "current"
): V3Transaction => {
  const message = (m: MessageRecord): V3Message => referenceV3Message(m, shape)
  const head = {
    account: tx.account,
    hash: tx.hash,
    lt: tx.lt,
    now: tx.now,
    mc_block_seqno: tx.mc_block_seqno
  }
  const tail = {
    prev_trans_hash: tx.prev_trans_hash,
    prev_trans_lt: tx.prev_trans_lt,
    orig_status: tx.orig_status,
    end_status: tx.end_status,
    total_fees: tx.total_fees,
    total_fees_extra_currencies: tx.total_fees_extra_currencies,
    description: renderV3Description(tx.description),
    block_ref: { workchain: tx.block.workchain, shard: shardHex(tx.block.shard), seqno: tx.block.seqno },
    in_msg: tx.in_msg === null ? null : message(tx.in_msg),
    out_msgs: [...tx.out_msgs].sort(byCreatedLt).map(message),
    account_state_before: renderV3AccountState(tx.account_state_hash_before, states),
    account_state_after: renderV3AccountState(tx.account_state_hash_after, states),
    emulated: false as const,
    // The store holds only blocks committed by a masterchain block it has read: all of them final.
    ...(shape === "current" ? { finality: "finalized" as const } : {})
  }
  return tx.trace_id === null ? { ...head, ...tail } : { ...head, trace_id: tx.trace_id, ...tail }
}

