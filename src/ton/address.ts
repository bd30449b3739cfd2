/**
 * Address forms toncenter prints and accepts: raw "wc:HEX" (upper case in v3 and in our records, lower case in the
 * Python v2 `account` field) and user-friendly base64 (bounceable or not, url-safe, testnet flag).
 * Invariant: every raw address leaving this module is "<wc>:<64 hex>" with the requested case; parsing never throws.
 */
import { Address } from "@ton/core"
import { Either } from "effect"
import { friendlyForm } from "./friendlyForm.js"
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
 * User-friendly form. Made each time, no memo: the owned encoder (friendlyForm.ts) costs about two lookups of a map
 * keyed by the raw form, and on a store of tens of thousands of accounts a page's addresses mostly missed the memo.
 */
export const toFriendly = (raw: RawAddress, opts: FriendlyOptions): string =>
  friendlyForm(raw, opts.bounceable, opts.testnet, opts.urlSafe !== false)

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
