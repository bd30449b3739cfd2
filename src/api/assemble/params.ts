/**
 * Pure parsing of query parameters into typed values, shared by every route and by JSON-RPC params.
 * Invariant: each function either returns a value inside the documented range or throws an ApiError
 * (422) whose message starts with the parameter name, so bad input never reaches the store.
 */
import { Address } from "@ton/core"
import { invalid } from "../errors.js"

/** A raw query value as Fastify hands it over (repeated keys become arrays). */
export type QueryValue = string | number | boolean | ReadonlyArray<unknown> | null | undefined | object

export const INT32_MIN = -(2n ** 31n)
export const INT32_MAX = 2n ** 31n - 1n
export const INT64_MIN = -(2n ** 63n)
export const INT64_MAX = 2n ** 63n - 1n

const DECIMAL = /^[+-]?[0-9]{1,30}$/

/** The text of a single-valued parameter, or undefined when absent or empty. */
export const single = (name: string, raw: QueryValue): string | undefined => {
  if (raw === undefined || raw === null) return undefined
  if (Array.isArray(raw)) throw invalid(`${name}: given more than once`)
  if (typeof raw === "number") {
    if (!Number.isSafeInteger(raw))
      throw invalid(`${name}: ${raw} is not an exact integer; send large numbers as strings`)
    return String(raw)
  }
  if (typeof raw === "boolean") return String(raw)
  if (typeof raw !== "string") throw invalid(`${name}: must be a scalar value`)
  return raw === "" ? undefined : raw
}

export const parseBigInt = (name: string, text: string, min: bigint, max: bigint): bigint => {
  if (!DECIMAL.test(text)) throw invalid(`${name}: must be a decimal integer, got ${quote(text)}`)
  const value = BigInt(text)
  if (value < min || value > max) throw invalid(`${name}: ${value} is out of range [${min}, ${max}]`)
  return value
}

export const requiredInt = (name: string, raw: QueryValue, min: bigint, max: bigint): number => {
  const text = single(name, raw)
  if (text === undefined) throw invalid(`${name}: field required`)
  return Number(parseBigInt(name, text, min, max))
}

export const optionalInt = (name: string, raw: QueryValue, min: bigint, max: bigint): number | undefined => {
  const text = single(name, raw)
  return text === undefined ? undefined : Number(parseBigInt(name, text, min, max))
}

/** A shard id as toncenter v2 takes it: a signed 64-bit decimal; returned normalized ("-9223372036854775808"). */
export const parseShard = (name: string, raw: QueryValue): string => {
  const text = single(name, raw)
  if (text === undefined) throw invalid(`${name}: field required`)
  const value = parseBigInt(name, text, INT64_MIN, INT64_MAX)
  if (value === 0n) throw invalid(`${name}: 0 is not a shard id (a shard id has at least one bit set)`)
  return value.toString()
}

const HEX64 = /^[0-9a-fA-F]{64}$/
const B64_44 = /^[A-Za-z0-9+/_-]{43}=$/

/** A 32-byte hash in any form toncenter accepts (hex, base64, url-safe base64), or null when not a hash. */
export const hashBytes = (text: string): Buffer | null => {
  if (HEX64.test(text)) return Buffer.from(text, "hex")
  if (B64_44.test(text)) {
    const bytes = Buffer.from(text.replace(/_/g, "/").replace(/-/g, "+"), "base64")
    return bytes.length === 32 ? bytes : null
  }
  return null
}

/** A hash parameter normalized to standard base64 (the form the store keeps). */
export const parseHash = (name: string, raw: QueryValue): string | undefined => {
  const text = single(name, raw)
  if (text === undefined) return undefined
  const bytes = hashBytes(text)
  if (bytes === null) {
    throw invalid(`${name}: must be 32 bytes as hex (64 digits) or base64 / url-safe base64 (44 characters)`)
  }
  return bytes.toString("base64")
}

/** An account id (the 256-bit address without workchain) as 64 upper-case hex: from a hash form or any address form. */
export const parseAccountId = (name: string, raw: QueryValue): string | undefined => {
  const text = single(name, raw)
  if (text === undefined) return undefined
  const bytes = hashBytes(text)
  if (bytes !== null) return bytes.toString("hex").toUpperCase()
  if (text.length <= 80) {
    try {
      return Address.parse(text).hash.toString("hex").toUpperCase()
    } catch {
      // falls through to the error below: neither a hash nor an address
    }
  }
  throw invalid(`${name}: must be an account id (hex, base64 or url-safe base64 of 32 bytes) or an address`)
}

/** A logical time: unsigned, below 2^63 (tonlib's int64). */
export const parseLt = (name: string, raw: QueryValue): string | undefined => {
  const text = single(name, raw)
  return text === undefined ? undefined : parseBigInt(name, text, 0n, INT64_MAX).toString()
}

const quote = (text: string): string => JSON.stringify(text.length > 40 ? `${text.slice(0, 40)}...` : text)
