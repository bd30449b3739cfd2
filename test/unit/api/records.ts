/**
 * Canonical records for API tests, built from the real block fixtures in test/fixtures/real/blocks
 * (the `.txs.json` summaries: block header fields and, per transaction, account, lt, hash and BOC).
 * Invariant: transactions are decoded from their real BOCs; block header fields the summaries do not carry
 * (file hash, validator data) get fixed neutral values, so tests must not compare those with toncenter.
 */
import { readFileSync } from "node:fs"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { Either } from "effect"
import { decodeTransaction } from "../../../src/ton/decode.js"
import type { BlockIdExt, BlockRecord, TransactionRecord } from "../../../src/ton/record.js"

export const REAL_FIXTURES = join(dirname(fileURLToPath(import.meta.url)), "../../fixtures/real")

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
    readonly shard_hashes_in_mc_extra?: ReadonlyArray<{
      readonly workchain: number
      readonly shard: string
      readonly seqno: number
      readonly root_hash: string
      readonly file_hash: string
    }> | null
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
  JSON.parse(readFileSync(join(REAL_FIXTURES, "blocks", `${name}.txs.json`), "utf8")) as TxsJson

const b64 = (hex: string): string => Buffer.from(hex, "hex").toString("base64")

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

/** The shard tops a masterchain block summary lists, as block ids (shard hex -> signed decimal, hashes base64). */
export const shardTopsFromSummary = (s: TxsJson["block"]): BlockIdExt[] =>
  (s.shard_hashes_in_mc_extra ?? []).map((d) => ({
    workchain: d.workchain,
    shard: BigInt.asIntN(64, BigInt(`0x${d.shard}`)).toString(),
    seqno: d.seqno,
    root_hash: b64(d.root_hash),
    file_hash: b64(d.file_hash)
  }))

/** The canonical record of a summary entry, decoded from its real BOC by the TON domain's decoder. */
export const txFromSummary = (t: TxsJson["transactions"][number], block: BlockRecord): TransactionRecord => {
  const decoded = decodeTransaction(t.boc_b64, { block: block.id, mc_block_seqno: block.mc_block_seqno })
  if (Either.isLeft(decoded)) throw new Error(`fixture tx ${t.hash_b64} does not decode: ${decoded.left.message}`)
  return { ...decoded.right, trace_id: decoded.right.trace_id ?? decoded.right.hash }
}
