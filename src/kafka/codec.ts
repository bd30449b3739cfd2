/**
 * Wire format of the project's topics: JSON values, the mc seqno as key, and headers that let a subscriber route or
 * skip a record without parsing it. Invariant: encoding is a pure function of the record, so a republished bundle
 * is byte-identical (the consumer's deduplication tokens rely on content hashes of what it decodes).
 */
import { Either } from "effect"
import type { IHeaders, KafkaMessage } from "kafkajs"
import type { BlockId, BlockIdExt, MasterchainBundle } from "../ton/record.js"
import { CodecError } from "./errors.js"

export const SCHEMA_VERSION = 1

/** An input the producer could not turn into records; published instead of being silently dropped. */
export interface DeadLetter {
  readonly schema_version: 1
  readonly network: string
  readonly mc_seqno: number
  readonly kind: "transaction" | "block"
  /** The block the input belongs to (without hashes when the block itself could not be read). */
  readonly block: BlockId | BlockIdExt | null
  /** Transaction hash when it could be computed (the BOC parsed but did not decode). */
  readonly tx_hash: string | null
  /** Machine-readable reason tag, e.g. the decoder's error reason. */
  readonly reason: string
  /** Human-readable detail. */
  readonly detail: string
  /** The raw input (transaction BOC, base64), when there is one. */
  readonly payload: string | null
}

export interface EncodedMessage {
  readonly key: string
  readonly value: Buffer
  readonly headers: IHeaders
}

export const bundleKey = (mcSeqno: number): string => String(mcSeqno)

export const encodeBundle = (bundle: MasterchainBundle, deadLetters: number): EncodedMessage => ({
  key: bundleKey(bundle.mc_seqno),
  value: Buffer.from(JSON.stringify(bundle)),
  headers: {
    schema_version: String(SCHEMA_VERSION),
    mc_seqno: String(bundle.mc_seqno),
    network: bundle.network,
    tx_count: String(bundle.transactions.length),
    dead_letters: String(deadLetters)
  }
})

export const encodeDeadLetter = (letter: DeadLetter): EncodedMessage => ({
  key: bundleKey(letter.mc_seqno),
  value: Buffer.from(JSON.stringify(letter)),
  headers: {
    schema_version: String(SCHEMA_VERSION),
    mc_seqno: String(letter.mc_seqno),
    network: letter.network,
    kind: letter.kind,
    reason: letter.reason
  }
})

const headerString = (headers: IHeaders | undefined, name: string): string | undefined => {
  const v = headers?.[name]
  if (v === undefined) return undefined
  const first = Array.isArray(v) ? v[0] : v
  return first === undefined ? undefined : first.toString()
}

/** Reads the mc seqno from the header without parsing the value (used when scanning the topic's tail). */
export const messageMcSeqno = (message: Pick<KafkaMessage, "headers" | "key">): number | undefined => {
  const raw = headerString(message.headers, "mc_seqno") ?? message.key?.toString()
  const n = raw === undefined ? NaN : Number(raw)
  return Number.isSafeInteger(n) ? n : undefined
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null

/** Parses and shape-checks a bundle; a major version we do not know is refused, never half-read. */
export const decodeBundle = (value: Buffer | null): Either.Either<MasterchainBundle, CodecError> => {
  if (value === null) return Either.left(new CodecError({ reason: "shape", message: "tombstone in bundle topic" }))
  let parsed: unknown
  try {
    parsed = JSON.parse(value.toString("utf8"))
  } catch (e) {
    return Either.left(new CodecError({ reason: "json", message: e instanceof Error ? e.message : String(e) }))
  }
  if (!isObject(parsed)) return Either.left(new CodecError({ reason: "shape", message: "bundle is not an object" }))
  if (parsed["schema_version"] !== SCHEMA_VERSION) {
    return Either.left(
      new CodecError({ reason: "version", message: `unsupported schema_version ${String(parsed["schema_version"])}` })
    )
  }
  const ok =
    Number.isSafeInteger(parsed["mc_seqno"]) &&
    typeof parsed["network"] === "string" &&
    isObject(parsed["mc_block"]) &&
    Array.isArray(parsed["shard_blocks"]) &&
    Array.isArray(parsed["shard_tops"]) &&
    Array.isArray(parsed["transactions"]) &&
    Array.isArray(parsed["account_states"]) &&
    isObject(parsed["code_hashes"])
  if (!ok) return Either.left(new CodecError({ reason: "shape", message: "bundle lacks required fields" }))
  return Either.right(parsed as unknown as MasterchainBundle)
}

export const decodeDeadLetter = (value: Buffer | null): Either.Either<DeadLetter, CodecError> => {
  if (value === null) return Either.left(new CodecError({ reason: "shape", message: "tombstone" }))
  try {
    const parsed: unknown = JSON.parse(value.toString("utf8"))
    if (!isObject(parsed) || parsed["schema_version"] !== SCHEMA_VERSION || typeof parsed["reason"] !== "string") {
      return Either.left(new CodecError({ reason: "shape", message: "not a dead letter v1" }))
    }
    return Either.right(parsed as unknown as DeadLetter)
  } catch (e) {
    return Either.left(new CodecError({ reason: "json", message: e instanceof Error ? e.message : String(e) }))
  }
}
