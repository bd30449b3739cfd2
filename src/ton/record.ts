/**
 * The canonical records the whole product speaks: decoded once by the producer, carried on Kafka as JSON,
 * flattened into ClickHouse rows, reassembled by the API and rendered into toncenter's v2 and v3 shapes.
 * Invariant: everything both endpoints serve is derivable from these records alone, and every record is plain
 * JSON (64-bit quantities as decimal strings, hashes as standard base64, raw addresses as "wc:HEX" upper case).
 */

/** A 64-bit (or wider) integer as a decimal string, exactly as toncenter prints it. */
export type Int64String = string
/** 32 bytes as standard base64 with padding (44 characters). */
export type HashB64 = string
/** Raw address "<workchain>:<64 upper-case hex>". */
export type RawAddress = string
/** A bag of cells as standard base64, in the TON node's cell order with CRC32C (what toncenter serves). */
export type BocB64 = string
/** Extra currencies: currency id (decimal) -> amount (decimal string). Empty object when none. */
export type ExtraCurrencies = Record<string, Int64String>

export type AccountStatus = "uninit" | "frozen" | "active" | "nonexist"

export interface BlockId {
  readonly workchain: number
  /** Shard id as a signed 64-bit decimal string, the way toncenter v2 prints it ("-9223372036854775808"). */
  readonly shard: Int64String
  readonly seqno: number
}

export interface BlockIdExt extends BlockId {
  readonly root_hash: HashB64
  readonly file_hash: HashB64
}

/** The fields of a block header every shape of a block carries under toncenter's names (decoded, stored, served). */
export interface BlockHeaderFields {
  readonly global_id: number
  readonly version: number
  readonly flags: number
  readonly after_merge: boolean
  readonly after_split: boolean
  readonly before_split: boolean
  readonly want_merge: boolean
  readonly want_split: boolean
  readonly key_block: boolean
  readonly vert_seqno: number
  readonly validator_list_hash_short: number
  readonly gen_catchain_seqno: number
  readonly min_ref_mc_seqno: number
  readonly prev_key_block_seqno: number
  readonly gen_utime: number
  readonly start_lt: Int64String
  readonly end_lt: Int64String
}

/** The header fields of any block shape, and nothing else (rows and records carry more keys). */
export const headerFields = (h: BlockHeaderFields): BlockHeaderFields => ({
  global_id: h.global_id,
  version: h.version,
  flags: h.flags,
  after_merge: h.after_merge,
  after_split: h.after_split,
  before_split: h.before_split,
  want_merge: h.want_merge,
  want_split: h.want_split,
  key_block: h.key_block,
  vert_seqno: h.vert_seqno,
  validator_list_hash_short: h.validator_list_hash_short,
  gen_catchain_seqno: h.gen_catchain_seqno,
  min_ref_mc_seqno: h.min_ref_mc_seqno,
  prev_key_block_seqno: h.prev_key_block_seqno,
  gen_utime: h.gen_utime,
  start_lt: h.start_lt,
  end_lt: h.end_lt,
})

/**
 * Header fields toncenter v3 serves beyond v2's getBlockHeader. A source that reads the block itself fills them; a
 * source that only sees v2 headers leaves them out, and v3 then renders null.
 */
export interface BlockHeaderExtra {
  readonly vert_seqno_incr?: boolean
  /** The masterchain block a shard block refers to (BlockInfo master_ref); null for masterchain blocks. */
  readonly master_ref_seqno?: number | null
  /** BlockExtra rand_seed and created_by, base64. */
  readonly rand_seed?: HashB64
  readonly created_by?: HashB64
}

/** The extra header fields that are present, and nothing else. */
export const headerExtra = (h: BlockHeaderExtra): BlockHeaderExtra => {
  const out: { -readonly [K in keyof BlockHeaderExtra]: BlockHeaderExtra[K] } = {}
  if (h.vert_seqno_incr !== undefined) out.vert_seqno_incr = h.vert_seqno_incr
  if (h.master_ref_seqno !== undefined) out.master_ref_seqno = h.master_ref_seqno
  if (h.rand_seed !== undefined) out.rand_seed = h.rand_seed
  if (h.created_by !== undefined) out.created_by = h.created_by
  return out
}

