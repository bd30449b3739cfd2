/**
 * JSON schemas of every route's parameters and responses: the written contract, and the source of the OpenAPI
 * document. Responses are serialized by us (see reply.ts), so these schemas describe the bytes but never
 * produce them: fast-json-stringify would reorder keys to the schema's order and turn nulls into "" or 0.
 * Invariants: a query parameter is validated on the wire as a short string (64-bit ids must not pass through a
 * double; the handlers parse and range-check it, see assemble/params.ts) and documented with the type, range,
 * pattern or enum those handlers enforce, both from one `param` call; response schemas are closed
 * (`additionalProperties: false`) and nullable exactly where the renderers in src/ton emit null.
 */

// ---------------------------------------------------------------- parameters

/** Which value of the store's example block a parameter's documented example takes (filled when served). */
export type ExampleSlot = "mc_seqno" | "block_workchain" | "block_shard" | "block_seqno"

export interface ParamDoc {
  /** The parameter as documented: what the handler accepts. */
  readonly schema: Record<string, unknown>
  readonly example?: ExampleSlot
}

/** Wire schema -> its documented form; openapi.ts reads it, Fastify never sees it. */
export const paramDocs = new WeakMap<object, ParamDoc>()

const WIRE_MAX_LENGTH = 100

/** A query parameter: validated as a string of at most 100 characters, documented as `doc.schema`. */
export const param = (description: string, doc: ParamDoc): Record<string, unknown> => {
  const wire = { type: "string", maxLength: WIRE_MAX_LENGTH, description }
  paramDocs.set(wire, doc)
  return wire
}

export const INT32 = {
  type: "integer",
  format: "int32",
  minimum: -2147483648,
  maximum: 2147483647
} as const
const SEQNO = {
  type: "integer",
  format: "int32",
  minimum: 0,
  maximum: 2147483647
} as const

/** Hex (64 digits) or standard / url-safe base64 (44 characters with one `=`) of 32 bytes. */
export const HASH_PARAM_PATTERN = "^(?:[0-9a-fA-F]{64}|[A-Za-z0-9+/_-]{43}=)$"

export const seqnoParam = (description: string, example: ExampleSlot) =>
  param(`${description} (decimal integer, 0..2147483647)`, {
    schema: SEQNO,
    example
  })

export const hashParam = (description: string) =>
  param(`${description}: 32 bytes as hex, base64 or url-safe base64`, {
    schema: { type: "string", pattern: HASH_PARAM_PATTERN }
  })

/** v3 paging: values below 1 count as 1, above 1000 are refused (ton-index-go's rules). */
export const limitParam = () =>
  param("Page size, at most 1000; values below 1 count as 1 (default 100)", {
    schema: { type: "integer", format: "int64", maximum: 1000, default: 100 }
  })

/** v3 offset: negative values count as 0; our bound, far above any block's size, keeps scans short. */
export const offsetParam = () =>
  param("Rows to skip, at most 1000000; negative values count as 0 (default 0)", {
    schema: {
      type: "integer",
      format: "int64",
      maximum: 1000000,
      default: 0
    }
  })

export const querySchema = (properties: Record<string, unknown>, required: ReadonlyArray<string> = []) => ({
  type: "object",
  properties,
  required: [...required]
})

// ---------------------------------------------------------------- shared pieces of answers

const HASH_B64 = { type: "string", pattern: "^[A-Za-z0-9+/]{43}=$" } as const
const BOC_B64 = { type: "string", pattern: "^[A-Za-z0-9+/]*={0,2}$" } as const
/** A signed decimal integer as text (64-bit values, and wider sums such as fees). */
const DEC = { type: "string", pattern: "^-?[0-9]+$" } as const
const UDEC = { type: "string", pattern: "^[0-9]+$" } as const
const nullable = (s: Record<string, unknown>) =>
  "enum" in s
    ? { ...s, type: [s.type, "null"], enum: [...(s.enum as unknown[]), null] }
    : { ...s, type: [s.type, "null"] }
const closed = (properties: Record<string, unknown>, optional: ReadonlyArray<string> = []) => ({
  type: "object",
  required: Object.keys(properties).filter((k) => !optional.includes(k)),
  additionalProperties: false,
  properties
})

// ---------------------------------------------------------------- errors

export const v2ErrorSchema = {
  description: "ton-http-api error: `code` repeats the HTTP status",
  ...closed({
    ok: { type: "boolean", const: false },
    error: { type: "string" },
    code: { type: "integer" }
  })
}

