/**
 * Pure reassembly of table rows (as flattened, or as read back from ClickHouse) into canonical records. The exact
 * inverse of src/flatten: NULL columns become absent description keys, the message index restores out_msgs order,
 * and object keys come out in the record contract's order so renderers that serialize them stay stable.
 */
import type { AccountStateRow } from "../flatten/account_states.js"
import type { BlockRow } from "../flatten/blocks.js"
import type { McShardBlockRow } from "../flatten/mc_shard_blocks.js"
import type { MessageRow } from "../flatten/messages.js"
import type { TransactionRow } from "../flatten/transactions.js"
import type {
  AccountStateRecord,
  ActionPhase,
  BlockIdExt,
  BlockRecord,
  BouncePhase,
  ComputePhase,
  CreditPhase,
  MessageContent,
  MessageRecord,
  SplitInfo,
  StoragePhase,
  TransactionRecord,
  TxDescription
} from "../ton/record.js"
import { headerExtra, headerFields } from "../ton/record.js"

/** Rows that contradict each other (a message or body missing for a stored transaction): a storage bug. */
export class StoreIntegrityError extends Error {
  override readonly name = "StoreIntegrityError"
}

const must = <A>(value: A | null, what: string): A => {
  if (value === null) throw new StoreIntegrityError(`${what} is NULL`)
  return value
}

export const assembleBlock = (r: BlockRow): BlockRecord => ({
  id: { workchain: r.workchain, shard: r.shard, seqno: r.seqno, root_hash: r.root_hash, file_hash: r.file_hash },
  mc_block_seqno: r.mc_block_seqno,
  ...headerFields(r),
  ...headerExtra({
    vert_seqno_incr: r.vert_seqno_incr ?? undefined,
    // a block read whole (rand_seed known) has a known master_ref, null for a masterchain block
    master_ref_seqno: r.rand_seed !== null ? r.master_ref_seqno : (r.master_ref_seqno ?? undefined),
    rand_seed: r.rand_seed ?? undefined,
    created_by: r.created_by ?? undefined
  }),
  prev_blocks: r.prev_blocks.map((p) => ({
    workchain: p.workchain,
    shard: p.shard,
    seqno: p.seqno,
    root_hash: p.root_hash,
    file_hash: p.file_hash
  })),
  tx_count: r.tx_count
})

export const assembleShardTop = (r: Pick<McShardBlockRow, "workchain" | "shard" | "seqno" | "root_hash" | "file_hash">): BlockIdExt => ({
  workchain: r.workchain,
  shard: r.shard,
  seqno: r.seqno,
  root_hash: r.root_hash,
  file_hash: r.file_hash
})

export const assembleAccountState = (r: AccountStateRow): AccountStateRecord => ({
  hash: r.hash,
  account: r.account,
  balance: r.balance,
  extra_currencies: r.balance === null ? null : r.extra_currencies,
  account_status: r.account_status,
  frozen_hash: r.frozen_hash,
  data_hash: r.data_hash,
  code_hash: r.code_hash
})

const content = (hash: string, contents: ReadonlyMap<string, string>, what: string): MessageContent => {
  const boc = contents.get(hash)
  if (boc === undefined) throw new StoreIntegrityError(`${what}: no message_contents row for ${hash}`)
  return { hash, boc }
}

export const assembleMessage = (r: MessageRow, contents: ReadonlyMap<string, string>): MessageRecord => {
  const what = `message ${r.hash} of tx ${r.tx_hash}`
  return {
    type: r.type,
    hash: r.hash,
    hash_norm: r.hash_norm,
    source: r.source,
    destination: r.destination,
    value: r.value,
    value_extra_currencies: r.value === null ? null : r.value_extra_currencies,
    fwd_fee: r.fwd_fee,
    ihr_fee: r.ihr_fee,
    import_fee: r.import_fee,
    created_lt: r.created_lt,
    created_at: r.created_at,
    opcode: r.opcode,
    ihr_disabled: r.ihr_disabled,
    bounce: r.bounce,
    bounced: r.bounced,
    body: content(r.body_hash, contents, what),
    init_state: r.init_state_hash === null ? null : content(r.init_state_hash, contents, `${what} init_state`)
  }
}

const storagePhase = (r: TransactionRow): StoragePhase | undefined =>
  r.storage_ph__status_change === null
    ? undefined
    : {
        storage_fees_collected: must(r.storage_ph__storage_fees_collected, "storage_ph__storage_fees_collected"),
        storage_fees_due: r.storage_ph__storage_fees_due,
        status_change: r.storage_ph__status_change
      }

