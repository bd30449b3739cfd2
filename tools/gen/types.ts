/**
 * The plain data the chain generator hands to the fake toncenter: transactions and masterchain bundles.
 * Invariant: GenBundle has exactly the fields of the upstream's raw masterchain bundle (blocks as BlockRecord, each
 * transaction with its block id and original BOC), so whatever serves upstream bundles can serve these unchanged.
 */
import type { AccountStateRecord, BlockIdExt, BlockRecord, BocB64, HashB64, RawAddress } from "../../src/ton/record.js"

/** An account's status as a transaction leaves it (the transaction's `end_status`). */
export type GenAccountStatus = "uninit" | "frozen" | "active" | "nonexist"

/** What a transaction leaves its account in: its state hash (`state_update.new_hash`) and status. */
export interface GenTxAfter {
  readonly hash: HashB64
  readonly status: GenAccountStatus
}

export interface GenTx {
  /** "wc:HEX" upper case. */
  readonly account: RawAddress
  readonly workchain: number
  readonly lt: string
  /** Transaction cell hash, standard base64. */
  readonly hash: HashB64
  /** The transaction in the node's BOC layout with CRC32C. */
  readonly boc: BocB64
  readonly now: number
  /** "generated" for emulated and derived transactions, "fixture" for recorded real ones. */
  readonly origin: "generated" | "fixture"
  /** The account after it; only the generator reads it (to build the bundle's account states), bundles leave it out. */
  readonly after?: GenTxAfter
}

/** The upstream's raw transaction fields plus `now` and `origin`, which the fake's chain model keeps. */
export interface GenBundleTx {
  readonly block: BlockIdExt
  readonly account: RawAddress
  readonly lt: string
  readonly hash: HashB64
  readonly boc: BocB64
  readonly now: number
  readonly origin: "generated" | "fixture"
}

export interface GenBundle {
  readonly mc_seqno: number
  readonly mc_block: BlockRecord
  /** Every shard block the masterchain block commits, ordered (workchain, shard as signed 64-bit, seqno). */
  readonly shard_blocks: ReadonlyArray<BlockRecord>
  readonly shard_tops: ReadonlyArray<BlockIdExt>
  /** Masterchain block first, then shard blocks in the order above; inside a block by (account, lt). */
  readonly transactions: ReadonlyArray<GenBundleTx>
  readonly account_states: ReadonlyArray<AccountStateRecord>
  readonly code_hashes: Readonly<Record<string, string | null>>
}
