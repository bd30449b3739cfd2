// Small hand-built records for pipeline unit tests: only the fields the pipeline logic reads are meaningful.
import type { MasterchainBundle, MessageRecord, TransactionRecord, BlockRecord } from "../../../src/ton/record.js"

const h = (s: string) => Buffer.from(s.padEnd(32, ".")).toString("base64")

export const msg = (name: string, type: MessageRecord["type"] = "int"): MessageRecord => ({
  type,
  hash: h(`msg:${name}`),
  hash_norm: null,
  source: null,
  destination: null,
  value: null,
  value_extra_currencies: null,
  fwd_fee: null,
  ihr_fee: null,
  import_fee: null,
  created_lt: null,
  created_at: null,
  opcode: null,
  ihr_disabled: null,
  bounce: null,
  bounced: null,
  body: { hash: h("empty"), boc: "" },
  init_state: null
})

export const tx = (
  name: string,
  lt: number,
  inMsg: MessageRecord | null,
  outMsgs: ReadonlyArray<MessageRecord> = [],
  type: TransactionRecord["description"]["type"] = "ord"
): TransactionRecord => ({
  account: "0:" + "A".repeat(64),
  hash: h(`tx:${name}`),
  lt: String(lt),
  now: 1_700_000_000,
  mc_block_seqno: 1,
  trace_id: null,
  prev_trans_hash: h("prev"),
  prev_trans_lt: "0",
  orig_status: "active",
  end_status: "active",
  total_fees: "0",
  total_fees_extra_currencies: {},
  description: { type },
  block: { workchain: 0, shard: "-9223372036854775808", seqno: 1, root_hash: h("r"), file_hash: h("f") },
  in_msg: inMsg,
  out_msgs: outMsgs,
  account_state_hash_before: h("a"),
  account_state_hash_after: h("b"),
  boc: ""
})

export const hashOf = (name: string) => h(`tx:${name}`)

const block = (seqno: number): BlockRecord => ({
  id: { workchain: -1, shard: "-9223372036854775808", seqno, root_hash: h(`root${seqno}`), file_hash: h(`file${seqno}`) },
  mc_block_seqno: seqno,
  global_id: -239,
  version: 0,
  flags: 0,
  after_merge: false,
  after_split: false,
  before_split: false,
  want_merge: false,
  want_split: false,
  key_block: false,
  vert_seqno: 0,
  validator_list_hash_short: 0,
  gen_catchain_seqno: 0,
  min_ref_mc_seqno: 0,
  prev_key_block_seqno: 0,
  gen_utime: 1_700_000_000 + seqno,
  start_lt: "0",
  end_lt: "0",
  prev_blocks: [],
  tx_count: 0
})

export const bundle = (seqno: number, transactions: ReadonlyArray<TransactionRecord> = []): MasterchainBundle => ({
  schema_version: 1,
  network: "testnet",
  mc_seqno: seqno,
  mc_block: block(seqno),
  shard_blocks: [],
  shard_tops: [],
  transactions,
  account_states: [],
  code_hashes: {}
})