const creditPhase = (r: TransactionRow): CreditPhase | undefined =>
  r.credit_ph__credit === null
    ? undefined
    : {
        due_fees_collected: r.credit_ph__due_fees_collected,
        credit: r.credit_ph__credit,
        credit_extra_currencies: r.credit_ph__credit_extra_currencies
      }

const computePhase = (r: TransactionRow): ComputePhase | undefined => {
  if (r.compute_ph__skipped === null) return undefined
  if (r.compute_ph__skipped) return { skipped: true, reason: must(r.compute_ph__reason, "compute_ph__reason") }
  return {
    skipped: false,
    success: must(r.compute_ph__success, "compute_ph__success"),
    msg_state_used: must(r.compute_ph__msg_state_used, "compute_ph__msg_state_used"),
    account_activated: must(r.compute_ph__account_activated, "compute_ph__account_activated"),
    gas_fees: must(r.compute_ph__gas_fees, "compute_ph__gas_fees"),
    gas_used: must(r.compute_ph__gas_used, "compute_ph__gas_used"),
    gas_limit: must(r.compute_ph__gas_limit, "compute_ph__gas_limit"),
    gas_credit: r.compute_ph__gas_credit,
    mode: must(r.compute_ph__mode, "compute_ph__mode"),
    exit_code: must(r.compute_ph__exit_code, "compute_ph__exit_code"),
    exit_arg: r.compute_ph__exit_arg,
    vm_steps: must(r.compute_ph__vm_steps, "compute_ph__vm_steps"),
    vm_init_state_hash: must(r.compute_ph__vm_init_state_hash, "compute_ph__vm_init_state_hash"),
    vm_final_state_hash: must(r.compute_ph__vm_final_state_hash, "compute_ph__vm_final_state_hash")
  }
}

const actionPhase = (r: TransactionRow): ActionPhase | undefined =>
  r.action__success === null
    ? undefined
    : {
        success: r.action__success,
        valid: must(r.action__valid, "action__valid"),
        no_funds: must(r.action__no_funds, "action__no_funds"),
        status_change: must(r.action__status_change, "action__status_change"),
        total_fwd_fees: r.action__total_fwd_fees,
        total_action_fees: r.action__total_action_fees,
        result_code: must(r.action__result_code, "action__result_code"),
        result_arg: r.action__result_arg,
        tot_actions: must(r.action__tot_actions, "action__tot_actions"),
        spec_actions: must(r.action__spec_actions, "action__spec_actions"),
        skipped_actions: must(r.action__skipped_actions, "action__skipped_actions"),
        msgs_created: must(r.action__msgs_created, "action__msgs_created"),
        action_list_hash: must(r.action__action_list_hash, "action__action_list_hash"),
        tot_msg_size: {
          cells: must(r.action__tot_msg_size__cells, "action__tot_msg_size__cells"),
          bits: must(r.action__tot_msg_size__bits, "action__tot_msg_size__bits")
        }
      }

const bouncePhase = (r: TransactionRow): BouncePhase | undefined => {
  if (r.bounce__type === null) return undefined
  if (r.bounce__type === "negfunds") return { type: "negfunds" }
  const msg_size = {
    cells: must(r.bounce__msg_size__cells, "bounce__msg_size__cells"),
    bits: must(r.bounce__msg_size__bits, "bounce__msg_size__bits")
  }
  if (r.bounce__type === "nofunds") {
    return { type: "nofunds", msg_size, req_fwd_fees: must(r.bounce__req_fwd_fees, "bounce__req_fwd_fees") }
  }
  return {
    type: "ok",
    msg_size,
    msg_fees: must(r.bounce__msg_fees, "bounce__msg_fees"),
    fwd_fees: must(r.bounce__fwd_fees, "bounce__fwd_fees")
  }
}

const splitInfo = (r: TransactionRow): SplitInfo | undefined =>
  r.split_info__cur_shard_pfx_len === null
    ? undefined
    : {
        cur_shard_pfx_len: r.split_info__cur_shard_pfx_len,
        acc_split_depth: must(r.split_info__acc_split_depth, "split_info__acc_split_depth"),
        this_addr: must(r.split_info__this_addr, "split_info__this_addr"),
        sibling_addr: must(r.split_info__sibling_addr, "split_info__sibling_addr")
      }

