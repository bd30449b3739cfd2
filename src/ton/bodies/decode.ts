/**
 * Message bodies decoded as toncenter's v3 serves them (ton-index-go's detect/marker.go over its ton-marker
 * library): `decoded_opcode` is the marker's own name for the opcode (opcodeNames.ts), `decoded` is the TL-B JSON
 * of the body, with every nested cell printed as a BOC replaced by its own decoding when it decodes (ten levels
 * deep at most). Invariants: the same body always decodes to the same value; anything that does not parse is null,
 * never a partial object; a top-level text comment gets toncenter's back-compatible shape
 * {"@type":"text_comment","comment":...,"type":"text_comment"}; an empty body is {"@type":"empty_cell"}.
 */
import { Cell, type Slice } from "@ton/core"
import { Lru, type LruStats } from "../../trace/Lru.js"
import { CellValue, type Cons, EMPTY_ENV, Interpreter, markerBoc, NO_PARSE, Scheme, SchemeError, type TlbJson } from "./interpret.js"
import { loadSmallUint } from "./bits.js"
import { OPCODE_NAMES } from "./opcodeNames.js"
import { storedBodyScheme } from "./scheme.js"
import { withLazyCellHashes } from "../fastHash.js"

/** Decoded JSON: strings, booleans (one-bit fields) and objects (every cell already printed or decoded). */
export type DecodedBody = string | boolean | { readonly [key: string]: DecodedBody }

/**
 * The scheme's interpreter and its body constructors by 32-bit opcode, in the order the marker tries its body types
 * (InternalMsgBody ones in scheme order, then ExternalMsgBody ones, then ForwardPayload ones), made on first use from
 * the stored syntax tree (./scheme.ts; parsing the scheme's text costs 1-2 s of CPU, loading the tree milliseconds).
 */
let tables: { readonly interpreter: Interpreter; readonly byOpcode: Map<number, Array<Cons>> } | undefined
const BODY_TYPES = ["InternalMsgBody", "ExternalMsgBody", "ForwardPayload"]
const schemeTables = () => {
  if (tables !== undefined) return tables
  const scheme = new Scheme(storedBodyScheme())
  const byOpcode = new Map<number, Array<Cons>>()
  for (const cons of BODY_TYPES.flatMap((t) => scheme.constructors(t))) {
    if (cons.tagBits.length !== 32 || cons.name === null) continue
    const op = parseInt(cons.tagBits, 2)
    const list = byOpcode.get(op)
    if (list) list.push(cons)
    else byOpcode.set(op, [cons])
  }
  tables = { interpreter: new Interpreter(scheme), byOpcode }
  return tables
}

const names = new Map<number, string>(OPCODE_NAMES)

/**
 * The name toncenter gives an opcode (`decoded_opcode`): every opcode the marker knows is named, including the many
 * whose bodies we do not decode; null for the others.
 */
export const opcodeName = (opcode: number | null): string | null =>
  opcode === null ? null : (names.get(opcode >>> 0) ?? null)

/** Known opcode names, for analytics and tests. */
export const knownOpcodes = (): ReadonlyMap<number, string> => names

const attempt = (read: () => TlbJson): TlbJson | null => {
  try {
    return read()
  } catch (e) {
    if (e === NO_PARSE) return null
    if (e instanceof SchemeError) throw e
    // @ton/core throws plain errors when a read runs past the end of a cell: a body that does not fit.
    return null
  }
}

/** Cells in a chain of first refs before an empty or exotic one (ton-marker's count_actions_depth). */
const chainDepth = (root: Cell | null): number => {
  if (root === null) return 0
  let i = -1
  let cur: Cell | null = root
  while (cur !== null) {
    i++
    if (cur.isExotic) break
    cur = cur.refs[0] ?? null
  }
  return i
}

const W5_NAMES = new Set(["w5_internal_signed_request", "w5_external_signed_request", "w5_extension_action_request"])

