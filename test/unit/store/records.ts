/**
 * Test records for the storage layer: the six real mainnet transactions of the v3 trace fixture (converted from
 * toncenter v3 JSON to canonical records, with their hash-verified BOCs) and hand-built records that exercise every
 * description shape the tables must reproduce (skipped compute, each bounce type, split info, ext-out, big fees).
 */
import { createHash } from "node:crypto"
import { readFileSync } from "node:fs"
import { resolve } from "node:path"
import type {
  AccountStateRecord,
  BlockIdExt,
  BlockRecord,
  MasterchainBundle,
  MessageRecord,
  TransactionRecord,
  TxDescription
} from "../../../src/ton/record.js"

export const FIXTURES = resolve(import.meta.dirname, "../../fixtures/real")

/** A deterministic 44-character base64 hash for a label. */
export const h = (label: string): string => createHash("sha256").update(label).digest("base64")
/** A deterministic raw address for a label. */
export const addr = (wc: number, label: string): string =>
  `${wc}:${createHash("sha256").update(label).digest("hex").toUpperCase()}`

const MC_SHARD = "-9223372036854775808"

// ---------------------------------------------------------------------------------------------------------------
// Real transactions: toncenter v3 JSON -> TransactionRecord

type Json = any // eslint-disable-line @typescript-eslint/no-explicit-any

const signedShard = (hex: string): string => BigInt.asIntN(64, BigInt(`0x${hex}`)).toString()

const v3Message = (m: Json): MessageRecord => ({
  type: m.source === null ? "ext_in" : m.destination === null ? "ext_out" : "int",
  hash: m.hash,
  hash_norm: m.hash_norm ?? null,
  source: m.source,
  destination: m.destination,
  value: m.value,
  value_extra_currencies: m.value_extra_currencies,
  fwd_fee: m.fwd_fee,
  ihr_fee: m.ihr_fee,
  import_fee: m.import_fee,
  created_lt: m.created_lt,
  created_at: m.created_at === null ? null : Number(m.created_at),
  opcode: m.opcode === null ? null : Number.parseInt(m.opcode, 16),
  ihr_disabled: m.ihr_disabled,
  bounce: m.bounce,
  bounced: m.bounced,
  body: { hash: m.message_content.hash, boc: m.message_content.body },
  init_state: m.init_state === null ? null : { hash: m.init_state.hash, boc: m.init_state.body }
})

const v3Description = (d: Json): TxDescription => {
  const out: Json = { ...d }
  if (d.storage_ph !== undefined) out.storage_ph = { storage_fees_due: null, ...d.storage_ph }
  if (d.credit_ph !== undefined) out.credit_ph = { due_fees_collected: null, credit_extra_currencies: {}, ...d.credit_ph }
  if (d.compute_ph !== undefined && d.compute_ph.skipped === false) {
    out.compute_ph = { gas_credit: null, exit_arg: null, ...d.compute_ph }
  }
  if (d.action !== undefined) {
    out.action = { total_fwd_fees: null, total_action_fees: null, result_arg: null, ...d.action }
  }
  return out
}

const v3State = (account: string, s: Json): AccountStateRecord => ({
  hash: s.hash,
  account,
  balance: s.balance,
  extra_currencies: s.extra_currencies,
  account_status: s.account_status,
  frozen_hash: s.frozen_hash,
  data_hash: s.data_hash,
  code_hash: s.code_hash
})

export interface RealSample {
  readonly transactions: ReadonlyArray<TransactionRecord>
  readonly states: ReadonlyArray<AccountStateRecord>
  readonly blocks: ReadonlyArray<BlockIdExt>
  readonly mcSeqno: number
}