/** A block header as the pipeline knows it (toncenter v2 getBlockHeader plus the committing masterchain block). */
export interface BlockRecord extends BlockHeaderFields, BlockHeaderExtra {
  readonly id: BlockIdExt
  /** Seqno of the masterchain block that commits this block (its own seqno for a masterchain block). */
  readonly mc_block_seqno: number
  /** Previous blocks (two after a merge). */
  readonly prev_blocks: ReadonlyArray<BlockIdExt>
  /** Number of transactions in this block. */
  readonly tx_count: number
}

export interface MessageContent {
  /** Cell hash of the body (or state init) cell. */
  readonly hash: HashB64
  /** The cell as a BOC in the node's cell order with CRC32C (byte-identical to toncenter). */
  readonly boc: BocB64
}

export type MessageType = "int" | "ext_in" | "ext_out"

export interface MessageRecord {
  readonly type: MessageType
  /** Message cell hash. */
  readonly hash: HashB64
  /** Normalized external-in hash; null unless the message is external-in AND the normalized hash differs. */
  readonly hash_norm: HashB64 | null
  /** null for the external side (and for non-std addresses). */
  readonly source: RawAddress | null
  readonly destination: RawAddress | null
  /** Internal messages only (null otherwise). */
  readonly value: Int64String | null
  readonly value_extra_currencies: ExtraCurrencies | null
  readonly fwd_fee: Int64String | null
  readonly ihr_fee: Int64String | null
  /** External-in only. */
  readonly import_fee: Int64String | null
  /** Internal and external-out. */
  readonly created_lt: Int64String | null
  readonly created_at: number | null
  /** First 32 bits of the body as an unsigned number; null when the body has fewer than 32 bits. */
  readonly opcode: number | null
  readonly ihr_disabled: boolean | null
  readonly bounce: boolean | null
  readonly bounced: boolean | null
  /** Body cell: always present (an empty body is the empty cell). Inline bodies are re-packed into their own cell. */
  readonly body: MessageContent
  readonly init_state: MessageContent | null
}

export interface StoragePhase {
  readonly storage_fees_collected: Int64String
  readonly storage_fees_due: Int64String | null
  readonly status_change: "unchanged" | "frozen" | "deleted"
}

export interface CreditPhase {
  readonly due_fees_collected: Int64String | null
  readonly credit: Int64String
  readonly credit_extra_currencies: ExtraCurrencies
}

export type ComputePhase =
  | { readonly skipped: true; readonly reason: "no_state" | "bad_state" | "no_gas" | "suspended" }
  | {
      readonly skipped: false
      readonly success: boolean
      readonly msg_state_used: boolean
      readonly account_activated: boolean
      readonly gas_fees: Int64String
      readonly gas_used: Int64String
      readonly gas_limit: Int64String
      readonly gas_credit: Int64String | null
      readonly mode: number
      readonly exit_code: number
      readonly exit_arg: number | null
      readonly vm_steps: number
      readonly vm_init_state_hash: HashB64
      readonly vm_final_state_hash: HashB64
    }

export interface ActionPhase {
  readonly success: boolean
  readonly valid: boolean
  readonly no_funds: boolean
  readonly status_change: "unchanged" | "frozen" | "deleted"
  readonly total_fwd_fees: Int64String | null
  readonly total_action_fees: Int64String | null
  readonly result_code: number
  readonly result_arg: number | null
  readonly tot_actions: number
  readonly spec_actions: number
  readonly skipped_actions: number
  readonly msgs_created: number
  readonly action_list_hash: HashB64
  readonly tot_msg_size: { readonly cells: Int64String; readonly bits: Int64String }
}

export type BouncePhase =
  | { readonly type: "negfunds" }
  | { readonly type: "nofunds"; readonly msg_size: { readonly cells: Int64String; readonly bits: Int64String }; readonly req_fwd_fees: Int64String }
  | {
      readonly type: "ok"
      readonly msg_size: { readonly cells: Int64String; readonly bits: Int64String }
      readonly msg_fees: Int64String
      readonly fwd_fees: Int64String
    }

