/**
 * Raw upstream bundle -> canonical MasterchainBundle plus dead letters. Pure: the decoder is passed in.
 * Invariant: a transaction that does not decode is never dropped silently; it becomes a dead letter carrying its BOC
 * and the reason, and the block keeps upstream's tx_count, so `tx_count` minus stored transactions shows the gap.
 */
import { Either } from "effect"
import { encodeBundle, type DeadLetter, type EncodedMessage } from "../kafka/codec.js"
import { draftTransactions, type Drafts, NO_DRAFTS } from "../kafka/transactions.js"
import type { RawMasterchainBundle, RawTransaction } from "../source/Upstream.js"
import { BODY_DECODER_VERSION } from "../ton/bodies/version.js"
import { decodeTransaction } from "../ton/decode.js"
import { decodeTransactionFast } from "../ton/fast/decode.js"
import type { AccountStateRecord, BlockIdExt, MasterchainBundle, TransactionRecord } from "../ton/record.js"
import { gatherBodyTexts } from "../ton/v3Text.js"
import { assignTraceIds } from "../trace/traceIds.js"

export interface DecodeFailure {
  readonly reason: string
  readonly message: string
  readonly hash?: string | undefined
}

export type DecodeTransaction = (
  boc: string,
  context: { readonly block: BlockIdExt; readonly mc_block_seqno: number }
) => Either.Either<TransactionRecord, DecodeFailure>

/**
 * The decoder the pipeline runs: the fast path (src/ton/fast), whose records and errors equal the @ton/core path's.
 * Message bodies holding exotic cells (Merkle proofs and updates) are kept rather than dead-lettered: they are real
 * on-chain transactions that toncenter serves, and dropping them would leave a gap.
 */
export const pipelineDecode: DecodeTransaction = (boc, context) =>
  decodeTransactionFast(boc, context, { exoticBodies: "keep" })

/** The same decoding through @ton/core alone: the reference the fast path is compared with. */
export const referenceDecode: DecodeTransaction = (boc, context) =>
  decodeTransaction(boc, context, { exoticBodies: "keep" })

export interface Assembled {
  readonly bundle: MasterchainBundle
  readonly deadLetters: ReadonlyArray<DeadLetter>
}

const noHistory = { get: () => undefined }

export interface Decoded {
  readonly transactions: ReadonlyArray<TransactionRecord>
  readonly deadLetters: ReadonlyArray<DeadLetter>
}

/**
 * Decodes a run of a bundle's transactions, in order. Runs on any thread: a big bundle is decoded in slices whose
 * results, concatenated in order, equal the whole run's.
 */
export const decodeTransactions = (
  txs: ReadonlyArray<RawTransaction>,
  mcSeqno: number,
  network: string,
  decode: DecodeTransaction
): Decoded => {
  const transactions: Array<TransactionRecord> = []
  const deadLetters: Array<DeadLetter> = []
  for (const rt of txs) {
    let result: Either.Either<TransactionRecord, DecodeFailure>
    try {
      result = decode(rt.boc, { block: rt.block, mc_block_seqno: mcSeqno })
    } catch (e) {
      // A decoder defect on one transaction must not stop the chain; it is dead-lettered like a bad input.
      result = Either.left({ reason: "decoder_defect", message: e instanceof Error ? e.message : String(e) })
    }
    if (Either.isRight(result)) transactions.push(result.right)
    else
      deadLetters.push({
        schema_version: 1,
        network,
        mc_seqno: mcSeqno,
        kind: "transaction",
        block: rt.block,
        // The hash upstream lists the transaction under: what a reader of the dead letter can look up.
        tx_hash: rt.hash,
        reason: result.left.reason,
        detail: result.left.message,
        payload: rt.boc
      })
  }
  return { transactions, deadLetters }
}

/** The bundle from its raw header fields and all of its decoded transactions (in upstream order). */
export const finishBundle = (raw: RawMasterchainBundle, network: string, decoded: Decoded): Assembled => {
  // Within one bundle every trace whose root is here is known; parents in earlier bundles are left for the consumer.
  const [traced] = assignTraceIds([decoded.transactions], noHistory, "leave-null")
  return {
    bundle: {
      schema_version: 1,
      network,
      mc_seqno: raw.mc_seqno,
      mc_block: raw.mc_block,
      shard_blocks: raw.shard_blocks,
      shard_tops: raw.shard_tops,
      transactions: traced ?? [],
      account_states: raw.account_states,
      code_hashes: raw.code_hashes
    },
    deadLetters: decoded.deadLetters
  }
}

export const assembleBundle = (raw: RawMasterchainBundle, network: string, decode: DecodeTransaction): Assembled =>
  finishBundle(raw, network, decodeTransactions(raw.transactions, raw.mc_seqno, network, decode))

/**
 * A masterchain block ready to publish: its bundle already encoded as the Kafka record (or null when the whole block
 * is dead-lettered), its dead letters, and the counts the producer reports. Encoding where the bundle is decoded
 * lets the records be dropped at once: a prefetched bundle waits as compact bytes, not as objects.
 */
export interface Prepared {
  readonly mcSeqno: number
  readonly bundle: EncodedMessage | null
  readonly deadLetters: ReadonlyArray<DeadLetter>
  /** The masterchain block plus its shard blocks (0 when dead-lettered). */
  readonly blocks: number
  readonly transactions: number
  /** The transactions topic's drafts, in the bundle's transaction order (the publish step completes them). */
  readonly drafts: Drafts
  /** The bundle's account states: the publish step remembers them for later bundles' records. */
  readonly accountStates: ReadonlyArray<AccountStateRecord>
}

/**
 * The record carries the bodies' texts its drafts rendered (`decoded_bodies`, tagged with the body decoder's release),
 * so that the consumer takes them instead of decoding every body again.
 */
export const prepare = ({ bundle, deadLetters }: Assembled): Prepared => {
  const [drafts, texts] = gatherBodyTexts(() => draftTransactions(bundle))
  const shipped: MasterchainBundle = { ...bundle, decoded_bodies: { decoder_version: BODY_DECODER_VERSION, texts } }
  return {
    mcSeqno: bundle.mc_seqno,
    bundle: encodeBundle(shipped, deadLetters.length),
    deadLetters,
    blocks: 1 + bundle.shard_blocks.length,
    transactions: bundle.transactions.length,
    drafts,
    accountStates: bundle.account_states
  }
}

/** A masterchain block that upstream could not deliver in a usable form: its dead letter, and nothing to publish. */
export const deadBundle = (network: string, mcSeqno: number, reason: string, detail: string): Prepared => ({
  mcSeqno,
  bundle: null,
  deadLetters: [blockDeadLetter(network, mcSeqno, reason, detail)],
  blocks: 0,
  transactions: 0,
  drafts: NO_DRAFTS,
  accountStates: []
})

/** The dead letter for a whole masterchain block that upstream could not deliver in a usable form. */
export const blockDeadLetter = (network: string, mcSeqno: number, reason: string, detail: string): DeadLetter => ({
  schema_version: 1,
  network,
  mc_seqno: mcSeqno,
  kind: "block",
  block: { workchain: -1, shard: "-9223372036854775808", seqno: mcSeqno },
  tx_hash: null,
  reason,
  detail,
  payload: null
})