/** The six transactions of the v3 trace fixture, ordered (block, account, lt), with their account states. */
export const realSample = (): RealSample => {
  const v3 = JSON.parse(
    readFileSync(`${FIXTURES}/v3/ton-org-docs__cookbook-traces__v3_traces__mc-52372896.json`, "utf8")
  )
  const rebuilt = JSON.parse(readFileSync(`${FIXTURES}/v3/v3-transactions-with-rebuilt-bocs.json`, "utf8"))
  const bocs = new Map<string, string>(
    rebuilt.items.filter((i: Json) => i.verified).map((i: Json) => [i.tx_hash_b64, i.boc_b64])
  )
  const blocks = new Map<string, BlockIdExt>()
  const states: Array<AccountStateRecord> = []
  const txs: Array<TransactionRecord> = Object.values(v3.traces[0].transactions as Record<string, Json>).map((t) => {
    const shard = signedShard(t.block_ref.shard)
    const key = `${t.block_ref.workchain}:${shard}:${t.block_ref.seqno}`
    const block = blocks.get(key) ?? {
      workchain: t.block_ref.workchain,
      shard,
      seqno: t.block_ref.seqno,
      root_hash: h(`root ${key}`),
      file_hash: h(`file ${key}`)
    }
    blocks.set(key, block)
    const boc = bocs.get(t.hash)
    if (boc === undefined) throw new Error(`no verified BOC for ${t.hash}`)
    states.push(v3State(t.account, t.account_state_before), v3State(t.account, t.account_state_after))
    return {
      account: t.account,
      hash: t.hash,
      lt: t.lt,
      now: t.now,
      mc_block_seqno: t.mc_block_seqno,
      trace_id: t.trace_id ?? null,
      prev_trans_hash: t.prev_trans_hash,
      prev_trans_lt: t.prev_trans_lt,
      orig_status: t.orig_status,
      end_status: t.end_status,
      total_fees: t.total_fees,
      total_fees_extra_currencies: t.total_fees_extra_currencies,
      description: v3Description(t.description),
      block,
      in_msg: t.in_msg === null ? null : v3Message(t.in_msg),
      out_msgs: t.out_msgs.map(v3Message),
      account_state_hash_before: t.account_state_before.hash,
      account_state_hash_after: t.account_state_after.hash,
      boc
    }
  })
  return { transactions: sortTxs(txs), states, blocks: [...blocks.values()], mcSeqno: txs[0]!.mc_block_seqno }
}

export const sortTxs = (txs: ReadonlyArray<TransactionRecord>): Array<TransactionRecord> =>
  [...txs].sort(
    (a, b) =>
      a.block.workchain - b.block.workchain ||
      cmp(BigInt(a.block.shard), BigInt(b.block.shard)) ||
      a.block.seqno - b.block.seqno ||
      cmp(a.account, b.account) ||
      cmp(BigInt(a.lt), BigInt(b.lt))
  )

const cmp = <A extends string | bigint>(a: A, b: A): number => (a < b ? -1 : a > b ? 1 : 0)

// ---------------------------------------------------------------------------------------------------------------
// Hand-built transactions covering every description shape

const intMsg = (label: string, src: string, dst: string, lt: bigint, extra: Record<string, string> = {}): MessageRecord => ({
  type: "int",
  hash: h(`msg ${label}`),
  hash_norm: null,
  source: src,
  destination: dst,
  value: "1500000000",
  value_extra_currencies: extra,
  fwd_fee: "266669",
  ihr_fee: "0",
  import_fee: null,
  created_lt: lt.toString(),
  created_at: 1_700_000_000,
  opcode: 0x0f8a7ea5,
  ihr_disabled: true,
  bounce: true,
  bounced: false,
  body: { hash: h(`body ${label}`), boc: Buffer.from(`body bytes of ${label}`).toString("base64") },
  init_state: null
})

const extIn = (label: string, dst: string): MessageRecord => ({
  type: "ext_in",
  hash: h(`msg ${label}`),
  hash_norm: h(`norm ${label}`),
  source: null,
  destination: dst,
  value: null,
  value_extra_currencies: null,
  fwd_fee: null,
  ihr_fee: null,
  // An external message may claim any import fee: wider than 64 bits must survive.
  import_fee: (2n ** 100n + 7n).toString(),
  created_lt: null,
  created_at: null,
  opcode: null,
  ihr_disabled: null,
  bounce: null,
  bounced: null,
  body: { hash: h("empty body"), boc: "te6cckEBAQEAAgAAAEysuc0=" },
  init_state: { hash: h(`init ${label}`), boc: Buffer.from(`state init of ${label}`).toString("base64") }
})