/** Description with toncenter's key order; a NULL column is a key that was absent. */
export const assembleDescription = (r: TransactionRow): TxDescription => {
  const d: { -readonly [K in keyof TxDescription]: TxDescription[K] } = { type: r.descr_type }
  if (r.aborted !== null) d.aborted = r.aborted
  if (r.destroyed !== null) d.destroyed = r.destroyed
  if (r.credit_first !== null) d.credit_first = r.credit_first
  if (r.is_tock !== null) d.is_tock = r.is_tock
  if (r.installed !== null) d.installed = r.installed
  const storage = storagePhase(r)
  if (storage !== undefined) d.storage_ph = storage
  const credit = creditPhase(r)
  if (credit !== undefined) d.credit_ph = credit
  const compute = computePhase(r)
  if (compute !== undefined) d.compute_ph = compute
  const action = actionPhase(r)
  if (action !== undefined) d.action = action
  const bounce = bouncePhase(r)
  if (bounce !== undefined) d.bounce = bounce
  const split = splitInfo(r)
  if (split !== undefined) d.split_info = split
  return d
}

/** `messages` must hold exactly this transaction's rows (any order). */
export const assembleTransaction = (
  r: TransactionRow,
  messages: ReadonlyArray<MessageRow>,
  contents: ReadonlyMap<string, string>
): TransactionRecord => {
  let inRow: MessageRow | undefined
  const outRows: Array<MessageRow | undefined> = new Array(r.out_msgs_count)
  for (const m of messages) {
    if (m.direction === "in") inRow = m
    else if (m.msg_index < r.out_msgs_count) outRows[m.msg_index] = m
    else throw new StoreIntegrityError(`tx ${r.hash}: out message index ${m.msg_index} >= ${r.out_msgs_count}`)
  }
  if ((inRow?.hash ?? null) !== r.in_msg_hash) {
    throw new StoreIntegrityError(`tx ${r.hash}: in message ${r.in_msg_hash ?? "none"} expected, ${inRow?.hash ?? "none"} stored`)
  }
  // Array.from visits every index, holes included, so a missing row cannot slip through.
  const out_msgs = Array.from(outRows, (m, i) => {
    if (m === undefined) throw new StoreIntegrityError(`tx ${r.hash}: out message ${i} missing`)
    return assembleMessage(m, contents)
  })
  return {
    account: r.account,
    hash: r.hash,
    lt: r.lt,
    now: r.now,
    mc_block_seqno: r.mc_block_seqno,
    trace_id: r.trace_id,
    prev_trans_hash: r.prev_trans_hash,
    prev_trans_lt: r.prev_trans_lt,
    orig_status: r.orig_status,
    end_status: r.end_status,
    total_fees: r.total_fees,
    total_fees_extra_currencies: r.total_fees_extra_currencies,
    description: assembleDescription(r),
    block: {
      workchain: r.block_workchain,
      shard: r.block_shard,
      seqno: r.block_seqno,
      root_hash: r.block_root_hash,
      file_hash: r.block_file_hash
    },
    in_msg: inRow === undefined ? null : assembleMessage(inRow, contents),
    out_msgs,
    account_state_hash_before: r.account_state_hash_before,
    account_state_hash_after: r.account_state_hash_after,
    boc: r.boc
  }
}

const txKey = (account: string, lt: string): string => `${account}/${lt}`

/** Transactions in the order of `txs`, each with its messages picked from `messages` by (account, lt). */
export const assembleTransactions = (
  txs: ReadonlyArray<TransactionRow>,
  messages: ReadonlyArray<MessageRow>,
  contents: ReadonlyMap<string, string>
): Array<TransactionRecord> => {
  const byTx = new Map<string, Array<MessageRow>>()
  for (const m of messages) {
    const key = txKey(m.tx_account, m.tx_lt)
    const list = byTx.get(key)
    if (list === undefined) byTx.set(key, [m])
    else list.push(m)
  }
  return txs.map((t) => assembleTransaction(t, byTx.get(txKey(t.account, t.lt)) ?? [], contents))
}

/** Every body and init-state hash the messages reference (what to fetch from message_contents). */
export const contentHashes = (messages: ReadonlyArray<MessageRow>): Array<string> => {
  const hashes = new Set<string>()
  for (const m of messages) {
    hashes.add(m.body_hash)
    if (m.init_state_hash !== null) hashes.add(m.init_state_hash)
  }
  return [...hashes]
}
