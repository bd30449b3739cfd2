/**
 * effect Schemas of the toncenter v2 (and v3 block and account-state) responses the source reads, checked on every body.
 * Invariant: a body that lacks a field the source depends on is rejected here as malformed (and retried), never
 * turned into a silently wrong record downstream; fields the source does not use are ignored.
 */
import { Schema } from "effect"

/** toncenter prints int64 as strings; some proxies send numbers. Both decode to the decimal string. */
const Int64 = Schema.Union(Schema.String, Schema.Number).pipe(
  Schema.filter((v) => /^-?\d+$/.test(String(v)), { message: () => "expected a decimal integer" })
)

export const int64ToString = (v: string | number): string => String(v)

export const BlockIdExtJson = Schema.Struct({
  workchain: Schema.Number,
  shard: Int64,
  seqno: Schema.Number,
  root_hash: Schema.String,
  file_hash: Schema.String
})
export type BlockIdExtJson = typeof BlockIdExtJson.Type

export const Envelope = Schema.Struct({
  ok: Schema.Boolean,
  result: Schema.optional(Schema.Unknown),
  error: Schema.optional(Schema.String),
  code: Schema.optional(Schema.Number)
})

export const MasterchainInfoJson = Schema.Struct({ last: BlockIdExtJson })

export const ShardsJson = Schema.Struct({ shards: Schema.Array(BlockIdExtJson) })

const optionalNumber = Schema.optionalWith(Schema.Number, { default: () => 0 })
const optionalBoolean = Schema.optionalWith(Schema.Boolean, { default: () => false })

export const BlockHeaderJson = Schema.Struct({
  id: BlockIdExtJson,
  global_id: optionalNumber,
  version: optionalNumber,
  flags: optionalNumber,
  after_merge: optionalBoolean,
  after_split: optionalBoolean,
  before_split: optionalBoolean,
  want_merge: optionalBoolean,
  want_split: optionalBoolean,
  validator_list_hash_short: optionalNumber,
  catchain_seqno: optionalNumber,
  min_ref_mc_seqno: optionalNumber,
  is_key_block: optionalBoolean,
  prev_key_block_seqno: optionalNumber,
  start_lt: Int64,
  end_lt: Int64,
  gen_utime: Schema.Number,
  vert_seqno: optionalNumber,
  prev_blocks: Schema.Array(BlockIdExtJson)
})
export type BlockHeaderJson = typeof BlockHeaderJson.Type

export const BlockTransactionJson = Schema.Struct({
  /** Added by toncenter: "<wc>:<hex>" (lower-case hex from the Python server, upper-case from the C++ one). */
  account: Schema.optional(Schema.String),
  address: Schema.optional(Schema.Struct({ account_address: Schema.String })),
  data: Schema.String,
  transaction_id: Schema.Struct({ lt: Int64, hash: Schema.String })
})
export type BlockTransactionJson = typeof BlockTransactionJson.Type

export const BlockTransactionsExtJson = Schema.Struct({
  id: BlockIdExtJson,
  incomplete: Schema.Boolean,
  transactions: Schema.Array(BlockTransactionJson)
})
export type BlockTransactionsExtJson = typeof BlockTransactionsExtJson.Type

/** v3 `/accountStates` rows (latest state of each asked account). */
export const V3AccountStatesJson = Schema.Struct({
  accounts: Schema.Array(
    Schema.Struct({
      address: Schema.String,
      account_state_hash: Schema.NullishOr(Schema.String),
      balance: Schema.NullishOr(Int64),
      status: Schema.NullishOr(Schema.String),
      frozen_hash: Schema.NullishOr(Schema.String),
      data_hash: Schema.NullishOr(Schema.String),
      code_hash: Schema.NullishOr(Schema.String)
    })
  )
})
export type V3AccountStatesJson = typeof V3AccountStatesJson.Type

/** v3 `/blocks` rows: the header fields of v2 getBlockHeader, shard in hex, prev blocks without their hashes. */
export const V3BlockJson = Schema.Struct({
  workchain: Schema.Number,
  /** Unsigned hex, e.g. "8000000000000000". */
  shard: Schema.String.pipe(Schema.pattern(/^[0-9a-fA-F]{1,16}$/)),
  seqno: Schema.Number,
  root_hash: Schema.String,
  file_hash: Schema.String,
  global_id: Schema.Number,
  version: Schema.Number,
  after_merge: Schema.Boolean,
  before_split: Schema.Boolean,
  after_split: Schema.Boolean,
  want_merge: Schema.Boolean,
  want_split: Schema.Boolean,
  key_block: Schema.Boolean,
  flags: Schema.Number,
  gen_utime: Int64,
  start_lt: Int64,
  end_lt: Int64,
  validator_list_hash_short: Schema.Number,
  gen_catchain_seqno: Schema.Number,
  min_ref_mc_seqno: Schema.Number,
  prev_key_block_seqno: Schema.Number,
  vert_seqno: Schema.Number,
  vert_seqno_incr: Schema.optional(Schema.NullishOr(Schema.Boolean)),
  master_ref_seqno: Schema.optional(Schema.NullishOr(Schema.Number)),
  rand_seed: Schema.optional(Schema.NullishOr(Schema.String)),
  created_by: Schema.optional(Schema.NullishOr(Schema.String)),
  tx_count: Schema.NullishOr(Schema.Number),
  prev_blocks: Schema.Array(
    Schema.Struct({
      workchain: Schema.Number,
      shard: Schema.String.pipe(Schema.pattern(/^[0-9a-fA-F]{1,16}$/)),
      seqno: Schema.Number
    })
  )
})
export type V3BlockJson = typeof V3BlockJson.Type

export const V3BlocksJson = Schema.Struct({ blocks: Schema.Array(V3BlockJson) })
export type V3BlocksJson = typeof V3BlocksJson.Type
