/**
 * toncenter v2 (Python ton-http-api over tonlib) shapes for getBlockTransactionsExt: `raw.transaction` with the
 * `account` field pytonlib appends, and `blocks.transactionsExt` with `@extra` inside the result.
 * Invariant: key order and value types are tonlib's JSON (int64 as strings, bytes as standard base64), keys holding
 * null are absent (FastAPI exclude_none), and `data` is the original transaction BOC, never re-serialized.
 */
import { rawLower, toV2Friendly } from "./address.js"
import type { BlockIdExt, MessageRecord, TransactionRecord } from "./record.js"
import { cellStringStrictOfBoc } from "./text.js"

export interface V2AccountAddress {
  readonly "@type": "accountAddress"
  readonly account_address: string
}

export interface V2ExtraCurrency {
  readonly "@type": "extraCurrency"
  readonly id: number
  readonly amount: string
}

export type V2MsgData =
  | { readonly "@type": "msg.dataRaw"; readonly body: string; readonly init_state: string }
  | { readonly "@type": "msg.dataText"; readonly text: string }
  | { readonly "@type": "msg.dataEncryptedText"; readonly text: string }

export interface V2Message {
  readonly "@type": "raw.message"
  readonly hash: string
  readonly source: V2AccountAddress
  readonly destination: V2AccountAddress
  readonly value: string
  readonly extra_currencies: ReadonlyArray<V2ExtraCurrency>
  readonly fwd_fee: string
  readonly ihr_fee: string
  readonly created_lt: string
  readonly body_hash: string
  readonly msg_data: V2MsgData
}

export interface V2Transaction {
  readonly "@type": "raw.transaction"
  readonly address: V2AccountAddress
  readonly utime: number
  readonly data: string
  readonly transaction_id: { readonly "@type": "internal.transactionId"; readonly lt: string; readonly hash: string }
  readonly fee: string
  readonly storage_fee: string
  readonly other_fee: string
  readonly in_msg?: V2Message
  readonly out_msgs: ReadonlyArray<V2Message>
  readonly account: string
}

export interface V2BlockIdExt {
  readonly "@type": "ton.blockIdExt"
  readonly workchain: number
  readonly shard: string
  readonly seqno: number
  readonly root_hash: string
  readonly file_hash: string
}

export interface V2BlockTransactionsExt {
  readonly "@type": "blocks.transactionsExt"
  readonly id: V2BlockIdExt
  readonly req_count: number
  readonly incomplete: boolean
  readonly transactions: ReadonlyArray<V2Transaction>
  readonly "@extra": string
}

const OP_TEXT = 0x00000000
const OP_ENCRYPTED_TEXT = 0x2167da4b

const address = (raw: string | null): V2AccountAddress => ({
  "@type": "accountAddress",
  account_address: raw === null ? "" : toV2Friendly(raw)
})

/** tonlib: a text comment (or encrypted one) when the snake string reads, raw body and state-init BOCs otherwise. */
const msgData = (m: MessageRecord): V2MsgData => {
  if (m.opcode === OP_TEXT || m.opcode === OP_ENCRYPTED_TEXT) {
    const text = cellStringStrictOfBoc(m.body.boc, 32)
    if (text !== null) {
      return { "@type": m.opcode === OP_TEXT ? "msg.dataText" : "msg.dataEncryptedText", text: text.toString("base64") }
    }
  }
  return { "@type": "msg.dataRaw", body: m.body.boc, init_state: m.init_state === null ? "" : m.init_state.boc }
}

export const renderV2Message = (m: MessageRecord): V2Message => {
  const internal = m.type === "int"
  return {
    "@type": "raw.message",
    hash: m.hash,
    source: address(m.source),
    destination: address(m.destination),
    value: internal ? m.value! : "0",
    extra_currencies: internal
      ? Object.entries(m.value_extra_currencies ?? {}).map(([id, amount]) => ({
          "@type": "extraCurrency" as const,
          id: Number(id),
          amount
        }))
      : [],
    fwd_fee: internal ? m.fwd_fee! : "0",
    // tonlib hard-codes 0 here whatever the message says.
    ihr_fee: "0",
    created_lt: m.created_lt ?? "0",
    body_hash: m.body.hash,
    msg_data: msgData(m)
  }
}

/** tonlib's fee: total fees plus the forward fees of outbound messages; storage_fee is the storage phase's. */
export const v2Fees = (tx: TransactionRecord): { fee: string; storage_fee: string; other_fee: string } => {
  let fee = BigInt(tx.total_fees)
  for (const m of tx.out_msgs) if (m.type === "int") fee += BigInt(m.fwd_fee!)
  const storage = BigInt(tx.description.storage_ph?.storage_fees_collected ?? "0")
  return { fee: fee.toString(), storage_fee: storage.toString(), other_fee: (fee - storage).toString() }
}

export const renderV2Transaction = (tx: TransactionRecord): V2Transaction => {
  const fees = v2Fees(tx)
  const head = {
    "@type": "raw.transaction" as const,
    address: address(tx.account),
    utime: tx.now,
    data: tx.boc,
    transaction_id: { "@type": "internal.transactionId" as const, lt: tx.lt, hash: tx.hash },
    fee: fees.fee,
    storage_fee: fees.storage_fee,
    other_fee: fees.other_fee
  }
  const out_msgs = tx.out_msgs.map(renderV2Message)
  const account = rawLower(tx.account)
  return tx.in_msg === null
    ? { ...head, out_msgs, account }
    : { ...head, in_msg: renderV2Message(tx.in_msg), out_msgs, account }
}

export const renderV2BlockIdExt = (id: BlockIdExt): V2BlockIdExt => ({
  "@type": "ton.blockIdExt",
  workchain: id.workchain,
  shard: id.shard,
  seqno: id.seqno,
  root_hash: id.root_hash,
  file_hash: id.file_hash
})

export const renderV2BlockTransactionsExt = (args: {
  readonly id: BlockIdExt
  readonly req_count: number
  readonly incomplete: boolean
  readonly transactions: ReadonlyArray<TransactionRecord>
  readonly extra: string
}): V2BlockTransactionsExt => ({
  "@type": "blocks.transactionsExt",
  id: renderV2BlockIdExt(args.id),
  req_count: args.req_count,
  incomplete: args.incomplete,
  transactions: args.transactions.map(renderV2Transaction),
  "@extra": args.extra
})
