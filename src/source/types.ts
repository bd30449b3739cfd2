/**
 * The data and error types of the upstream contract, apart from the service tag so that adapters can depend on them
 * without a cycle. Invariant: every upstream failure is one UpstreamError whose `reason` alone decides retries.
 */
import { Effect, Schema } from "effect"
import type { BlockFilesBundle } from "./liteserver/blockFiles.js"
import type { AccountStateRecord, BlockIdExt, BlockRecord, RawAddress } from "../ton/record.js"

export interface RawTransaction {
  readonly block: BlockIdExt
  readonly account: RawAddress
  readonly lt: string
  /** Standard base64 of the transaction cell hash. */
  readonly hash: string
  /** Base64 BOC exactly as upstream sent it. */
  readonly boc: string
}

export interface RawMasterchainBundle {
  readonly mc_seqno: number
  readonly mc_block: BlockRecord
  /** Every shard block the masterchain block commits, ordered (workchain, shard, seqno). */
  readonly shard_blocks: ReadonlyArray<BlockRecord>
  readonly shard_tops: ReadonlyArray<BlockIdExt>
  readonly transactions: ReadonlyArray<RawTransaction>
  readonly account_states: ReadonlyArray<AccountStateRecord>
  readonly code_hashes: Readonly<Record<string, string | null>>
}

export class UpstreamError extends Schema.TaggedError<UpstreamError>()("UpstreamError", {
  reason: Schema.Literal("rate_limited", "server_error", "timeout", "malformed", "not_found", "network", "bad_request"),
  message: Schema.String,
  url: Schema.optional(Schema.String)
}) {}

export type UpstreamErrorReason = UpstreamError["reason"]

/** Reasons worth another attempt: the same request may succeed later. */
export const retryableReasons: ReadonlySet<UpstreamErrorReason> = new Set([
  "rate_limited",
  "server_error",
  "timeout",
  "network",
  "malformed"
])

export interface UpstreamService {
  /** Latest masterchain seqno. */
  readonly head: Effect.Effect<number, UpstreamError>
  readonly bundle: (mcSeqno: number) => Effect.Effect<RawMasterchainBundle, UpstreamError>
  /**
   * The same bundle as the block files it is read from (the liteserver source), for a decoder that reads them whole
   * off this thread: completeBlockFiles of it equals `bundle`'s.
   */
  readonly bundleFiles?: (mcSeqno: number) => Effect.Effect<BlockFilesBundle, UpstreamError>
}

/** A further toncenter v2 endpoint: its own base URL, key and requests per second (default 10 with a key, else 1). */
export interface ToncenterEndpoint {
  readonly url: string
  readonly apiKey?: string | undefined
  readonly rps?: number | undefined
}

/** How to reach toncenter; mirrors the TONCENTER_* settings. */
export interface ToncenterOptions {
  /** v2 base, with or without the trailing `/api/v2`. */
  readonly url: string
  readonly apiKey?: string | undefined
  /** v3 base; account-state enrichment runs only when it is set. */
  readonly v3Url?: string | undefined
  /**
   * v3 base to read block headers from: `/blocks` once per masterchain block instead of v2 getBlockHeader once per
   * block. Sent with the first endpoint's key, at its rate.
   */
  readonly v3BlocksUrl?: string | undefined
  readonly rps?: number | undefined
  /** More v2 endpoints beside `url`; v2 requests spread over all of them, each paced by its own rate. */
  readonly endpoints?: ReadonlyArray<ToncenterEndpoint> | undefined
  /** Requests in flight, per endpoint. */
  readonly concurrency?: number | undefined
  readonly timeoutMs?: number | undefined
  readonly retries?: number | undefined
  /** First retry delay; later ones grow exponentially with jitter. */
  readonly retryBaseMs?: number | undefined
  readonly retryMaxMs?: number | undefined
  /** Transactions asked per getBlockTransactionsExt page (1..10000, toncenter's bound; default 1024). */
  readonly pageSize?: number | undefined
}
