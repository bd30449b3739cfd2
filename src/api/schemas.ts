/**
 * JSON schemas of every route's query and responses: the written contract, and the source of the OpenAPI
 * document. Responses are serialized by us (see reply.ts), so these schemas describe the bytes but never
 * produce them: fast-json-stringify would reorder keys to the schema's order and turn nulls into "" or 0.
 * Query values are declared as strings on purpose: 64-bit ids must not pass through a double.
 */

const str = (description: string, extra: Record<string, unknown> = {}) => ({
  type: "string",
  maxLength: 100,
  description,
  ...extra
})

export const intText = (description: string, example: string) =>
  str(`${description} (decimal integer)`, { examples: [example] })

export const hashText = (description: string) =>
  str(`${description}: 32 bytes as base64, url-safe base64 or hex`, {
    examples: ["b26/Pw8BYz6VY7RyYB/w2Nf8pKBebsg+H4rT1pH5ZEM="]
  })

export const v2ErrorSchema = {
  description: "ton-http-api error: `code` repeats the HTTP status",
  type: "object",
  required: ["ok", "error", "code"],
  properties: { ok: { type: "boolean", const: false }, error: { type: "string" }, code: { type: "integer" } }
} as const

export const v3ErrorSchema = {
  description: "ton-index-go error",
  type: "object",
  required: ["error"],
  properties: { error: { type: "string" } }
} as const

const v2BlockIdExtSchema = {
  type: "object",
  properties: {
    "@type": { type: "string", const: "ton.blockIdExt" },
    workchain: { type: "integer" },
    shard: { type: "string", description: "signed 64-bit decimal" },
    seqno: { type: "integer" },
    root_hash: { type: "string" },
    file_hash: { type: "string" }
  }
} as const

const rawTransactionSchema = {
  type: "object",
  description:
    "tonlib raw.transaction: @type, address, utime, data, transaction_id, fee, storage_fee, other_fee, " +
    "in_msg (absent when none), out_msgs, account",
  additionalProperties: true
} as const

export const v2BlockTransactionsExtSchema = {
  description: "blocks.transactionsExt of ton-http-api (Python), `@extra` inside `result`",
  type: "object",
  properties: {
    ok: { type: "boolean", const: true },
    result: {
      type: "object",
      properties: {
        "@type": { type: "string", const: "blocks.transactionsExt" },
        id: v2BlockIdExtSchema,
        req_count: { type: "integer", description: "min(count, 256)" },
        incomplete: { type: "boolean", description: "true when exactly `count` transactions were returned" },
        transactions: { type: "array", items: rawTransactionSchema },
        "@extra": { type: "string", description: "<unix time float>:<int>:<random float>" }
      }
    }
  }
} as const

export const v2ShardsSchema = {
  type: "object",
  properties: {
    ok: { type: "boolean", const: true },
    result: {
      type: "object",
      properties: {
        "@type": { type: "string", const: "blocks.shards" },
        shards: { type: "array", items: v2BlockIdExtSchema },
        "@extra": { type: "string" }
      }
    }
  }
} as const

export const jsonRpcBodySchema = {
  type: "object",
  required: ["method"],
  properties: {
    jsonrpc: { type: "string", examples: ["2.0"] },
    id: { description: "echoed back as a string", examples: [1] },
    method: { type: "string", description: "getBlockTransactionsExt | shards (others: 422 Unknown method)" },
    params: { type: "object", additionalProperties: true }
  }
} as const

export const jsonRpcResponseSchema = {
  description: "{ok, result | error, code, id (string), jsonrpc}",
  type: "object",
  properties: {
    ok: { type: "boolean" },
    result: { type: "object", additionalProperties: true },
    error: { type: "string" },
    code: { type: "integer" },
    id: { type: "string" },
    jsonrpc: { type: "string", const: "2.0" }
  }
} as const

const v3TransactionSchema = {
  type: "object",
  description:
    "ton-index-go Transaction: account, hash, lt, now, mc_block_seqno, trace_id, prev_trans_hash, prev_trans_lt, " +
    "orig_status, end_status, total_fees, total_fees_extra_currencies, description, block_ref, in_msg (nullable), " +
    "out_msgs, account_state_before, account_state_after, emulated",
  additionalProperties: true
} as const

export const v3TransactionsSchema = {
  type: "object",
  properties: {
    transactions: { type: "array", items: v3TransactionSchema },
    address_book: {
      type: "object",
      description: "raw address -> {user_friendly, domain (nullable)}, keys sorted",
      additionalProperties: {
        type: "object",
        properties: { user_friendly: { type: "string" }, domain: { type: ["string", "null"] } }
      }
    }
  }
} as const

const v3BlockRefSchema = {
  type: "object",
  properties: { workchain: { type: "integer" }, shard: { type: "string" }, seqno: { type: "integer" } }
} as const

export const v3BlocksSchema = {
  type: "object",
  properties: {
    blocks: {
      type: "array",
      items: {
        type: "object",
        properties: {
          workchain: { type: "integer" },
          shard: { type: "string", description: "upper-case hex of the unsigned shard id" },
          seqno: { type: "integer" },
          root_hash: { type: "string" },
          file_hash: { type: "string" },
          global_id: { type: "integer" },
          version: { type: "integer" },
          after_merge: { type: "boolean" },
          before_split: { type: "boolean" },
          after_split: { type: "boolean" },
          want_merge: { type: "boolean" },
          want_split: { type: "boolean" },
          key_block: { type: "boolean" },
          vert_seqno_incr: { type: ["boolean", "null"] },
          flags: { type: "integer" },
          gen_utime: { type: "string" },
          start_lt: { type: "string" },
          end_lt: { type: "string" },
          validator_list_hash_short: { type: "integer" },
          gen_catchain_seqno: { type: "integer" },
          min_ref_mc_seqno: { type: "integer" },
          prev_key_block_seqno: { type: "integer" },
          vert_seqno: { type: "integer" },
          master_ref_seqno: { type: ["integer", "null"] },
          rand_seed: { type: ["string", "null"] },
          created_by: { type: ["string", "null"] },
          tx_count: { type: "integer" },
          masterchain_block_ref: v3BlockRefSchema,
          prev_blocks: { type: "array", items: v3BlockRefSchema }
        }
      }
    }
  }
} as const

const v2Errors = { 401: v2ErrorSchema, 404: v2ErrorSchema, 422: v2ErrorSchema, 429: v2ErrorSchema } as const
const v3Errors = { 401: v3ErrorSchema, 404: v3ErrorSchema, 422: v3ErrorSchema, 429: v3ErrorSchema } as const

export const v2Responses = <S>(ok: S) => ({ 200: ok, ...v2Errors })
export const v3Responses = <S>(ok: S) => ({ 200: ok, ...v3Errors })

export const querySchema = (properties: Record<string, unknown>, required: ReadonlyArray<string> = []) => ({
  type: "object",
  properties,
  required: [...required]
})