/**
 * The action counts a W5 body's snake lists hold, which TL-B alone cannot know; null when the extended actions'
 * chain reaches an exotic cell, which the marker opens as an ordinary one and fails on (its line is "unknown").
 */
const w5Counts = (cell: Cell, extension: boolean): [number, number] | null => {
  const s = cell.beginParse(true)
  s.skip(32 + (extension ? 64 : 96))
  const hasOut = s.loadBit()
  const hasExt = s.loadBit()
  let out = 0
  if (hasOut && s.remainingRefs > 0) out = chainDepth(s.loadRef())
  let ext = 0
  if (hasExt) {
    ext = 1
    let cur: Slice = s
    while (cur.remainingRefs > 0) {
      ext++
      const next = cur.loadRef()
      if (next.isExotic) return null
      cur = next.beginParse()
    }
  }
  return [out, ext - 1]
}

const fullyRead = (cell: Cell, type: string, args: ReadonlyArray<number>): TlbJson | null =>
  attempt(() => {
    const s = cell.beginParse(true)
    const v = schemeTables().interpreter.typed(type, args, EMPTY_ENV, s)
    if (s.remainingBits !== 0 || s.remainingRefs !== 0) throw NO_PARSE
    return v
  })

/**
 * A preprocessed wallet v2 body (a signature and a ref to the signed part, whose first ref holds the actions), read
 * with the action count of that ref's chain; tried only when the chain holds at least one action.
 */
const preprocessedV2 = (cell: Cell, inner: Cell): TlbJson | null => {
  const actions = inner.refs[0]
  const n = actions === undefined ? 0 : chainDepth(actions)
  return n > 0 ? fullyRead(cell, "PreprocessedWalletV2MsgBody", [n]) : null
}

/**
 * Thrown when the marker's output for a body is not JSON: a v5 or highload-v3 internal request that its counted
 * parser fails to read leaves that parser's unfinished output in place (special.cpp resets it only for the
 * wallet layouts), so the line is never valid JSON, and ton-index-go serves null for the whole body, also when
 * the request is nested (its text is spliced into the enclosing JSON).
 */
const INVALID_OUTPUT: unique symbol = Symbol("invalid marker output")

const orInvalid = (v: TlbJson | null): TlbJson => {
  if (v === null) throw INVALID_OUTPUT
  return v
}

/** Bodies read by code that knows counts (wallets), tried before the scheme's opcode constructors. */
const special = (cell: Cell, name: string | null): TlbJson | null | undefined => {
  if (name !== null && W5_NAMES.has(name)) {
    let counts: [number, number] | null
    try {
      counts = w5Counts(cell, name === "w5_extension_action_request")
    } catch {
      // Too short for the fields before the actions: the counted parser fails below.
      counts = [0, 0]
    }
    if (counts === null) return null
    const [m, n] = counts
    return orInvalid(attempt(() => schemeTables().interpreter.typed("W5MsgBody", [m, n], EMPTY_ENV, cell.beginParse(true))))
  }
  if (name === "highload_v3_internal_request") {
    const n = chainDepth(cell.refs[0] ?? null)
    return orInvalid(attempt(() => schemeTables().interpreter.typed("HighloadV3InternalRequest", [n], EMPTY_ENV, cell.beginParse(true))))
  }
  if (name === null) {
    // Each layout must be read to the last bit, so its exact size rules most bodies out before any parsing:
    // highload v3 is a signature and one ref, highload v2 fixed fields and a dictionary bit (its root a ref),
    // highload v1 fixed fields and a ref; v3 and v1/v2 are fixed fields plus a mode byte per message ref.
    const refs = cell.refs.length
    const bits = cell.bits.length
    const first = cell.refs[0]
    // The marker opens the first ref as an ordinary cell to look for a preprocessed wallet v2 message; an exotic one
    // throws, and the body is not decoded at all.
    if (first?.isExotic) return null
    return (
      (bits === 512 && refs === 1 ? preprocessedV2(cell, first!) : null) ??
      (bits === 512 && refs === 1 ? fullyRead(cell, "HighloadV3MsgBody", []) : null) ??
      (bits === 512 + 96 + 1 && refs <= 1 ? fullyRead(cell, "HighloadV2MsgBody", []) : null) ??
      (bits === 512 + 96 && refs === 1 ? fullyRead(cell, "HighloadV1MsgBody", []) : null) ??
      (bits >= 512 + 96 + 8 ? fullyRead(cell, "W4MsgBody", [refs]) : null) ??
      (bits === 512 + 96 + 8 * refs ? fullyRead(cell, "W3MsgBody", [refs]) : null) ??
      (bits === 512 + 64 + 8 * refs ? fullyRead(cell, "W1W2MsgBody", [refs]) : null)
    )
  }
  return undefined
}

