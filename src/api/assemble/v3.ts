/**
 * Pure request and response logic of toncenter v3 (ton-index-go) for the masterchain-block endpoints.
 * Invariants (reference §2.2-2.5): limit defaults to 100, is raised to 1 when below and refused above the
 * maximum; offset is floored at 0; sort is asc|a|desc|d in any case, default desc; Block objects keep
 * ton-index-go's field order, 64-bit values as strings and the shard as upper-case hex.
 */
import { invalid } from "../errors.js"
import type { SortOrder } from "../../store/TxStore.js"
import type { BlockRecord, TransactionRecord } from "../../ton/record.js"
import {
  INT32_MAX,
  INT64_MAX,
  INT64_MIN,
  optionalInt,
  requiredInt,
  single,
  type QueryValue
} from "./params.js"
import { shardHex } from "../../ton/v3.js"

export interface Paging {
  readonly limit: number
  readonly offset: number
  readonly sort: SortOrder
}

export interface PagingRules {
  readonly defaultLimit: number
  readonly maxLimit: number
}

export const V3_PAGING: PagingRules = { defaultLimit: 100, maxLimit: 1000 }
/** Our bound on offset: ton-index-go takes any int, but no masterchain block holds anywhere near this many rows. */
export const MAX_OFFSET = 1_000_000

export const parseSort = (raw: QueryValue): SortOrder => {
  const text = single("sort", raw)
  if (text === undefined) return "desc"
  switch (text.toLowerCase()) {
    case "asc":
    case "a":
      return "asc"
    case "desc":
    case "d":
      return "desc"
    default:
      throw invalid("wrong value for sort parameter")
  }
}

export const parsePaging = (q: Readonly<Record<string, QueryValue>>, rules: PagingRules = V3_PAGING): Paging => {
  const rawLimit = optionalInt("limit", q.limit, INT64_MIN, INT64_MAX)
  const limit = rawLimit === undefined ? rules.defaultLimit : Math.max(1, rawLimit)
  if (limit > rules.maxLimit) throw invalid(`limit is not allowed: ${limit} > ${rules.maxLimit}`)
  const offset = Math.max(0, optionalInt("offset", q.offset, INT64_MIN, INT64_MAX) ?? 0)
  if (offset > MAX_OFFSET) throw invalid(`offset is not allowed: ${offset} > ${MAX_OFFSET}`)
  return { limit, offset, sort: parseSort(q.sort) }
}

export const parseMcSeqno = (q: Readonly<Record<string, QueryValue>>): number =>
  requiredInt("seqno", q.seqno, 0n, INT32_MAX)

/** Whether the client asked to skip the address book (header X-No-Address-Book or query x_no_address_book). */
export const noAddressBook = (header: unknown, query: QueryValue): boolean => {
  const v = typeof header === "string" ? header : typeof query === "string" ? query : undefined
  return v !== undefined && v !== "" && v.toLowerCase() !== "false" && v !== "0"
}

/** Raw addresses the address book covers: each tx's account, in_msg source and out_msg destinations. */
export const addressBookAddresses = (txs: ReadonlyArray<TransactionRecord>): string[] => {
  const seen = new Set<string>()
  for (const tx of txs) {
    seen.add(tx.account)
    if (tx.in_msg?.source) seen.add(tx.in_msg.source)
    for (const m of tx.out_msgs) if (m.destination) seen.add(m.destination)
  }
  return [...seen]
}

/** Account-state hashes the v3 transactions reference (before and after each transaction). */
export const stateHashes = (txs: ReadonlyArray<TransactionRecord>): string[] => {
  const seen = new Set<string>()
  for (const tx of txs) {
    seen.add(tx.account_state_hash_before)
    seen.add(tx.account_state_hash_after)
  }
  return [...seen]
}

/** Header fields ton-index-go serves that the canonical BlockRecord may not carry (rendered null when absent). */
interface OptionalBlockFields {
  readonly vert_seqno_incr?: boolean
  readonly master_ref_seqno?: number | null
  readonly rand_seed?: string
  readonly created_by?: string
}

const MC_SHARD_HEX = "8000000000000000"

/** A v3 `Block` object (ton-index-go models.go Block), in its field order. */
export const renderV3Block = (b: BlockRecord & OptionalBlockFields) => ({
  workchain: b.id.workchain,
  shard: shardHex(b.id.shard),
  seqno: b.id.seqno,
  root_hash: b.id.root_hash,
  file_hash: b.id.file_hash,
  global_id: b.global_id,
  version: b.version,
  after_merge: b.after_merge,
  before_split: b.before_split,
  after_split: b.after_split,
  want_merge: b.want_merge,
  want_split: b.want_split,
  key_block: b.key_block,
  vert_seqno_incr: b.vert_seqno_incr ?? null,
  flags: b.flags,
  gen_utime: String(b.gen_utime),
  start_lt: b.start_lt,
  end_lt: b.end_lt,
  // ton-index-go's column is int32: a hash read as unsigned must print as the same 32 bits, signed
  validator_list_hash_short: b.validator_list_hash_short | 0,
  gen_catchain_seqno: b.gen_catchain_seqno,
  min_ref_mc_seqno: b.min_ref_mc_seqno,
  prev_key_block_seqno: b.prev_key_block_seqno,
  vert_seqno: b.vert_seqno,
  master_ref_seqno: b.master_ref_seqno ?? null,
  rand_seed: b.rand_seed ?? null,
  created_by: b.created_by ?? null,
  tx_count: b.tx_count,
  masterchain_block_ref: { workchain: -1, shard: MC_SHARD_HEX, seqno: b.mc_block_seqno },
  prev_blocks: b.prev_blocks.map((p) => ({ workchain: p.workchain, shard: shardHex(p.shard), seqno: p.seqno }))
})

const blockKey = (b: BlockRecord): string => `${b.id.workchain}:${BigInt.asUintN(64, BigInt(b.id.shard))}:${b.id.seqno}`

/** Blocks committed by a masterchain block (itself included), unique, ordered (workchain, unsigned shard, seqno). */
export const blocksOfMc = (mc: BlockRecord, shards: ReadonlyArray<BlockRecord>): BlockRecord[] => {
  const byKey = new Map<string, BlockRecord>()
  for (const b of [mc, ...shards]) byKey.set(blockKey(b), b)
  return [...byKey.values()].sort(
    (a, b) =>
      a.id.workchain - b.id.workchain ||
      cmpBig(BigInt.asUintN(64, BigInt(a.id.shard)), BigInt.asUintN(64, BigInt(b.id.shard))) ||
      a.id.seqno - b.id.seqno
  )
}

const cmpBig = (a: bigint, b: bigint): number => (a < b ? -1 : a > b ? 1 : 0)