export const v3ErrorSchema = {
  description: "ton-index-go error",
  ...closed({ error: { type: "string" } })
}

// ---------------------------------------------------------------- v2 (ton-http-api)

const v2BlockIdExtSchema = closed({
  "@type": { type: "string", const: "ton.blockIdExt" },
  workchain: { type: "integer" },
  shard: { ...DEC, description: "signed 64-bit decimal" },
  seqno: { type: "integer" },
  root_hash: HASH_B64,
  file_hash: HASH_B64
})

const v2AccountAddress = closed({
  "@type": { type: "string", const: "accountAddress" },
  account_address: {
    type: "string",
    description: "user-friendly form; empty for external messages' missing side"
  }
})

const v2MsgData = {
  oneOf: [
    closed({
      "@type": { type: "string", const: "msg.dataRaw" },
      body: BOC_B64,
      init_state: BOC_B64
    }),
    closed({
      "@type": { type: "string", const: "msg.dataText" },
      text: BOC_B64
    }),
    closed({
      "@type": { type: "string", const: "msg.dataEncryptedText" },
      text: BOC_B64
    })
  ]
}

const v2Message = closed({
  "@type": { type: "string", const: "raw.message" },
  hash: HASH_B64,
  source: v2AccountAddress,
  destination: v2AccountAddress,
  value: UDEC,
  extra_currencies: {
    type: "array",
    items: closed({
      "@type": { type: "string", const: "extraCurrency" },
      id: { type: "integer" },
      amount: UDEC
    })
  },
  fwd_fee: UDEC,
  ihr_fee: UDEC,
  created_lt: UDEC,
  body_hash: HASH_B64,
  msg_data: v2MsgData
})

export const v2RawTransactionSchema = {
  description:
    "tonlib raw.transaction plus pytonlib's `account`; keys holding null are absent (in_msg when there is none)",
  ...closed(
    {
      "@type": { type: "string", const: "raw.transaction" },
      address: v2AccountAddress,
      utime: { type: "integer" },
      data: { ...BOC_B64, description: "the transaction BOC as recorded" },
      transaction_id: closed({
        "@type": { type: "string", const: "internal.transactionId" },
        lt: UDEC,
        hash: HASH_B64
      }),
      fee: DEC,
      storage_fee: DEC,
      other_fee: DEC,
      in_msg: v2Message,
      out_msgs: { type: "array", items: v2Message },
      account: {
        type: "string",
        pattern: "^-?[0-9]+:[0-9a-f]{64}$",
        description: "raw address, lower case"
      }
    },
    ["in_msg"]
  )
}

const v2TransactionsExtResult = closed({
  "@type": { type: "string", const: "blocks.transactionsExt" },
  id: v2BlockIdExtSchema,
  req_count: { type: "integer", description: "min(count, 256)" },
  incomplete: {
    type: "boolean",
    description: "true when exactly `count` transactions were returned"
  },
  transactions: { type: "array", items: v2RawTransactionSchema },
  "@extra": {
    type: "string",
    description: "<unix time float>:<int>:<random float>"
  }
})

const v2ShardsResult = closed({
  "@type": { type: "string", const: "blocks.shards" },
  shards: { type: "array", items: v2BlockIdExtSchema },
  "@extra": { type: "string" }
})

export const v2BlockTransactionsExtSchema = {
  description: "blocks.transactionsExt of ton-http-api (Python), `@extra` inside `result`",
  ...closed({
    ok: { type: "boolean", const: true },
    result: v2TransactionsExtResult
  })
}

export const v2ShardsSchema = closed({
  ok: { type: "boolean", const: true },
  result: v2ShardsResult
})

/** Fastify's check of a JSON-RPC body: only what the handler cannot answer in the JSON-RPC envelope itself. */
export const jsonRpcBodySchema = {
  type: "object",
  required: ["method"],
  properties: {
    jsonrpc: { type: "string" },
    id: { description: "echoed back as a string" },
    method: { type: "string" },
    params: { type: "object", additionalProperties: true }
  }
} as const

const rpcParam = (s: Record<string, unknown>) => ({
  anyOf: [s, { type: "string", pattern: "^[+-]?[0-9]{1,30}$" }]
})