/** One cell, one level: ton-marker's decode_boc. */
const decodeOne = (cell: Cell): TlbJson | null => {
  if (cell.bits.length === 0 && cell.refs.length === 0) return { "@type": "empty_cell" }
  if (cell.bits.length < 32) return null
  const op = loadSmallUint(cell.beginParse(true), 32)
  const name = opcodeName(op)
  const viaCounts = special(cell, name)
  if (viaCounts !== undefined) return viaCounts
  const { interpreter, byOpcode } = schemeTables()
  for (const cons of byOpcode.get(op) ?? []) {
    const v = attempt(() => interpreter.construct(cons, EMPTY_ENV, cell.beginParse(true)))
    if (v !== null) return v
  }
  return null
}

const MAX_DEPTH = 10

/**
 * The one root of a body's BOC, or null. Its cells are hashed only where a hash is asked for (a cell printed as its
 * BOC): the interpreter reads bits and refs, and most of a body's cells are never printed.
 */
const parseNested = (b64: string): Cell | null => {
  try {
    const roots = withLazyCellHashes(() => Cell.fromBoc(Buffer.from(b64, "base64")))
    return roots.length === 1 ? roots[0]! : null
  } catch {
    return null
  }
}

/** Cells printed as their BOCs, nothing decoded: what is left below the depth limit. */
const printed = (v: TlbJson): DecodedBody => {
  if (typeof v === "string" || typeof v === "boolean") return v
  if (v instanceof CellValue) return markerBoc(v.cell)
  const out: Record<string, DecodedBody> = {}
  // for-in over the interpreter's plain objects: their own keys in Object.entries order, without its pair arrays
  for (const k in v) out[k] = printed(v[k]!)
  return out
}

/**
 * Every cell (and every string that is a BOC) is replaced by its decoding when it decodes, else printed as its
 * BOC, recursively (replace_boc_cells_recursive, which decodes the BOC strings of the printed JSON).
 */
const expand = (v: TlbJson, depth: number, seen: Expanded = []): DecodedBody => {
  if (depth > MAX_DEPTH) return printed(v)
  if (typeof v === "boolean" || typeof v === "string") return expandLeaf(v, depth, seen)
  // A value the interpreter shares (a repeated subtree of the BOC) is expanded once per depth; one that is its own
  // expansion (nothing below it to decode) is not remembered: meeting it again only walks it, as goJson does.
  const known = seen[depth]
  const hit = known?.get(v)
  if (hit !== undefined) return hit
  const out = expandLeaf(v, depth, seen)
  if (out !== v) {
    let atDepth = seen[depth]
    if (atDepth === undefined) seen[depth] = atDepth = new Map()
    atDepth.set(v, out)
  }
  return out
}

/**
 * The values expanded during one decoding, by depth: one plain Map per depth level that has objects, dropped with
 * the decoding (a WeakMap with a Map per object had made each decoding's garbage, and the collector's ephemeron
 * work, several times larger).
 */
type Expanded = Array<Map<object, DecodedBody> | undefined>

