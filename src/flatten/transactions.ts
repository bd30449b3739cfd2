/**
 * TransactionRecord -> `transactions` row. Each description field is its own column and NULL means "key absent",
 * so the description object comes back with exactly the keys it had (see src/store/assemble.ts for the reverse).
 * Messages go to their own table; the row keeps the in-message hash and the out-message count to check reassembly.
 */
import type { AccountStatus, DescriptionType, ExtraCurrencies, TransactionRecord } from "../ton/record.js"

type StatusChange = "unchanged" | "frozen" | "deleted"

export interface TransactionRow {
  readonly mc_block_seqno: number
  readonly block_workchain: number
  readonly block_shard: string
  readonly block_seqno: number
  readonly account: string
  readonly lt: string
  readonly hash: string
  readonly block_root_hash: string
  readonly block_file_hash: string
  readonly now: number
  readonly trace_id: string | null
  readonly prev_trans_hash: string
  readonly prev_trans_lt: string
  readonly orig_status: AccountStatus
  readonly end_status: AccountStatus
  readonly total_fees: string
  readonly total_fees_extra_currencies: ExtraCurrencies
  readonly account_state_hash_before: string
  readonly account_state_hash_after: string
  readonly in_msg_hash: string | null
  readonly out_msgs_count: number

  readonly descr_type: DescriptionType
  readonly aborted: boolean | null
  readonly destroyed: boolean | null
  readonly credit_first: boolean | null
  readonly is_tock: boolean | null
  readonly installed: boolean | null

  readonly storage_ph__storage_fees_collected: string | null
  readonly storage_ph__storage_fees_due: string | null
  readonly storage_ph__status_change: StatusChange | null

  readonly credit_ph__due_fees_collected: string | null
  readonly credit_ph__credit: string | null
  readonly credit_ph__credit_extra_currencies: ExtraCurrencies

  readonly compute_ph__skipped: boolean | null
  readonly compute_ph__reason: "no_state" | "bad_state" | "no_gas" | "suspended" | null
  readonly compute_ph__success: boolean | null
  readonly compute_ph__msg_state_used: boolean | null
  readonly compute_ph__account_activated: boolean | null
  readonly compute_ph__gas_fees: string | null
  readonly compute_ph__gas_used: string | null
  readonly compute_ph__gas_limit: string | null
  readonly compute_ph__gas_credit: string | null
  readonly compute_ph__mode: number | null
  readonly compute_ph__exit_code: number | null
  readonly compute_ph__exit_arg: number | null
  readonly compute_ph__vm_steps: number | null
  readonly compute_ph__vm_init_state_hash: string | null
  readonly compute_ph__vm_final_state_hash: string | null

  readonly action__success: boolean | null
  readonly action__valid: boolean | null
  readonly action__no_funds: boolean | null
  readonly action__status_change: StatusChange | null
  readonly action__total_fwd_fees: string | null
  readonly action__total_action_fees: string | null
  readonly action__result_code: number | null
  readonly action__result_arg: number | null
  readonly action__tot_actions: number | null
  readonly action__spec_actions: number | null
  readonly action__skipped_actions: number | null
  readonly action__msgs_created: number | null
  readonly action__action_list_hash: string | null
  readonly action__tot_msg_size__cells: string | null
  readonly action__tot_msg_size__bits: string | null

  readonly bounce__type: "negfunds" | "nofunds" | "ok" | null
  readonly bounce__msg_size__cells: string | null
  readonly bounce__msg_size__bits: string | null
  readonly bounce__req_fwd_fees: string | null
  readonly bounce__msg_fees: string | null
  readonly bounce__fwd_fees: string | null

  readonly split_info__cur_shard_pfx_len: number | null
  readonly split_info__acc_split_depth: number | null
  readonly split_info__this_addr: string | null
  readonly split_info__sibling_addr: string | null

  readonly boc: string
}