/** The JSON-RPC body as documented: the methods served and each one's parameters (numbers or decimal text). */
export const jsonRpcBodyDoc = (example: Record<string, unknown> | undefined) => ({
  type: "object",
  required: ["method"],
  properties: {
    jsonrpc: {
      type: ["string", "number", "boolean", "null"],
      description: '"2.0"; not checked'
    },
    id: {
      type: ["string", "number", "boolean", "null"],
      description: 'echoed back as a string, the way pydantic coerces it (true -> "True")'
    },
    method: { type: "string", enum: ["getBlockTransactionsExt", "shards"] },
    params: {
      type: "object",
      additionalProperties: false,
      description:
        "shards takes seqno; getBlockTransactionsExt takes workchain, shard, seqno (required) and " +
        "root_hash, file_hash, after_lt, after_hash, count. Integers may be sent as JSON numbers (exact ones) or " +
        "decimal strings.",
      properties: {
        workchain: rpcParam(INT32),
        shard: {
          type: "string",
          pattern: "^[+-]?[0-9]{1,19}$",
          description: "signed 64-bit decimal, not 0"
        },
        seqno: rpcParam(SEQNO),
        root_hash: { type: "string", pattern: HASH_PARAM_PATTERN },
        file_hash: { type: "string", pattern: HASH_PARAM_PATTERN },
        after_lt: { type: "string", pattern: "^[+]?[0-9]{1,19}$" },
        after_hash: { type: "string", maxLength: 80 },
        count: rpcParam({ type: "integer", minimum: 1, maximum: 10000 })
      }
    }
  },
  ...(example === undefined ? {} : { examples: [example] })
})

const rpcTail = {
  id: { type: "string" },
  jsonrpc: { type: "string", const: "2.0" }
}

export const jsonRpcResponseSchema = {
  description: "ton-http-api JSON-RPC answer: the REST body plus `id` (as a string, when sent) and `jsonrpc`",
  oneOf: [
    closed(
      {
        ok: { type: "boolean", const: true },
        result: v2TransactionsExtResult,
        ...rpcTail
      },
      ["id"]
    ),
    closed(
      {
        ok: { type: "boolean", const: true },
        result: v2ShardsResult,
        ...rpcTail
      },
      ["id"]
    )
  ]
}

export const jsonRpcErrorSchema = {
  description: "ton-http-api JSON-RPC error: `code` repeats the HTTP status",
  ...closed(
    {
      ok: { type: "boolean", const: false },
      error: { type: "string" },
      code: { type: "integer" },
      ...rpcTail
    },
    ["id", "jsonrpc"]
  )
}

// ---------------------------------------------------------------- v3 (ton-index-go)

const RAW_ADDRESS = {
  type: "string",
  pattern: "^-?[0-9]+:[0-9A-F]{64}$"
} as const
const SHARD_HEX = { type: "string", pattern: "^[0-9A-F]{1,16}$" } as const
const ACCOUNT_STATUS = {
  type: "string",
  enum: ["uninit", "frozen", "active", "nonexist"]
} as const
const STATUS_CHANGE = {
  type: "string",
  enum: ["unchanged", "frozen", "deleted"]
} as const
const EXTRA_CURRENCIES = {
  type: "object",
  additionalProperties: UDEC,
  propertyNames: { pattern: "^[0-9]+$" }
}
const MSG_SIZE = closed({ cells: UDEC, bits: UDEC })

const v3BlockRefSchema = closed({
  workchain: { type: "integer" },
  shard: SHARD_HEX,
  seqno: { type: "integer" }
})

const v3MessageContent = closed({
  hash: HASH_B64,
  body: BOC_B64,
  decoded: {
    description:
      "the body decoded by TL-B as toncenter's ton-marker prints it (every constructor an object with its \"@type\", " +
      "integers as decimal strings, nested cells as base64 BOCs or their own decoding; a top-level text comment is " +
      "{\"@type\":\"text_comment\",\"comment\":...,\"type\":\"text_comment\"}), or, in the 2025-09 shape, " +
      "a text comment only",
    anyOf: [
      { type: "null" },
      { type: "object", required: ["@type"], properties: { "@type": { type: "string" } } },
      closed({ type: { type: "string", const: "text_comment" }, comment: { type: "string" } })
    ]
  }
})