const extOut = (label: string, src: string, lt: bigint): MessageRecord => ({
  type: "ext_out",
  hash: h(`msg ${label}`),
  hash_norm: null,
  source: src,
  destination: null,
  value: null,
  value_extra_currencies: null,
  fwd_fee: null,
  ihr_fee: null,
  import_fee: null,
  created_lt: lt.toString(),
  created_at: 1_700_000_001,
  opcode: 0x7362d09c,
  ihr_disabled: null,
  bounce: null,
  bounced: null,
  body: { hash: h(`body ${label}`), boc: Buffer.from(`log of ${label}`).toString("base64") },
  init_state: null
})

const vm = (exit: number, extra: { gas_credit?: string; exit_arg?: number } = {}) =>
  ({
    skipped: false,
    success: exit === 0,
    msg_state_used: false,
    account_activated: false,
    gas_fees: "2316800",
    gas_used: "5792",
    gas_limit: exit === 0 ? "1000000" : "0",
    gas_credit: extra.gas_credit ?? null,
    mode: 0,
    exit_code: exit,
    exit_arg: extra.exit_arg ?? null,
    vm_steps: 115,
    vm_init_state_hash: h("vm init"),
    vm_final_state_hash: h("vm final")
  }) as const

const action = (over: Partial<Record<string, unknown>> = {}) =>
  ({
    success: true,
    valid: true,
    no_funds: false,
    status_change: "unchanged",
    total_fwd_fees: "400000",
    total_action_fees: "133331",
    result_code: 0,
    result_arg: null,
    tot_actions: 1,
    spec_actions: 0,
    skipped_actions: 0,
    msgs_created: 1,
    action_list_hash: h("actions"),
    tot_msg_size: { cells: "1", bits: "705" },
    ...over
  }) as TxDescription["action"]

