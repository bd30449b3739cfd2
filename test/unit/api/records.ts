/**
 * Canonical records for API tests, built from the real block fixtures in ../shared/fixtures/blocks
 * (the `.txs.json` summaries: block header fields and, per transaction, account, lt, hash and BOC).
 * Invariant: identities and orders (account, lt, hash, block id) are the real ones; fields the summaries
 * do not carry get fixed neutral values, so only tests about identity and paging may rely on these.
 */
import { readFileSync } from "node:fs"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import type { BlockIdExt, BlockRecord, TransactionRecord } from "../../../src/ton/record.js"

export const SHARED_FIXTURES = join(dirname(fileURLToPath(import.meta.url)), "../../../../shared/fixtures")

interface TxsJson {
  readonly block: {
    readonly global_id: number
    readonly workchain: number
    readonly shard_signed_decimal: string
    readonly seqno: number
    readonly root_hash_b64: string
    readonly gen_utime: number
    readonly start_lt: string
    readonly end_lt: string
    readonly key_block: boolean
    readonly after_merge: boolean
    readonly after_split: boolean
    readonly before_split: boolean
    readonly master_ref: { readonly seq_no: number } | null
    readonly prev: ReadonlyArray<{ readonly seq_no: number; readonly root_hash: string; readonly file_hash: string }>
    readonly tx_count: number
  }
  readonly transactions: ReadonlyArray<{
    readonly account: string
    readonly lt: string
    readonly hash_b64: string
    readonly now: number
    readonly boc_b64: string
  }>
}

export const readTxsJson = (name: string): TxsJson =>
  JSON.parse(readFileSync(join(SHARED_FIXTURES, "blocks", `${name}.txs.json`), "utf8")) as TxsJson

const b64 = (hex: string): string => Buffer.from(hex, "hex").toString("base64")
const ZERO = "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="

export const blockFromSummary = (s: TxsJson["block"], mcSeqno: number): BlockRecord => {
  const id: BlockIdExt = {
    workchain: s.workchain,
    shard: s.shard_signed_decimal,
    seqno: s.seqno,
    root_hash: s.root_hash_b64,
    // the stored block files are not the original files, so the real file hash is unknown here
    file_hash: b64("00".repeat(31) + "01")
  }
  return {
    id,
    mc_block_seqno: mcSeqno,
    global_id: s.global_id,
    version: 0,
    flags: 1,
    after_merge: s.after_merge,
    after_split: s.after_split,
    before_split: s.before_split,
    want_merge: false,
    want_split: false,
    key_block: s.key_block,
    vert_seqno: 1,
    validator_list_hash_short: 0,
    gen_catchain_seqno: 0,
    min_ref_mc_seqno: s.master_ref?.seq_no ?? mcSeqno,
    prev_key_block_seqno: 0,
    gen_utime: s.gen_utime,
    start_lt: s.start_lt,
    end_lt: s.end_lt,
    prev_blocks: s.prev.map((p) => ({
      workchain: s.workchain,
      shard: s.shard_signed_decimal,
      seqno: p.seq_no,
      root_hash: b64(p.root_hash),
      file_hash: b64(p.file_hash)
    })),
    tx_count: s.tx_count
  }
}

/** A transaction record carrying the real identity fields of a summary entry and neutral values elsewhere. */
export const txFromSummary = (t: TxsJson["transactions"][number], block: BlockRecord): TransactionRecord => ({
  account: t.account.toUpperCase().replace(/^(-?\d+):/, "$1:"),
  hash: t.hash_b64,
  lt: t.lt,
  now: t.now,
  mc_block_seqno: block.mc_block_seqno,
  trace_id: t.hash_b64,
  prev_trans_hash: ZERO,
  prev_trans_lt: "0",
  orig_status: "active",
  end_status: "active",
  total_fees: "0",
  total_fees_extra_currencies: {},
  description: { type: "ord" },
  block: block.id,
  in_msg: null,
  out_msgs: [],
  account_state_hash_before: ZERO,
  account_state_hash_after: ZERO,
  boc: t.boc_b64
})