export interface SplitInfo {
  readonly cur_shard_pfx_len: number
  readonly acc_split_depth: number
  readonly this_addr: RawAddress
  readonly sibling_addr: RawAddress
}

export type DescriptionType =
  | "ord"
  | "storage"
  | "tick_tock"
  | "split_prepare"
  | "split_install"
  | "merge_prepare"
  | "merge_install"

/** Transaction description; fields absent for a type are undefined (v3 omits them). */
export interface TxDescription {
  readonly type: DescriptionType
  readonly aborted?: boolean
  readonly destroyed?: boolean
  readonly credit_first?: boolean
  readonly is_tock?: boolean
  readonly installed?: boolean
  readonly storage_ph?: StoragePhase
  readonly credit_ph?: CreditPhase
  readonly compute_ph?: ComputePhase
  readonly action?: ActionPhase
  readonly bounce?: BouncePhase
  readonly split_info?: SplitInfo
}

/** An account state identified by the hash of its Account cell; fields null when only the hash is known. */
export interface AccountStateRecord {
  readonly hash: HashB64
  readonly account: RawAddress
  readonly balance: Int64String | null
  readonly extra_currencies: ExtraCurrencies | null
  readonly account_status: AccountStatus | null
  readonly frozen_hash: HashB64 | null
  readonly data_hash: HashB64 | null
  readonly code_hash: HashB64 | null
}

export interface TransactionRecord {
  readonly account: RawAddress
  readonly hash: HashB64
  readonly lt: Int64String
  readonly now: number
  readonly mc_block_seqno: number
  /** Computed at ingest (hash of the trace's root transaction); null when not yet known. */
  readonly trace_id: HashB64 | null
  readonly prev_trans_hash: HashB64
  readonly prev_trans_lt: Int64String
  readonly orig_status: AccountStatus
  readonly end_status: AccountStatus
  readonly total_fees: Int64String
  readonly total_fees_extra_currencies: ExtraCurrencies
  readonly description: TxDescription
  readonly block: BlockIdExt
  readonly in_msg: MessageRecord | null
  /** In the order of the transaction's out_msgs dictionary (index 0..n-1). */
  readonly out_msgs: ReadonlyArray<MessageRecord>
  /** HASH_UPDATE old / new hash of the Account cell. */
  readonly account_state_hash_before: HashB64
  readonly account_state_hash_after: HashB64
  /** The original transaction BOC as received from upstream (never re-serialized). */
  readonly boc: BocB64
}

/** One masterchain block with every shard block it commits: the unit of publishing, batching and visibility. */
export interface MasterchainBundle {
  readonly schema_version: 1
  readonly network: string
  readonly mc_seqno: number
  readonly mc_block: BlockRecord
  /** Every shard block committed by this masterchain block, including intermediate ones, ordered (workchain, shard, seqno). */
  readonly shard_blocks: ReadonlyArray<BlockRecord>
  /** The shard tops this masterchain block references (what v2 /shards returns). */
  readonly shard_tops: ReadonlyArray<BlockIdExt>
  /** All transactions of the masterchain block and the shard blocks, in (block, account, lt) order. */
  readonly transactions: ReadonlyArray<TransactionRecord>
  /** Account states known from enrichment (may be empty). */
  readonly account_states: ReadonlyArray<AccountStateRecord>
  /** Latest known code hash per account from enrichment, for the address book's bounceable rule (may be empty). */
  readonly code_hashes: Readonly<Record<RawAddress, HashB64 | null>>
  /**
   * The producer's decoding of the bundle's message bodies (what each `message_content.decoded` holds), so that a
   * reader at the same body decoder release need not decode them again. Absent in records of older producers.
   */
  readonly decoded_bodies?: DecodedBodies
}

/**
 * Message bodies' decodings as JSON text (Go's dialect, as the v3 API serves `message_content.decoded`), by body cell
 * hash: every body of the bundle whose decoding is not null; a body not named decodes to null.
 */
export interface DecodedBodies {
  /** The body decoder's release that made them (src/ton/bodies/version.ts). */
  readonly decoder_version: number
  readonly texts: Readonly<Record<HashB64, string>>
}
