/**
 * effect Schemas of the toncenter v2 (and v3 block and account-state) responses the source reads, checked on every body.
 * Invariant: a body that lacks a field the source depends on is rejected here as malformed (and retried), never
 * turned into a silently wrong record downstream; fields the source does not use are ignored.
 */
import { Either, Schema } from "effect"

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

/*
 * Hand-written readers of the hot answers (block headers, transaction pages, account states, shard tops): each
 * returns exactly what the schema above decodes (the same fields in the same order, defaults filled, other fields
 * left out) when it accepts, and `undefined` for anything it is not sure of, which then goes to the schema for the
 * verdict and its message. A reader only ever accepts what the schema accepts; the schemas stay the reference
 * (test/unit/source/readers.test.ts compares them over recorded, generated and damaged answers).
 */
const INT64 = /^-?\d+$/
const int64 = (v: unknown): v is string | number =>
  (typeof v === "string" || typeof v === "number") && INT64.test(String(v))
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v)
const has = (o: object, k: string) => Object.prototype.hasOwnProperty.call(o, k)

const readBlockIdExt = (v: unknown): BlockIdExtJson | undefined => {
  if (!isObject(v)) return undefined
  const { workchain, shard, seqno, root_hash, file_hash } = v
  if (typeof workchain !== "number" || !int64(shard) || typeof seqno !== "number") return undefined
  if (typeof root_hash !== "string" || typeof file_hash !== "string") return undefined
  return { workchain, shard, seqno, root_hash, file_hash }
}

const readBlockIdExts = (v: unknown): Array<BlockIdExtJson> | undefined => {
  if (!Array.isArray(v)) return undefined
  const out: Array<BlockIdExtJson> = []
  for (const item of v) {
    const id = readBlockIdExt(item)
    if (id === undefined) return undefined
    out.push(id)
  }
  return out
}

/** A field with a default: absent gives the default, present must be of its type (else `undefined`, not sure). */
const numberOr0 = (o: Record<string, unknown>, k: string): number | undefined => {
  if (!has(o, k)) return 0
  const v = o[k]
  return typeof v === "number" ? v : undefined
}
const booleanOrFalse = (o: Record<string, unknown>, k: string): boolean | undefined => {
  if (!has(o, k)) return false
  const v = o[k]
  return typeof v === "boolean" ? v : undefined
}

/** The v2 envelope as its schema decodes it, in the Either the schema's decoder gives. */
export const readEnvelope = (v: unknown): Either.Either<typeof Envelope.Type, never> | undefined => {
  if (!isObject(v) || typeof v["ok"] !== "boolean") return undefined
  const { ok, result, error, code } = v
  if ((has(v, "error") && typeof error !== "string") || (has(v, "code") && typeof code !== "number")) return undefined
  const out: { ok: boolean; result?: unknown; error?: string; code?: number } = { ok }
  if (has(v, "result")) out.result = result
  if (has(v, "error")) out.error = error as string
  if (has(v, "code")) out.code = code as number
  return Either.right(out)
}

export const readShards = (v: unknown): typeof ShardsJson.Type | undefined => {
  if (!isObject(v)) return undefined
  const shards = readBlockIdExts(v["shards"])
  return shards === undefined ? undefined : { shards }
}