/** Seven transactions of one shard block, one per description shape, in (account, lt) order. */
export const syntheticTransactions = (block: BlockIdExt, mcSeqno: number, seed: string): Array<TransactionRecord> => {
  const wc = block.workchain
  const base = BigInt(mcSeqno) * 1_000_000n + 1000n
  const acc = (i: number) => addr(wc, `${seed} account ${i}`)
  const shapes: Array<{ description: TxDescription; in_msg: MessageRecord | null; out: (a: string, lt: bigint) => MessageRecord[] }> = [
    {
      description: {
        type: "tick_tock",
        aborted: false,
        destroyed: false,
        is_tock: true,
        storage_ph: { storage_fees_collected: "0", storage_fees_due: null, status_change: "unchanged" },
        compute_ph: vm(0),
        action: action({ msgs_created: 0, tot_actions: 0, tot_msg_size: { cells: "0", bits: "0" } })
      },
      in_msg: null,
      out: () => []
    },
    {
      description: {
        type: "ord",
        aborted: true,
        destroyed: false,
        credit_first: false,
        storage_ph: { storage_fees_collected: "7", storage_fees_due: null, status_change: "unchanged" },
        credit_ph: {
          due_fees_collected: "12",
          credit: "1500000000",
          credit_extra_currencies: { "239": (10n ** 30n).toString() }
        },
        compute_ph: { skipped: true, reason: "no_gas" },
        bounce: { type: "nofunds", msg_size: { cells: "0", bits: "0" }, req_fwd_fees: "266669" }
      },
      in_msg: intMsg(`${seed} bounce-nofunds in`, addr(0, "sender"), acc(1), base, { "239": (10n ** 30n).toString() }),
      out: () => []
    },
    {
      description: {
        type: "ord",
        aborted: false,
        destroyed: false,
        credit_first: true,
        storage_ph: { storage_fees_collected: "0", storage_fees_due: null, status_change: "unchanged" },
        compute_ph: vm(0, { gas_credit: "10000", exit_arg: -1 }),
        action: action({ msgs_created: 2, tot_actions: 2 })
      },
      in_msg: extIn(`${seed} ext-in`, acc(2)),
      out: (a, lt) => [intMsg(`${seed} out 0`, a, addr(0, "receiver"), lt + 1n, { "1": "5" }), extOut(`${seed} out 1`, a, lt + 2n)]
    },
    {
      description: {
        type: "ord",
        aborted: true,
        destroyed: false,
        credit_first: false,
        storage_ph: { storage_fees_collected: "3", storage_fees_due: null, status_change: "unchanged" },
        credit_ph: { due_fees_collected: null, credit: "1500000000", credit_extra_currencies: {} },
        compute_ph: vm(101),
        action: action({ success: false, valid: false, result_code: 37, result_arg: 7, total_fwd_fees: null }),
        bounce: { type: "ok", msg_size: { cells: "1", bits: "267" }, msg_fees: "200000", fwd_fees: "66669" }
      },
      in_msg: intMsg(`${seed} bounce-ok in`, addr(0, "sender"), acc(3), base + 3n),
      out: (a, lt) => [{ ...intMsg(`${seed} bounced back`, a, addr(0, "sender"), lt + 1n), bounce: false, bounced: true }]
    },
    {
      description: {
        type: "split_prepare",
        aborted: false,
        destroyed: false,
        split_info: { cur_shard_pfx_len: 2, acc_split_depth: 3, this_addr: acc(4), sibling_addr: addr(wc, "sibling") },
        storage_ph: { storage_fees_collected: "1", storage_fees_due: "2", status_change: "unchanged" },
        compute_ph: { skipped: true, reason: "no_state" },
        action: action({ msgs_created: 0 })
      },
      in_msg: null,
      out: () => []
    },
    {
      description: {
        type: "merge_install",
        aborted: false,
        destroyed: false,
        installed: true,
        split_info: { cur_shard_pfx_len: 1, acc_split_depth: 1, this_addr: acc(5), sibling_addr: addr(wc, "twin") },
        credit_ph: { due_fees_collected: null, credit: "0", credit_extra_currencies: {} },
        compute_ph: { skipped: true, reason: "bad_state" },
        bounce: { type: "negfunds" }
      },
      in_msg: null,
      out: () => []
    },
    {
      description: {
        type: "storage",
        aborted: true,
        destroyed: true,
        storage_ph: { storage_fees_collected: "1000", storage_fees_due: "99", status_change: "frozen" }
      },
      in_msg: null,
      out: () => []
    }
  ]
  return shapes.map((s, i): TransactionRecord => {
    const account = acc(i)
    const lt = base + BigInt(i) * 10n
    return {
      account,
      hash: h(`${seed} tx ${i}`),
      lt: lt.toString(),
      now: 1_700_000_000 + mcSeqno,
      mc_block_seqno: mcSeqno,
      trace_id: i % 3 === 0 ? null : h(`${seed} trace ${i}`),
      prev_trans_hash: h(`${seed} prev ${i}`),
      prev_trans_lt: (lt - 5n).toString(),
      orig_status: "active",
      end_status: i === 6 ? "frozen" : i === 1 ? "uninit" : "active",
      total_fees: (1000n + BigInt(i)).toString(),
      total_fees_extra_currencies: i === 2 ? { "7": "3" } : {},
      description: s.description,
      block,
      in_msg: s.in_msg,
      out_msgs: s.out(account, lt),
      account_state_hash_before: h(`${seed} state ${i} before`),
      account_state_hash_after: h(`${seed} state ${i} after`),
      boc: Buffer.from(`transaction ${seed} ${i}`).toString("base64")
    }
  })
}

// ---------------------------------------------------------------------------------------------------------------
// Bundles

export const blockRecord = (id: BlockIdExt, mcSeqno: number, txCount: number, prev: ReadonlyArray<BlockIdExt>): BlockRecord => ({
  id,
  mc_block_seqno: mcSeqno,
  global_id: -239,
  version: 0,
  flags: 1,
  after_merge: prev.length === 2,
  after_split: false,
  before_split: false,
  want_merge: id.workchain === -1,
  want_split: false,
  key_block: false,
  vert_seqno: 1,
  validator_list_hash_short: -2039098909,
  gen_catchain_seqno: 600633,
  min_ref_mc_seqno: mcSeqno - 9,
  prev_key_block_seqno: mcSeqno - 548,
  gen_utime: 1_700_000_000 + mcSeqno,
  start_lt: (BigInt(mcSeqno) * 1_000_000n).toString(),
  end_lt: (BigInt(mcSeqno) * 1_000_000n + 999n).toString(),
  prev_blocks: prev,
  tx_count: txCount
})