export const transactionRow = (tx: TransactionRecord): TransactionRow => {
  const d = tx.description
  const s = d.storage_ph
  const c = d.credit_ph
  const cp = d.compute_ph
  const vm = cp !== undefined && !cp.skipped ? cp : undefined
  const a = d.action
  const b = d.bounce
  const si = d.split_info
  return {
    mc_block_seqno: tx.mc_block_seqno,
    block_workchain: tx.block.workchain,
    block_shard: tx.block.shard,
    block_seqno: tx.block.seqno,
    account: tx.account,
    lt: tx.lt,
    hash: tx.hash,
    block_root_hash: tx.block.root_hash,
    block_file_hash: tx.block.file_hash,
    now: tx.now,
    trace_id: tx.trace_id,
    prev_trans_hash: tx.prev_trans_hash,
    prev_trans_lt: tx.prev_trans_lt,
    orig_status: tx.orig_status,
    end_status: tx.end_status,
    total_fees: tx.total_fees,
    total_fees_extra_currencies: tx.total_fees_extra_currencies,
    account_state_hash_before: tx.account_state_hash_before,
    account_state_hash_after: tx.account_state_hash_after,
    in_msg_hash: tx.in_msg?.hash ?? null,
    out_msgs_count: tx.out_msgs.length,

    descr_type: d.type,
    aborted: d.aborted ?? null,
    destroyed: d.destroyed ?? null,
    credit_first: d.credit_first ?? null,
    is_tock: d.is_tock ?? null,
    installed: d.installed ?? null,

    storage_ph__storage_fees_collected: s?.storage_fees_collected ?? null,
    storage_ph__storage_fees_due: s?.storage_fees_due ?? null,
    storage_ph__status_change: s?.status_change ?? null,

    credit_ph__due_fees_collected: c?.due_fees_collected ?? null,
    credit_ph__credit: c?.credit ?? null,
    credit_ph__credit_extra_currencies: c?.credit_extra_currencies ?? {},

    compute_ph__skipped: cp?.skipped ?? null,
    compute_ph__reason: cp !== undefined && cp.skipped ? cp.reason : null,
    compute_ph__success: vm?.success ?? null,
    compute_ph__msg_state_used: vm?.msg_state_used ?? null,
    compute_ph__account_activated: vm?.account_activated ?? null,
    compute_ph__gas_fees: vm?.gas_fees ?? null,
    compute_ph__gas_used: vm?.gas_used ?? null,
    compute_ph__gas_limit: vm?.gas_limit ?? null,
    compute_ph__gas_credit: vm?.gas_credit ?? null,
    compute_ph__mode: vm?.mode ?? null,
    compute_ph__exit_code: vm?.exit_code ?? null,
    compute_ph__exit_arg: vm?.exit_arg ?? null,
    compute_ph__vm_steps: vm?.vm_steps ?? null,
    compute_ph__vm_init_state_hash: vm?.vm_init_state_hash ?? null,
    compute_ph__vm_final_state_hash: vm?.vm_final_state_hash ?? null,

    action__success: a?.success ?? null,
    action__valid: a?.valid ?? null,
    action__no_funds: a?.no_funds ?? null,
    action__status_change: a?.status_change ?? null,
    action__total_fwd_fees: a?.total_fwd_fees ?? null,
    action__total_action_fees: a?.total_action_fees ?? null,
    action__result_code: a?.result_code ?? null,
    action__result_arg: a?.result_arg ?? null,
    action__tot_actions: a?.tot_actions ?? null,
    action__spec_actions: a?.spec_actions ?? null,
    action__skipped_actions: a?.skipped_actions ?? null,
    action__msgs_created: a?.msgs_created ?? null,
    action__action_list_hash: a?.action_list_hash ?? null,
    action__tot_msg_size__cells: a?.tot_msg_size.cells ?? null,
    action__tot_msg_size__bits: a?.tot_msg_size.bits ?? null,

    bounce__type: b?.type ?? null,
    bounce__msg_size__cells: b !== undefined && b.type !== "negfunds" ? b.msg_size.cells : null,
    bounce__msg_size__bits: b !== undefined && b.type !== "negfunds" ? b.msg_size.bits : null,
    bounce__req_fwd_fees: b?.type === "nofunds" ? b.req_fwd_fees : null,
    bounce__msg_fees: b?.type === "ok" ? b.msg_fees : null,
    bounce__fwd_fees: b?.type === "ok" ? b.fwd_fees : null,

    split_info__cur_shard_pfx_len: si?.cur_shard_pfx_len ?? null,
    split_info__acc_split_depth: si?.acc_split_depth ?? null,
    split_info__this_addr: si?.this_addr ?? null,
    split_info__sibling_addr: si?.sibling_addr ?? null,

    boc: tx.boc
  }
}