export const readBlockHeader = (v: unknown): BlockHeaderJson | undefined => {
  if (!isObject(v)) return undefined
  const id = readBlockIdExt(v["id"])
  const global_id = numberOr0(v, "global_id")
  const version = numberOr0(v, "version")
  const flags = numberOr0(v, "flags")
  const after_merge = booleanOrFalse(v, "after_merge")
  const after_split = booleanOrFalse(v, "after_split")
  const before_split = booleanOrFalse(v, "before_split")
  const want_merge = booleanOrFalse(v, "want_merge")
  const want_split = booleanOrFalse(v, "want_split")
  const validator_list_hash_short = numberOr0(v, "validator_list_hash_short")
  const catchain_seqno = numberOr0(v, "catchain_seqno")
  const min_ref_mc_seqno = numberOr0(v, "min_ref_mc_seqno")
  const is_key_block = booleanOrFalse(v, "is_key_block")
  const prev_key_block_seqno = numberOr0(v, "prev_key_block_seqno")
  const { start_lt, end_lt, gen_utime } = v
  const vert_seqno = numberOr0(v, "vert_seqno")
  const prev_blocks = readBlockIdExts(v["prev_blocks"])
  if (
    id === undefined ||
    global_id === undefined ||
    version === undefined ||
    flags === undefined ||
    after_merge === undefined ||
    after_split === undefined ||
    before_split === undefined ||
    want_merge === undefined ||
    want_split === undefined ||
    validator_list_hash_short === undefined ||
    catchain_seqno === undefined ||
    min_ref_mc_seqno === undefined ||
    is_key_block === undefined ||
    prev_key_block_seqno === undefined ||
    !int64(start_lt) ||
    !int64(end_lt) ||
    typeof gen_utime !== "number" ||
    vert_seqno === undefined ||
    prev_blocks === undefined
  ) {
    return undefined
  }
  return {
    id,
    global_id,
    version,
    flags,
    after_merge,
    after_split,
    before_split,
    want_merge,
    want_split,
    validator_list_hash_short,
    catchain_seqno,
    min_ref_mc_seqno,
    is_key_block,
    prev_key_block_seqno,
    start_lt,
    end_lt,
    gen_utime,
    vert_seqno,
    prev_blocks
  }
}

const readBlockTransaction = (v: unknown): BlockTransactionJson | undefined => {
  if (!isObject(v)) return undefined
  const { address, data, transaction_id } = v
  // an absent optional field and one present as `undefined` decode apart; JSON has no `undefined`, so only absent
  let account: string | undefined
  if (has(v, "account")) {
    if (typeof v["account"] !== "string") return undefined
    account = v["account"]
  }
  let addr: { readonly account_address: string } | undefined
  if (has(v, "address")) {
    if (!isObject(address) || typeof address["account_address"] !== "string") return undefined
    addr = { account_address: address["account_address"] }
  }
  if (typeof data !== "string" || !isObject(transaction_id)) return undefined
  const { lt, hash } = transaction_id
  if (!int64(lt) || typeof hash !== "string") return undefined
  // the schema's output has the optional keys only when the input has them
  const out: BlockTransactionJson =
    account === undefined
      ? addr === undefined
        ? { data, transaction_id: { lt, hash } }
        : { address: addr, data, transaction_id: { lt, hash } }
      : addr === undefined
        ? { account, data, transaction_id: { lt, hash } }
        : { account, address: addr, data, transaction_id: { lt, hash } }
  return out
}

export const readBlockTransactionsExt = (v: unknown): BlockTransactionsExtJson | undefined => {
  if (!isObject(v)) return undefined
  const id = readBlockIdExt(v["id"])
  const { incomplete, transactions } = v
  if (id === undefined || typeof incomplete !== "boolean" || !Array.isArray(transactions)) return undefined
  const out: Array<BlockTransactionJson> = []
  for (const item of transactions) {
    const tx = readBlockTransaction(item)
    if (tx === undefined) return undefined
    out.push(tx)
  }
  return { id, incomplete, transactions: out }
}

type Nullish<A> = A | null | undefined
/** A required key whose value may be null: present and null or of its type (an absent key is left to the schema). */
const nullishString = (o: Record<string, unknown>, k: string): Nullish<string> | false => {
  const v = o[k]
  return v === null ? null : typeof v === "string" ? v : false
}

export const readAccountStates = (v: unknown): V3AccountStatesJson | undefined => {
  if (!isObject(v) || !Array.isArray(v["accounts"])) return undefined
  const accounts: Array<V3AccountStatesJson["accounts"][number]> = []
  for (const a of v["accounts"] as ReadonlyArray<unknown>) {
    if (!isObject(a) || typeof a["address"] !== "string") return undefined
    const balance = a["balance"]
    if (balance !== null && !int64(balance)) return undefined
    const account_state_hash = nullishString(a, "account_state_hash")
    const status = nullishString(a, "status")
    const frozen_hash = nullishString(a, "frozen_hash")
    const data_hash = nullishString(a, "data_hash")
    const code_hash = nullishString(a, "code_hash")
    if (
      account_state_hash === false ||
      status === false ||
      frozen_hash === false ||
      data_hash === false ||
      code_hash === false
    ) {
      return undefined
    }
    accounts.push({ address: a["address"], account_state_hash, balance, status, frozen_hash, data_hash, code_hash })
  }
  return { accounts }
}