export const idExt = (workchain: number, shard: string, seqno: number): BlockIdExt => ({
  workchain,
  shard,
  seqno,
  root_hash: h(`root ${workchain}:${shard}:${seqno}`),
  file_hash: h(`file ${workchain}:${shard}:${seqno}`)
})

const statesOf = (txs: ReadonlyArray<TransactionRecord>): Array<AccountStateRecord> =>
  txs.flatMap((t, i): Array<AccountStateRecord> => [
    // The state after each transaction is known; the one before only by hash, as toncenter stores them.
    {
      hash: t.account_state_hash_after,
      account: t.account,
      balance: (5_000_000_000n + BigInt(i)).toString(),
      extra_currencies: i % 2 === 0 ? ({} as Record<string, string>) : { "239": "17" },
      account_status: t.end_status,
      frozen_hash: t.end_status === "frozen" ? h(`frozen ${t.hash}`) : null,
      data_hash: h(`data ${t.account}`),
      code_hash: i % 4 === 1 ? null : h(`code ${t.account}`)
    },
    {
      hash: t.account_state_hash_before,
      account: t.account,
      balance: null,
      extra_currencies: null,
      account_status: null,
      frozen_hash: null,
      data_hash: null,
      code_hash: null
    }
  ])

/**
 * A masterchain block committing two new blocks of shard 0:4000.. (the second after a merge of its two halves),
 * one block of shard 0:C000.., and referencing an unchanged top of a third shard. Seven hand-built transactions
 * per block, including the masterchain block itself.
 */
export const syntheticBundle = (mcSeqno: number): MasterchainBundle => {
  const mcId = idExt(-1, MC_SHARD, mcSeqno)
  const s1a = idExt(0, "4611686018427387904", mcSeqno * 2)
  const s1b = idExt(0, "4611686018427387904", mcSeqno * 2 + 1)
  const s2 = idExt(0, "-4611686018427387904", mcSeqno * 2)
  const unchangedTop = idExt(0, "-6917529027641081856", mcSeqno * 2 - 7)
  const txs = [mcId, s1a, s1b, s2].flatMap((b) => syntheticTransactions(b, mcSeqno, `${mcSeqno} ${b.shard} ${b.seqno}`))
  const count = (id: BlockIdExt) => txs.filter((t) => t.block.seqno === id.seqno && t.block.shard === id.shard).length
  const shards = [
    blockRecord(s2, mcSeqno, count(s2), [idExt(0, "-4611686018427387904", mcSeqno * 2 - 1)]),
    blockRecord(s1a, mcSeqno, count(s1a), [idExt(0, "2305843009213693952", 1), idExt(0, "6917529027641081856", 2)]),
    blockRecord(s1b, mcSeqno, count(s1b), [s1a])
  ]
  return {
    schema_version: 1,
    network: "mainnet",
    mc_seqno: mcSeqno,
    mc_block: blockRecord(mcId, mcSeqno, count(mcId), [idExt(-1, MC_SHARD, mcSeqno - 1)]),
    shard_blocks: shards,
    shard_tops: [s1b, unchangedTop, s2],
    transactions: sortTxs(txs),
    account_states: statesOf(txs),
    code_hashes: Object.fromEntries(txs.slice(0, 6).map((t, i) => [t.account, i === 2 ? null : h(`code ${t.account} @${mcSeqno}`)]))
  }
}

/** A bundle around the real sample: its masterchain seqno, its blocks, its transactions and states. */
export const realBundle = (): MasterchainBundle => {
  const s = realSample()
  const mcId = idExt(-1, MC_SHARD, s.mcSeqno)
  const shardBlocks = s.blocks
    .filter((b) => b.workchain !== -1)
    .map((b) => blockRecord(b, s.mcSeqno, s.transactions.filter((t) => t.block.seqno === b.seqno).length, [idExt(b.workchain, b.shard, b.seqno - 1)]))
  return {
    schema_version: 1,
    network: "mainnet",
    mc_seqno: s.mcSeqno,
    mc_block: blockRecord(mcId, s.mcSeqno, 0, [idExt(-1, MC_SHARD, s.mcSeqno - 1)]),
    shard_blocks: shardBlocks,
    shard_tops: shardBlocks.map((b) => b.id),
    transactions: s.transactions,
    account_states: s.states,
    code_hashes: {}
  }
}