const v3MessageSchema = {
  description: "ton-index-go Message; fields an external message lacks are null",
  ...closed(
    {
      hash: HASH_B64,
      source: nullable(RAW_ADDRESS),
      destination: nullable(RAW_ADDRESS),
      value: nullable(UDEC),
      value_extra_currencies: nullable(EXTRA_CURRENCIES),
      fwd_fee: nullable(UDEC),
      ihr_fee: nullable(UDEC),
      extra_flags: nullable({ ...UDEC, description: "an internal message's extra flags; null for external messages" }),
      created_lt: nullable(UDEC),
      created_at: nullable({ ...UDEC, description: "unix time as a string" }),
      opcode: nullable({ type: "string", pattern: "^0x[0-9a-f]{8}$" }),
      decoded_opcode: nullable({ type: "string", description: "the opcode's name in the decoding scheme" }),
      ihr_disabled: { type: ["boolean", "null"] },
      bounce: { type: ["boolean", "null"] },
      bounced: { type: ["boolean", "null"] },
      import_fee: nullable(UDEC),
      message_content: nullable(v3MessageContent),
      init_state: nullable(v3MessageContent),
      hash_norm: {
        ...HASH_B64,
        description: "normalized hash of an external inbound message"
      }
    },
    ["hash_norm", "extra_flags", "decoded_opcode"]
  )
}

const v3AccountStateSchema = {
  description: "ton-index-go AccountState; only the hash when the state itself is not stored",
  ...closed({
    hash: HASH_B64,
    balance: nullable(UDEC),
    extra_currencies: nullable(EXTRA_CURRENCIES),
    account_status: nullable(ACCOUNT_STATUS),
    frozen_hash: nullable(HASH_B64),
    data_hash: nullable(HASH_B64),
    code_hash: nullable(HASH_B64)
  })
}

const computeSkipped = closed({
  skipped: { type: "boolean", const: true },
  reason: {
    type: "string",
    enum: ["no_state", "bad_state", "no_gas", "suspended"]
  }
})

const computeVm = closed(
  {
    skipped: { type: "boolean", const: false },
    success: { type: "boolean" },
    msg_state_used: { type: "boolean" },
    account_activated: { type: "boolean" },
    gas_fees: UDEC,
    gas_used: UDEC,
    gas_limit: UDEC,
    gas_credit: UDEC,
    mode: { type: "integer" },
    exit_code: { type: "integer" },
    exit_arg: { type: "integer" },
    vm_steps: { type: "integer" },
    vm_init_state_hash: HASH_B64,
    vm_final_state_hash: HASH_B64
  },
  ["gas_credit", "exit_arg"]
)

const actionPhase = closed(
  {
    success: { type: "boolean" },
    valid: { type: "boolean" },
    no_funds: { type: "boolean" },
    status_change: STATUS_CHANGE,
    total_fwd_fees: UDEC,
    total_action_fees: UDEC,
    result_code: { type: "integer" },
    result_arg: { type: "integer" },
    tot_actions: { type: "integer" },
    spec_actions: { type: "integer" },
    skipped_actions: { type: "integer" },
    msgs_created: { type: "integer" },
    action_list_hash: HASH_B64,
    tot_msg_size: MSG_SIZE
  },
  ["total_fwd_fees", "total_action_fees", "result_arg"]
)

const bouncePhase = {
  oneOf: [
    closed({ type: { type: "string", const: "negfunds" } }),
    closed({
      type: { type: "string", const: "nofunds" },
      msg_size: MSG_SIZE,
      req_fwd_fees: UDEC
    }),
    closed({
      type: { type: "string", const: "ok" },
      msg_size: MSG_SIZE,
      msg_fees: UDEC,
      fwd_fees: UDEC
    })
  ]
}

const v3DescriptionSchema = {
  description: "ton-index-go TransactionDescr: the phases a transaction of this type has; absent ones are omitted",
  ...closed(
    {
      type: {
        type: "string",
        enum: ["ord", "storage", "tick_tock", "split_prepare", "split_install", "merge_prepare", "merge_install"]
      },
      aborted: { type: "boolean" },
      destroyed: { type: "boolean" },
      credit_first: { type: "boolean" },
      is_tock: { type: "boolean" },
      installed: { type: "boolean" },
      storage_ph: closed(
        {
          storage_fees_collected: UDEC,
          storage_fees_due: UDEC,
          status_change: STATUS_CHANGE
        },
        ["storage_fees_collected", "storage_fees_due", "status_change"]
      ),
      credit_ph: closed(
        {
          due_fees_collected: UDEC,
          credit: UDEC,
          credit_extra_currencies: EXTRA_CURRENCIES
        },
        ["due_fees_collected", "credit", "credit_extra_currencies"]
      ),
      compute_ph: { oneOf: [computeSkipped, computeVm] },
      action: actionPhase,
      bounce: bouncePhase,
      split_info: closed({
        cur_shard_pfx_len: { type: "integer" },
        acc_split_depth: { type: "integer" },
        this_addr: RAW_ADDRESS,
        sibling_addr: RAW_ADDRESS
      })
    },
    [
      "aborted",
      "destroyed",
      "credit_first",
      "is_tock",
      "installed",
      "storage_ph",
      "credit_ph",
      "compute_ph",
      "action",
      "bounce",
      "split_info"
    ]
  )
}