const expandLeaf = (v: TlbJson, depth: number, seen: Expanded): DecodedBody => {
  if (typeof v === "boolean") return v
  if (v instanceof CellValue) {
    const inner = decodeOne(v.cell)
    return inner === null ? markerBoc(v.cell) : expand(inner, depth + 1, seen)
  }
  if (typeof v === "string") {
    if (!v.startsWith("te6c")) return v
    const cell = parseNested(v)
    const inner = cell === null ? null : decodeOne(cell)
    return inner === null ? v : expand(inner, depth + 1, seen)
  }
  // An object none of whose values the expansion changes (no cell, no BOC string below it) is its own expansion:
  // it is taken as it is, not copied (values are never mutated), so most of a decoding's small objects are not made
  // twice. The first value that changes starts the copy, its keys in the same order.
  let out: Record<string, DecodedBody> | undefined
  for (const k in v) {
    const was = v[k]!
    const now = expand(was, depth, seen)
    if (out === undefined) {
      if (now === was) continue
      out = {}
      for (const j in v) {
        if (j === k) break
        out[j] = v[j] as DecodedBody
      }
    }
    out[k] = now
  }
  return out ?? (v as { readonly [key: string]: DecodedBody })
}

/** `message_content.decoded` of a body, or null when toncenter would not decode it. */
export const decodeBody = (body: Cell): DecodedBody | null => {
  try {
    // The cells the interpreter makes (a body inline in its message, a value's bits) are hashed only if printed.
    return withLazyCellHashes(() => decodeValid(body))
  } catch (e) {
    if (e === INVALID_OUTPUT) return null
    throw e
  }
}

const decodeValid = (body: Cell): DecodedBody | null => {
  const top = decodeOne(body)
  if (top === null) return null
  const full = expand(top, 0)
  if (typeof full === "object" && full["@type"] === "text_comment" && typeof full["text"] === "string") {
    return { "@type": "text_comment", comment: full["text"], type: "text_comment" }
  }
  return full
}

/** decodeBody from the base64 BOC the records carry; null when it is not one cell. */
export const decodeBodyBoc = (boc: string): DecodedBody | null => {
  const cell = parseNested(boc)
  return cell === null ? null : decodeBody(cell)
}

/**
 * Heap bytes a decoded body takes, roughly (V8 strings of one-byte text, plain objects): what bounds the memo below.
 * A decoding can be far larger than its BOC (one of the chains' 200-character bodies decodes to ~880 kB of JSON).
 */
export const decodedBytes = (v: DecodedBody | null): number => {
  if (v === null || typeof v === "boolean") return 8
  if (typeof v === "string") return 16 + v.length
  let n = 32
  for (const k in v) n += 16 + k.length + decodedBytes(v[k]!)
  return n
}

/** Most heap the memo's decodings take together, per thread. */
export const BODY_MEMO_BYTES = 16 * 1024 * 1024

// A body is decoded where its row is made and again where its transaction is rendered (pages, topic): remember the
// last few thousand by cell hash, within BODY_MEMO_BYTES (a count alone would let a run of huge decodings hold
// gigabytes). Values are shared: callers never mutate them.
const objectMemo = (bytes: number) =>
  new Lru<string, { readonly value: DecodedBody | null }>(4096, { maxWeight: bytes, weigh: (e) => decodedBytes(e.value) })
let memo = objectMemo(BODY_MEMO_BYTES)

/** This thread's object memo: entries, weight (estimated bytes), lookups' hits and misses since it was made. */
export const bodyMemoStats = (): LruStats => memo.stats()

/** A fresh, empty object memo of at most `bytes` on this thread (benches measuring what a size catches). */
export const resetBodyMemo = (bytes: number = BODY_MEMO_BYTES): void => {
  memo = objectMemo(bytes)
}

/** decodeBodyBoc for a body whose cell hash is known, remembered by that hash. */
export const decodeMessageBody = (hash: string, boc: string): DecodedBody | null => {
  const hit = memo.get(hash)
  if (hit !== undefined) return hit.value
  const value = decodeBodyBoc(boc)
  memo.set(hash, { value })
  return value
}

/** The memo's decoding of a body by its cell hash, if it holds one (nothing is decoded or kept). */
export const rememberedBody = (hash: string): { readonly value: DecodedBody | null } | undefined => memo.get(hash)
