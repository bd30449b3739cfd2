/**
 * Address forms toncenter prints and accepts: raw "wc:HEX" (upper case in v3 and in our records, lower case in the
 * Python v2 `account` field) and user-friendly base64 (bounceable or not, url-safe, testnet flag).
 * Invariant: every raw address leaving this module is "<wc>:<64 hex>" with the requested case; parsing never throws.
 */
import { Address } from "@ton/core"
import { Either } from "effect"
import type { RawAddress } from "./record.js"

const HEX = "0123456789ABCDEF"

/** Raw upper-case form from a workchain and a 32-byte account id. */
export const rawFromHash = (workchain: number, hash: Uint8Array): RawAddress => {
  let s = `${workchain}:`
  for (let i = 0; i < hash.length; i++) s += HEX[hash[i]! >> 4]! + HEX[hash[i]! & 15]!
  return s
}

/** Raw upper-case form from a workchain and a 256-bit account id. */
export const rawFromBigint = (workchain: number, id: bigint): RawAddress =>
  `${workchain}:${id.toString(16).toUpperCase().padStart(64, "0")}`

export const rawFromAddress = (address: Address): RawAddress => rawFromHash(address.workChain, address.hash)

/** Python ton-http-api prints the v2 `account` field in lower case. */
export const rawLower = (raw: RawAddress): string => raw.toLowerCase()

export interface FriendlyOptions {
  readonly bounceable: boolean
  readonly testnet: boolean
  /** toncenter always prints url-safe base64; the standard alphabet exists for completeness. */
  readonly urlSafe?: boolean
}

/**
 * Heap the friendly-form memo may take, and the entries that makes: a ~72-character key, a 48-character value and
 * the map's slot come to ~200 bytes. Emptied when full (the forms are cheap to make again); one memo per thread. At
 * 100,000 entries it held ~20 MB in each thread that renders addresses (the consumer's page rows among them).
 */
export const FRIENDLY_CACHE_BYTES = 4 * 1024 * 1024
export const FRIENDLY_CACHE_ENTRIES = Math.floor(FRIENDLY_CACHE_BYTES / 200)
// One map per combination of the three flags, keyed by the raw form itself: no key is built (and hashed) per call.
const friendlyCaches: ReadonlyArray<Map<string, string>> = Array.from({ length: 8 }, () => new Map<string, string>())
let friendlyEntries = 0

/** Entries in this thread's friendly-form memo (never more than FRIENDLY_CACHE_ENTRIES). */
export const friendlyCacheSize = (): number => friendlyEntries

/** User-friendly form; memoized because blocks repeat the same few addresses many times. */
export const toFriendly = (raw: RawAddress, opts: FriendlyOptions): string => {
  const cache = friendlyCaches[(opts.bounceable ? 4 : 0) | (opts.testnet ? 2 : 0) | (opts.urlSafe === false ? 0 : 1)]!
  const hit = cache.get(raw)
  if (hit !== undefined) return hit
  const value = Address.parseRaw(raw).toString({
    bounceable: opts.bounceable,
    testOnly: opts.testnet,
    urlSafe: opts.urlSafe !== false
  })
  if (friendlyEntries >= FRIENDLY_CACHE_ENTRIES) {
    for (const c of friendlyCaches) c.clear()
    friendlyEntries = 0
  }
  cache.set(raw, value)
  friendlyEntries++
  return value
}

/** The form tonlib prints in v2 `account_address`: bounceable, url-safe, never the testnet flag. */
export const toV2Friendly = (raw: RawAddress): string => toFriendly(raw, { bounceable: true, testnet: false })

export interface ParsedAddress {
  readonly raw: RawAddress
  readonly workchain: number
  /** Flags of a user-friendly input; null for raw input. */
  readonly bounceable: boolean | null
  readonly testnet: boolean | null
}

const RAW_RE = /^(-?\d+):([0-9a-fA-F]{64})$/
const FRIENDLY_RE = /^[A-Za-z0-9+/_-]{48}$/

/** Parses an address as users pass it to toncenter: raw (any hex case) or user-friendly (either alphabet). */
export const parseAddress = (input: string): Either.Either<ParsedAddress, string> => {
  const s = input.trim()
  const m = RAW_RE.exec(s)
  if (m !== null) {
    const workchain = Number(m[1])
    if (!Number.isInteger(workchain) || workchain < -128 || workchain > 127) return Either.left("invalid workchain")
    return Either.right({ raw: `${workchain}:${m[2]!.toUpperCase()}`, workchain, bounceable: null, testnet: null })
  }
  if (FRIENDLY_RE.test(s)) {
    try {
      const f = Address.parseFriendly(s)
      return Either.right({
        raw: rawFromAddress(f.address),
        workchain: f.address.workChain,
        bounceable: f.isBounceable,
        testnet: f.isTestOnly
      })
    } catch (e) {
      return Either.left(e instanceof Error ? e.message : "invalid address")
    }
  }
  return Either.left("invalid address")
}

/** Normalizes any accepted address form to the raw upper-case key our records use. */
export const normalizeAddress = (input: string): Either.Either<RawAddress, string> =>
  Either.map(parseAddress(input), (p) => p.raw)