export const v3TransactionSchema = {
  description: "ton-index-go Transaction",
  ...closed(
    {
      account: RAW_ADDRESS,
      hash: HASH_B64,
      lt: UDEC,
      now: { type: "integer" },
      mc_block_seqno: { type: "integer" },
      trace_id: HASH_B64,
      prev_trans_hash: HASH_B64,
      prev_trans_lt: UDEC,
      orig_status: ACCOUNT_STATUS,
      end_status: ACCOUNT_STATUS,
      total_fees: UDEC,
      total_fees_extra_currencies: EXTRA_CURRENCIES,
      description: v3DescriptionSchema,
      block_ref: v3BlockRefSchema,
      in_msg: nullable(v3MessageSchema),
      out_msgs: { type: "array", items: v3MessageSchema },
      account_state_before: v3AccountStateSchema,
      account_state_after: v3AccountStateSchema,
      emulated: { type: "boolean", const: false },
      finality: { type: "string", const: "finalized", description: "every stored block is committed by the masterchain" }
    },
    ["trace_id", "finality"]
  )
}

export const v3AddressBookSchema = {
  type: "object",
  description: "raw address -> its user-friendly form (non-bounceable for wallets and unknown code) and domain",
  propertyNames: RAW_ADDRESS,
  additionalProperties: closed(
    {
      user_friendly: { type: "string", pattern: "^[A-Za-z0-9_-]{48}$" },
      domain: { type: ["string", "null"] },
      interfaces: {
        type: ["array", "null"],
        items: { type: "string" },
        description: "contract interfaces recognised from the account's code hash"
      }
    },
    ["interfaces"]
  )
}

export const v3TransactionsSchema = closed({
  transactions: { type: "array", items: v3TransactionSchema },
  address_book: v3AddressBookSchema
})

export const v3BlockSchema = {
  description: "ton-index-go Block; header fields not stored are null",
  ...closed({
    workchain: { type: "integer" },
    shard: {
      ...SHARD_HEX,
      description: "upper-case hex of the unsigned shard id"
    },
    seqno: { type: "integer" },
    root_hash: HASH_B64,
    file_hash: HASH_B64,
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
    gen_utime: UDEC,
    start_lt: UDEC,
    end_lt: UDEC,
    validator_list_hash_short: { type: "integer" },
    gen_catchain_seqno: { type: "integer" },
    min_ref_mc_seqno: { type: "integer" },
    prev_key_block_seqno: { type: "integer" },
    vert_seqno: { type: "integer" },
    master_ref_seqno: { type: ["integer", "null"] },
    rand_seed: nullable(HASH_B64),
    created_by: nullable(HASH_B64),
    tx_count: { type: "integer" },
    masterchain_block_ref: v3BlockRefSchema,
    prev_blocks: { type: "array", items: v3BlockRefSchema }
  })
}

export const v3BlocksSchema = closed({
  blocks: { type: "array", items: v3BlockSchema }
})

// ---------------------------------------------------------------- status tables

/** Every status a route may answer besides 200: keys, not found, bad input, limits, body problems, shutdown. */
const errorStatuses = [400, 401, 404, 405, 413, 415, 422, 429, 503] as const

const errorsOf = <S>(schema: S) => Object.fromEntries(errorStatuses.map((s) => [s, schema])) as Record<number, S>

export const v2Responses = <S>(ok: S) => ({
  200: ok,
  ...errorsOf(v2ErrorSchema)
})
export const v3Responses = <S>(ok: S) => ({
  200: ok,
  ...errorsOf(v3ErrorSchema)
})
export const jsonRpcResponses = () => ({
  200: jsonRpcResponseSchema,
  ...errorsOf(v2ErrorSchema),
  404: jsonRpcErrorSchema,
  422: jsonRpcErrorSchema
})
