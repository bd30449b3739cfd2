/**
 * Pure request and response logic of toncenter v2 (ton-http-api, Python) for the block methods we serve.
 * Invariants (reference §1.2): transactions are ordered (account id, lt) ascending, the (account, lt)
 * cursor is exclusive, `req_count` = min(count, 256) and `incomplete` is true exactly when `count`
 * transactions were returned, as pytonlib's chunked liteserver loop reports it.
 */
import { invalid } from "../errors.js"
import type { AccountCursor } from "../../store/TxStore.js"
import type { BlockId } from "../../ton/record.js"
import {
  INT32_MAX,
  INT32_MIN,
  optionalInt,
  parseAccountId,
  parseHash,
  parseLt,
  parseShard,
  requiredInt,
  type QueryValue
} from "./params.js"

/** The liteserver's per-call answer limit; pytonlib asks in chunks of this size and reports the first chunk's count. */
export const LITESERVER_CHUNK = 256
export const DEFAULT_COUNT = 40
/** Our bound on `count` (the Python server has none; the C++ one stops at 10000): keeps one answer bounded. */
export const MAX_COUNT = 10000

export interface BlockTransactionsExtRequest {
  readonly id: BlockId
  /** Both hashes (standard base64) when the client gave both; the Python server ignores a lone one. */
  readonly hashes: { readonly root_hash: string; readonly file_hash: string } | null
  readonly after: AccountCursor | null
  readonly count: number
}

const ZERO_ACCOUNT = "0".repeat(64)

export const parseBlockTransactionsExt = (q: Readonly<Record<string, QueryValue>>): BlockTransactionsExtRequest => {
  const workchain = requiredInt("workchain", q.workchain, INT32_MIN, INT32_MAX)
  const shard = parseShard("shard", q.shard)
  const seqno = requiredInt("seqno", q.seqno, 0n, INT32_MAX)
  const rootHash = parseHash("root_hash", q.root_hash)
  const fileHash = parseHash("file_hash", q.file_hash)
  const afterLt = parseLt("after_lt", q.after_lt)
  const afterAccount = parseAccountId("after_hash", q.after_hash)
  const count = optionalInt("count", q.count, -(2n ** 63n), 2n ** 63n - 1n) ?? DEFAULT_COUNT
  if (count < 1) throw invalid(`count: should be positive, got ${count}`)
  if (count > MAX_COUNT) throw invalid(`count: should be less or equal ${MAX_COUNT}, got ${count}`)
  // pytonlib always sends the AFTER cursor, defaulting each half to zero: (zero account, lt) still skips
  // nothing but the zero account's transactions up to lt, exactly like the liteserver walk.
  const after =
    afterLt === undefined && afterAccount === undefined
      ? null
      : { account: afterAccount ?? ZERO_ACCOUNT, lt: afterLt ?? "0" }
  return {
    id: { workchain, shard, seqno },
    hashes: rootHash !== undefined && fileHash !== undefined ? { root_hash: rootHash, file_hash: fileHash } : null,
    after,
    count
  }
}

export interface PageInfo {
  readonly req_count: number
  readonly incomplete: boolean
}

export const pageInfo = (count: number, returned: number): PageInfo => ({
  req_count: Math.min(count, LITESERVER_CHUNK),
  incomplete: returned >= count
})

/** The cursor a client passes to get the page after `last` (what pytonlib itself feeds back). */
export const cursorAfter = (last: { readonly account: string; readonly lt: string }): AccountCursor => ({
  account: last.account.slice(last.account.indexOf(":") + 1).toUpperCase(),
  lt: last.lt
})

/**
 * pytonlib's `@extra`: "<unix time + request timeout>:<liteserver index>:<random float>", each part printed
 * the way Python prints a float (always with a fractional part, never in exponent notation for these ranges).
 */
export const makeExtra = (nowMs: number, timeoutSeconds: number, lsIndex: number, random: number): string =>
  `${pyFloat(nowMs / 1000 + timeoutSeconds)}:${lsIndex}:${pyFloat(random)}`

const pyFloat = (x: number): string => {
  const s = String(x)
  if (s.includes("e")) return x.toFixed(20).replace(/0+$/, "")
  return s.includes(".") ? s : `${s}.0`
}

export const blockIdText = (id: BlockId): string =>
  `(${id.workchain},${BigInt.asUintN(64, BigInt(id.shard)).toString(16).padStart(16, "0")}) seqno=${id.seqno}`

/** The v2 success envelope, in ton-http-api's key order. */
export const okEnvelope = <T>(result: T): { ok: true; result: T } => ({ ok: true, result })

/** ton-http-api's JSON-RPC envelope: the REST envelope plus `id` (always a string there) and `jsonrpc`. */
export const jsonRpcEnvelope = (
  body: { readonly ok: boolean; readonly result?: unknown; readonly error?: string; readonly code?: number },
  id: string | null
): Record<string, unknown> => {
  const out: Record<string, unknown> = { ok: body.ok }
  if (body.result !== undefined && body.result !== null) out.result = body.result
  if (body.error !== undefined) out.error = body.error
  if (body.code !== undefined) out.code = body.code
  if (id !== null) out.id = id
  out.jsonrpc = "2.0"
  return out
}

/** JSON-RPC `id` as pydantic coerces it into `str`; null when the request carried none. */
export const jsonRpcId = (raw: unknown): string | null => {
  if (raw === undefined || raw === null) return null
  if (typeof raw === "string") return raw
  if (typeof raw === "number" || typeof raw === "bigint") return String(raw)
  if (typeof raw === "boolean") return raw ? "True" : "False"
  throw invalid("id: must be a string or a number")
}
