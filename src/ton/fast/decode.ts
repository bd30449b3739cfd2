/**
 * The throughput decoder: a transaction BOC's bytes read straight into the canonical TransactionRecord (TL-B of
 * Transaction, its messages and phases on a CellStore), with no Cell object per cell. @ton/core stays the reference:
 * any input outside the plain form this reader takes (other exotic cells, legacy or malformed bags, constructs it
 * does not read, every error) is decoded by src/ton/decode.ts instead, counted in fastDecodeStats.
 * Invariant: decodeTransactionFast(b, c, o) deep-equals decodeTransaction(b, c, o), key order included, for every
 * input, and fails with the same DecodeError, because every failure is the reference decoder's own.
 */
import { BitString, Cell } from "@ton/core"
import { Either } from "effect"
import { isBase64 } from "../boc.js"
import { decodeTransaction, type DecodeContext, type DecodeOptions } from "../decode.js"
import type { DecodeError } from "../errors.js"
import type {
  AccountStatus,
  ActionPhase,
  BouncePhase,
  ComputePhase,
  CreditPhase,
  ExtraCurrencies,
  MessageContent,
  MessageRecord,
  StoragePhase,
  TransactionRecord,
  TxDescription
} from "../record.js"
import { readBlockHeader, type ScannedHeader } from "./blockHeader.js"
import { CellStore, descending, outside, OutsideFastPath } from "./cells.js"
import { Cursor, rawAddress, readUint } from "./reader.js"
import { serializeSubtreeBase64 } from "./serialize.js"

/** How many transactions took each path since start-up; `fallbacks` by the reason the fast reader gave up. */
export const fastDecodeStats = { fast: 0, fallback: 0, fallbacks: new Map<string, number>() }

const countFallback = (why: string): void => {
  fastDecodeStats.fallback++
  fastDecodeStats.fallbacks.set(why, (fastDecodeStats.fallbacks.get(why) ?? 0) + 1)
}

// One store and its cursors, reused transaction after transaction: decoding is synchronous and keeps no reference.
const store = new CellStore()
const main = new Cursor(store)
const aux = new Cursor(store)

/**
 * Decodes a transaction given as a base64 BOC (standard or url-safe) into the same record, or the same DecodeError,
 * as decodeTransaction.
 */
export const decodeTransactionFast = (
  boc: string,
  ctx: DecodeContext,
  options?: DecodeOptions
): Either.Either<TransactionRecord, DecodeError> => {
  try {
    store.parse(bocBytes(boc))
    store.hashAll()
    contentCount = 0
    const record = readTransaction(boc, ctx)
    fastDecodeStats.fast++
    return Either.right(record)
  } catch (e) {
    countFallback(e instanceof OutsideFastPath ? e.why : `unexpected: ${e instanceof Error ? e.message : String(e)}`)
  }
  return decodeTransaction(boc, ctx, options)
}

/** A block file read by decodeBlockFast: its header, its transactions' records and, when asked, its state update. */
export interface FastBlock {
  readonly header: ScannedHeader
  /** In the block's order (account, then lt). */
  readonly transactions: ReadonlyArray<TransactionRecord>
  /**
   * With `withStates`: the block's state update as a @ton/core cell (built from the block's cells, hashed by
   * @ton/core, for the reader of account states) and the accounts with transactions (upper-case hex), as
   * extractBlock reports them.
   */
  readonly states: { readonly stateUpdate: Cell; readonly accounts: ReadonlySet<string> } | undefined
}

/**
 * A block file read once: its header, and every transaction decoded where the block's bytes hold it (the
 * transaction cells are hashed once and each transaction's BOC is written from them, with no BOC per transaction to
 * parse and hash again). Undefined when the header is not the block of `ctx.block` (workchain, shard, seqno) or any
 * part of the block is outside the fast path (a transaction holding an exotic or higher-level cell, a construct this
 * reader does not take): the caller then reads the block with extractBlock and decodes each transaction's BOC, so
 * the records, and the failures, are the same either way. The bytes are trusted to be the file of `ctx.block`
 * (their sha256 checked against its file hash by whoever made the file; the root hash is not computed here).
 */
export const decodeBlockFast = (
  bytes: Uint8Array,
  ctx: DecodeContext,
  withStates: boolean
): FastBlock | undefined => {
  try {
    store.parse(bytes, true)
    let header: ScannedHeader
    try {
      header = readBlockHeader(store)
    } catch {
      return undefined
    }
    const id = ctx.block
    if (header.workchain !== id.workchain || header.shard !== id.shard || header.seqno !== id.seqno) return undefined
    const blockRoot = store.root
    const accounts: Array<string> = []
    const roots = blockTransactionCells(accounts)
    store.hashSubtrees(roots, roots.length)
    const transactions: Array<TransactionRecord> = []
    for (const r of roots) {
      // cells cut out of the previous transaction are not part of this one
      store.count = store.bocCells
      store.root = r
      contentCount = 0
      transactions.push(readTransaction(serializeSubtreeBase64(store, r), ctx))
    }
    const states = withStates ? { stateUpdate: stateUpdateCell(blockRoot), accounts: new Set(accounts) } : undefined
    fastDecodeStats.fast += transactions.length
    return { header, transactions, states }
  } catch (e) {
    countFallback(
      e instanceof OutsideFastPath ? `block: ${e.why}` : `block: unexpected: ${e instanceof Error ? e.message : String(e)}`
    )
    return undefined
  }
}

/** The state update of the block at `root` of the store, as a @ton/core cell built from the store's cells. */
const stateUpdateCell = (root: number): Cell => {
  const top = store.refs[root * 4 + 2]!
  const cells: Array<number> = []
  const seen = new Set<number>([top])
  for (const stack = [top]; stack.length > 0; ) {
    const c = stack.pop()!
    cells.push(c)
    for (let k = 0; k < store.refCount[c]!; k++) {
      const child = store.refs[c * 4 + k]!
      if (!seen.has(child)) {
        seen.add(child)
        stack.push(child)
      }
    }
  }
  // refs point to higher indices: from the highest down, a cell's children are built before it
  cells.sort(descending)
  const built = new Map<number, Cell>()
  for (const c of cells) {
    const at = store.off[c]! + 2
    const n = store.bits[c]!
    const data = Buffer.from(store.src[c]!.buffer, store.src[c]!.byteOffset + at, (n + 7) >> 3)
    const refs: Array<Cell> = []
    for (let k = 0; k < store.refCount[c]!; k++) refs.push(built.get(store.refs[c * 4 + k]!)!)
    const kind = store.exotic[c]!
    built.set(c, new Cell({ exotic: kind === 1 || kind === 2, bits: new BitString(data, 0, n), refs }))
  }
  return built.get(top)!
}

const accountId = Buffer.alloc(32)

const labelBits = (n: number): number => Math.ceil(Math.log2(n + 1))

/** Skips a CurrencyCollection: grams as VarUInteger 16, then the extra currencies' HashmapE 32. */
const skipCurrencies = (cs: Cursor): void => {
  cs.skip(cs.uint(4) * 8)
  if (cs.bit()) cs.ref()
}

/**
 * Visits the leaves of a HashmapAug with `n`-bit keys whose root is at the cursor's position, left (lower keys)
 * first; the forks' augmentations are not read. `leaf` gets the cursor after the leaf's label.
 */
const walkAug = (cs: Cursor, n: number, leaf: (cs: Cursor) => void): void => {
  let len = 0
  if (!cs.bit()) {
    while (cs.bit()) len++
    if (len > n) outside("dict label")
    cs.skip(len)
  } else if (!cs.bit()) {
    len = cs.uint(labelBits(n))
    if (len > n) outside("dict label")
    cs.skip(len)
  } else {
    cs.skip(1)
    len = cs.uint(labelBits(n))
    if (len > n) outside("dict label")
  }
  if (len === n) return leaf(cs)
  const left = cs.ref()
  const right = cs.ref()
  walkAug(cs.open(left), n - len - 1, leaf)
  walkAug(cs.open(right), n - len - 1, leaf)
}

/**
 * The root cells of a block's transactions (ShardAccountBlocks of its BlockExtra), in the block's order; the accounts
 * they are of go into `accounts`.
 */
const blockTransactionCells = (accounts: Array<string>): Array<number> => {
  const cs = main.open(store.root)
  if (cs.uint(32) !== 0x11ef55aa) outside("not a block")
  cs.skip(32)
  cs.ref() // info
  cs.ref() // value_flow
  cs.ref() // state_update
  const extra = cs.ref()
  cs.open(extra)
  if (cs.uint(32) !== 0x4a33f6fd) outside("not a block_extra")
  cs.ref() // in_msg_descr
  cs.ref() // out_msg_descr
  cs.open(cs.ref())
  const roots: Array<number> = []
  if (!cs.bit()) return roots
  walkRoots = roots
  walkAccounts = accounts
  try {
    walkAug(cs.open(cs.ref()), 256, accountLeaf)
  } finally {
    walkRoots = NO_ROOTS
    walkAccounts = NO_ACCOUNTS
  }
  return roots
}

// The leaves of blockTransactionCells's walk, and what they fill while it runs: functions of the module rather than
// closures made per block (V8 keeps a closure's optimized code only while a closure made at that site lives, so
// per-call closures were compiled again after full collections).
const NO_ROOTS: Array<number> = []
const NO_ACCOUNTS: Array<string> = []
let walkRoots = NO_ROOTS
let walkAccounts = NO_ACCOUNTS

const accountLeaf = (account: Cursor): void => {
  skipCurrencies(account)
  if (account.uint(4) !== 0x5) outside("AccountBlock tag")
  account.copy256(accountId, 0)
  walkAccounts.push(accountId.toString("hex").toUpperCase())
  walkAug(account, 64, transactionLeaf)
}

const transactionLeaf = (tx: Cursor): void => {
  skipCurrencies(tx)
  walkRoots.push(tx.ref())
}

/**
 * The bytes of a base64 BOC the reference would accept (standard or url-safe alphabet, not mixed; see isBase64).
 * Node's decoder skips characters outside the alphabet, so the string is checked: an input that encodes back to
 * itself is canonical standard base64 (what upstream sends), which costs less than a scan of every character.
 */
const bocBytes = (boc: string): Buffer => {
  const bytes = Buffer.from(boc, "base64")
  if (bytes.toString("base64") === boc) return bytes
  if (boc.length === 0 || !isBase64(boc)) outside("not base64")
  return bytes
}

/**
 * The stages apart, for the benchmark: bytes -> cells, cells -> hashes, cells -> record, and the body / init BOCs of
 * the last decode written once more (their cost alone).
 */
export const fastStages = {
  parse: (bytes: Uint8Array): void => store.parse(bytes),
  hash: (): void => store.hashAll(),
  read: (boc: string, ctx: DecodeContext): TransactionRecord => {
    contentCount = 0
    return readTransaction(boc, ctx)
  },
  contents: (): number => {
    let n = 0
    for (let i = 0; i < contentCount; i++) n += serializeSubtreeBase64(store, contentRoots[i]!).length
    return n
  }
}

const STATUS: ReadonlyArray<AccountStatus> = ["uninit", "frozen", "active", "nonexist"]

const readTransaction = (boc: string, ctx: DecodeContext): TransactionRecord => {
  const workchain = ctx.block.workchain
  const cs = main.open(store.root)
  if (cs.remainingBits < 4 || cs.uint(4) !== 0x07) outside("transaction tag")
  const account = cs.rawAddress(workchain)
  const lt = cs.uintString(64)
  const prevHash = cs.hash256()
  const prevLt = cs.uintString(64)
  const now = cs.uint(32)
  const outCount = cs.uint(15)
  const origStatus = STATUS[cs.uint(2)]!
  const endStatus = STATUS[cs.uint(2)]!
  const msgsCell = cs.ref()
  const totalFees = cs.varUint(4)
  const feesExtra = cs.bit() ? cs.ref() : -1
  const stateUpdate = cs.ref()
  const descCell = cs.ref()
  const hash = store.hashB64(store.root)

  const totalFeesExtra = extraCurrencies(feesExtra)
  const us = main.open(stateUpdate)
  if (us.uint(8) !== 0x72) outside("hash update tag")
  const before = us.hash256()
  const after = us.hash256()
  const description = readDescription(descCell, workchain)

  const ms = main.open(msgsCell)
  const inCell = ms.bit() ? ms.ref() : -1
  const outCells: Array<number> = []
  outLeafCells = outCells
  outLeafSize = 0
  try {
    if (ms.bit()) walkDict(ms.ref(), 15, 0, outLeaf)
  } finally {
    outLeafCells = NO_ROOTS
  }
  const outSize = outLeafSize
  if (outSize !== outCount) outside("out_msgs count")
  const inMsg = inCell < 0 ? null : readMessage(inCell)
  const outMsgs: Array<MessageRecord> = []
  for (let i = 0; i < outCount; i++) {
    const c = outCells[i]
    if (c === undefined) outside("out_msgs gap")
    outMsgs.push(readMessage(c!))
  }
  return {
    account,
    hash,
    lt,
    now,
    mc_block_seqno: ctx.mc_block_seqno,
    trace_id: null,
    prev_trans_hash: prevHash,
    prev_trans_lt: prevLt,
    orig_status: origStatus,
    end_status: endStatus,
    total_fees: totalFees,
    total_fees_extra_currencies: totalFeesExtra,
    description,
    block: ctx.block,
    in_msg: inMsg,
    out_msgs: outMsgs,
    account_state_hash_before: before,
    account_state_hash_after: after,
    boc
  }
}

/**
 * Walks a Hashmap with `n`-bit keys rooted at cell `c` as @ton/core's parseDict does (labels hml_short, hml_long,
 * hml_same), calling `leaf` with the key and the aux cursor at the value. Keys are numbers (exact up to 32 bits).
 */
const walkDict = (c: number, n: number, key: number, leaf: (key: number, cur: Cursor) => void): void => {
  const cs = aux.open(c)
  let len = 0
  let k = key
  if (!cs.bit()) {
    while (cs.bit()) len++
    if (len > n) outside("dict label")
    for (let i = 0; i < len; i++) k = k * 2 + (cs.bit() ? 1 : 0)
  } else if (!cs.bit()) {
    len = cs.uint(Math.ceil(Math.log2(n + 1)))
    if (len > n) outside("dict label")
    for (let i = 0; i < len; i++) k = k * 2 + (cs.bit() ? 1 : 0)
  } else {
    const b = cs.bit() ? 1 : 0
    len = cs.uint(Math.ceil(Math.log2(n + 1)))
    if (len > n) outside("dict label")
    for (let i = 0; i < len; i++) k = k * 2 + b
  }
  if (len === n) {
    leaf(k, cs)
    return
  }
  const left = cs.ref()
  const right = cs.ref()
  walkDict(left, n - len - 1, k * 2, leaf)
  walkDict(right, n - len - 1, k * 2 + 1, leaf)
}

/** @ton/core's dictionary values of cells and integers must fill their leaf exactly (its endParse). */
const endOfValue = (cs: Cursor): void => {
  if (cs.remainingBits > 0 || cs.remainingRefs > 0) outside("dictionary value not fully read")
}

/** ExtraCurrencyCollection in the dictionary at cell `c` (-1: none), keys ascending. */
const extraCurrencies = (c: number): ExtraCurrencies => {
  const out: Record<string, string> = {}
  if (c < 0) return out
  const pairs: Array<[number, string]> = []
  walkDict(c, 32, 0, (key, cs) => {
    pairs.push([key, cs.varUint(5)])
    endOfValue(cs)
  })
  pairs.sort((a, b) => a[0] - b[0])
  for (let i = 0; i < pairs.length; i++) {
    if (i > 0 && pairs[i]![0] === pairs[i - 1]![0]) outside("duplicate currency")
    out[String(pairs[i]![0])] = pairs[i]![1]
  }
  return out
}

/** CurrencyCollection at the cursor: coins, then the extra currencies (read with the aux cursor). */
const currency = (cs: Cursor): { coins: string; extra: ExtraCurrencies } => {
  const coins = cs.varUint(4)
  return { coins, extra: extraCurrencies(cs.bit() ? cs.ref() : -1) }
}

const statusChange = (cs: Cursor): "unchanged" | "frozen" | "deleted" =>
  !cs.bit() ? "unchanged" : cs.bit() ? "deleted" : "frozen"

const storagePhase = (cs: Cursor): StoragePhase => {
  const storage_fees_collected = cs.varUint(4)
  const storage_fees_due = cs.bit() ? cs.varUint(4) : null
  return { storage_fees_collected, storage_fees_due, status_change: statusChange(cs) }
}

const creditPhase = (cs: Cursor): CreditPhase => {
  const due_fees_collected = cs.bit() ? cs.varUint(4) : null
  const credit = currency(cs)
  return { due_fees_collected, credit: credit.coins, credit_extra_currencies: credit.extra }
}

const SKIP_REASONS = ["no_state", "bad_state", "no_gas"] as const

/** TrComputePhase; `ord` admits cskip_suspended$110, which only an ordinary transaction's description carries. */
const computePhase = (cs: Cursor, ord: boolean): ComputePhase => {
  if (!cs.bit()) {
    const r = cs.uint(2)
    if (r < 3) return { skipped: true, reason: SKIP_REASONS[r]! }
    if (!ord || cs.bit()) outside("compute skip reason")
    return { skipped: true, reason: "suspended" }
  }
  const success = cs.bit()
  const msg_state_used = cs.bit()
  const account_activated = cs.bit()
  const gas_fees = cs.varUint(4)
  const vm = aux.open(cs.ref())
  const gas_used = vm.varUint(3)
  const gas_limit = vm.varUint(3)
  const gas_credit = vm.bit() ? vm.varUint(2) : null
  const mode = vm.uint(8)
  const exit_code = vm.int(32)
  const exit_arg = vm.bit() ? vm.int(32) : null
  const vm_steps = vm.uint(32)
  const vm_init_state_hash = vm.hash256()
  const vm_final_state_hash = vm.hash256()
  return {
    skipped: false,
    success,
    msg_state_used,
    account_activated,
    gas_fees,
    gas_used,
    gas_limit,
    gas_credit,
    mode,
    exit_code,
    exit_arg,
    vm_steps,
    vm_init_state_hash,
    vm_final_state_hash
  }
}

const actionPhase = (c: number): ActionPhase => {
  const cs = aux.open(c)
  const success = cs.bit()
  const valid = cs.bit()
  const no_funds = cs.bit()
  const status_change = statusChange(cs)
  const total_fwd_fees = cs.bit() ? cs.varUint(4) : null
  const total_action_fees = cs.bit() ? cs.varUint(4) : null
  const result_code = cs.int(32)
  const result_arg = cs.bit() ? cs.int(32) : null
  const tot_actions = cs.uint(16)
  const spec_actions = cs.uint(16)
  const skipped_actions = cs.uint(16)
  const msgs_created = cs.uint(16)
  const action_list_hash = cs.hash256()
  const cells = cs.varUint(3)
  const bits = cs.varUint(3)
  return {
    success,
    valid,
    no_funds,
    status_change,
    total_fwd_fees,
    total_action_fees,
    result_code,
    result_arg,
    tot_actions,
    spec_actions,
    skipped_actions,
    msgs_created,
    action_list_hash,
    tot_msg_size: { cells, bits }
  }
}

const bouncePhase = (cs: Cursor): BouncePhase => {
  if (cs.bit()) {
    const cells = cs.varUint(3)
    const bits = cs.varUint(3)
    const msg_fees = cs.varUint(4)
    const fwd_fees = cs.varUint(4)
    return { type: "ok", msg_size: { cells, bits }, msg_fees, fwd_fees }
  }
  if (cs.bit()) {
    const cells = cs.varUint(3)
    const bits = cs.varUint(3)
    return { type: "nofunds", msg_size: { cells, bits }, req_fwd_fees: cs.varUint(4) }
  }
  return { type: "negfunds" }
}

const readDescription = (c: number, workchain: number): TxDescription => {
  const cs = main.open(c)
  const tag = cs.uint(4)
  if (tag === 0) {
    const credit_first = cs.bit()
    const storage = cs.bit() ? storagePhase(cs) : null
    const credit = cs.bit() ? creditPhase(cs) : null
    const compute = computePhase(cs, true)
    const action = cs.bit() ? actionPhase(cs.ref()) : null
    const aborted = cs.bit()
    const bounce = cs.bit() ? bouncePhase(cs) : null
    const destroyed = cs.bit()
    return {
      type: "ord",
      aborted,
      destroyed,
      credit_first,
      ...(storage ? { storage_ph: storage } : {}),
      ...(credit ? { credit_ph: credit } : {}),
      compute_ph: compute,
      ...(action ? { action } : {}),
      ...(bounce ? { bounce } : {})
    }
  }
  if (tag === 1) return { type: "storage", storage_ph: storagePhase(cs) }
  if (tag === 2 || tag === 3) {
    const storage = storagePhase(cs)
    const compute = computePhase(cs, false)
    const action = cs.bit() ? actionPhase(cs.ref()) : null
    const aborted = cs.bit()
    const destroyed = cs.bit()
    return {
      type: "tick_tock",
      aborted,
      destroyed,
      is_tock: tag === 3,
      storage_ph: storage,
      compute_ph: compute,
      ...(action ? { action } : {})
    }
  }
  if (tag === 4) {
    const cur_shard_pfx_len = cs.uint(6)
    const acc_split_depth = cs.uint(6)
    const this_addr = cs.rawAddress(workchain)
    const sibling_addr = cs.rawAddress(workchain)
    const storage = cs.bit() ? storagePhase(cs) : null
    const compute = computePhase(cs, false)
    const action = cs.bit() ? actionPhase(cs.ref()) : null
    const aborted = cs.bit()
    const destroyed = cs.bit()
    return {
      type: "split_prepare",
      aborted,
      destroyed,
      ...(storage ? { storage_ph: storage } : {}),
      compute_ph: compute,
      ...(action ? { action } : {}),
      split_info: { cur_shard_pfx_len, acc_split_depth, this_addr, sibling_addr }
    }
  }
  // split_install carries a whole prepare transaction the reference parses; merges the reference does not read.
  return outside(`description tag ${tag}`)
}

// An address read by readAddress: workchain and the 32 account bytes (after an anycast rewrite), kept for the
// normalized external-in hash.
const addrBytes = new Uint8Array(32)
let addrWorkchain = 0

/** MsgAddressInt as @ton/core's loadAddress reads it: addr_std only, anycast prefix written over the account id. */
const readAddress = (cs: Cursor): string => {
  if (cs.uint(2) !== 2) outside("address kind")
  let depth = -1
  let pfx = 0
  if (cs.bit()) {
    depth = cs.uint(5)
    pfx = cs.uint(depth)
  }
  addrWorkchain = cs.int(8)
  cs.copy256(addrBytes, 0)
  if (depth > 0) rewritePrefix(addrBytes, pfx, depth)
  return rawAddress(addrWorkchain, addrBytes, 0)
}

/** The first `depth` bits of the account id replaced by the anycast prefix, bit for bit as @ton/core does it. */
const rewritePrefix = (hash: Uint8Array, pfx: number, depth: number): void => {
  let byteIndex = 0
  let bitIndex = 0
  let bitsRemaining = depth
  while (bitsRemaining > 0) {
    const bitsInThisByte = Math.min(8 - bitIndex, bitsRemaining)
    const mask = ((1 << bitsInThisByte) - 1) << (8 - bitIndex - bitsInThisByte)
    const bits = ((pfx >> (bitsRemaining - bitsInThisByte)) & ((1 << bitsInThisByte) - 1)) << (8 - bitIndex - bitsInThisByte)
    hash[byteIndex] = (hash[byteIndex]! & ~mask) | bits
    bitsRemaining -= bitsInThisByte
    bitIndex += bitsInThisByte
    if (bitIndex === 8) {
      byteIndex++
      bitIndex = 0
    }
  }
}

/** MsgAddressExt (addr_none or addr_extern), skipped: the record keeps no external address. */
const skipExternalAddress = (cs: Cursor): void => {
  const kind = cs.uint(2)
  if (kind === 0) return
  if (kind !== 1) outside("external address kind")
  cs.skip(cs.uint(9))
}

// The out_msgs dictionary's leaf and what it fills while readTransaction walks it (a function of the module, not a
// closure made per transaction).
let outLeafCells = NO_ROOTS
let outLeafSize = 0

const outLeaf = (key: number, leaf: Cursor): void => {
  if (outLeafCells[key] === undefined) outLeafSize++
  outLeafCells[key] = leaf.ref()
  endOfValue(leaf)
}

/** StateInit at the cursor, skipped over (its extent is what matters); libraries are walked as the reference does. */
const skipStateInit = (cs: Cursor): void => {
  if (cs.bit()) cs.uint(5)
  if (cs.bit()) cs.skip(2)
  if (cs.bit()) cs.ref()
  if (cs.bit()) cs.ref()
  if (cs.bit()) {
    walkDict(cs.ref(), 256, 0, (_key, leaf) => {
      leaf.bit()
      leaf.ref()
    })
  }
}

// The cells serialized as bodies and init states by the last decode (for the benchmark's stage split).
let contentRoots = new Int32Array(64)
let contentCount = 0

const content = (c: number): MessageContent => {
  if (contentCount === contentRoots.length) {
    const grown = new Int32Array(contentCount * 2)
    grown.set(contentRoots)
    contentRoots = grown
  }
  contentRoots[contentCount++] = c
  return { hash: store.hashB64(c), boc: serializeSubtreeBase64(store, c) }
}

/** First 32 bits of a cell's data, or null for a shorter cell (library cells included, as the reference reads). */
const opcodeOf = (c: number): number | null =>
  store.bits[c]! >= 32 ? readUint(store.src[c]!, (store.off[c]! + 2) * 8, 32) : null

const normBits = new Uint8Array(35)
const normRef = new Int32Array(1)

/**
 * The indexer's normalized external-in hash: ext_in_msg_info with addr_none source, the destination as addr_std,
 * zero import fee, no state init, the body in a ref (277 bits).
 */
const normalizedHash = (body: number): string => {
  normBits.fill(0)
  // 10 (ext_in) 00 (addr_none) 10 0 (addr_std, no anycast): 0b1000_100 then the 8-bit workchain.
  let p = 0
  const put = (v: number, n: number): void => {
    for (let i = n - 1; i >= 0; i--, p++) if ((v >> i) & 1) normBits[p >> 3]! |= 0x80 >> (p & 7)
  }
  put(0b1000100, 7)
  put(addrWorkchain & 0xff, 8)
  for (let i = 0; i < 32; i++) put(addrBytes[i]!, 8)
  put(0b000001, 6)
  normRef[0] = body
  const c = store.add(normBits, 0, 277, normRef, 0, 1)
  return store.hashB64(c)
}

const readMessage = (c: number): MessageRecord => {
  const cs = main.open(c)
  const hash = store.hashB64(c)
  let type: 0 | 1 | 2
  let source: string | null = null
  let destination: string | null = null
  let value: string | null = null
  let valueExtra: ExtraCurrencies | null = null
  let fwdFee: string | null = null
  let ihrFee: string | null = null
  let importFee: string | null = null
  let createdLt: string | null = null
  let createdAt: number | null = null
  let ihrDisabled: boolean | null = null
  let bounce: boolean | null = null
  let bounced: boolean | null = null
  if (!cs.bit()) {
    type = 0
    ihrDisabled = cs.bit()
    bounce = cs.bit()
    bounced = cs.bit()
    source = readAddress(cs)
    destination = readAddress(cs)
    const v = currency(cs)
    value = v.coins
    valueExtra = v.extra
    ihrFee = cs.varUint(4)
    fwdFee = cs.varUint(4)
    createdLt = cs.uintString(64)
    createdAt = cs.uint(32)
  } else if (!cs.bit()) {
    type = 1
    skipExternalAddress(cs)
    destination = readAddress(cs)
    importFee = cs.varUint(4)
  } else {
    type = 2
    source = readAddress(cs)
    skipExternalAddress(cs)
    createdLt = cs.uintString(64)
    createdAt = cs.uint(32)
  }
  let init = -1
  if (cs.bit()) {
    if (cs.bit()) init = cs.ref()
    else {
      // An inline StateInit is cut out of the message cell into a cell of its own, as the node does.
      const bitStart = cs.pos
      const refStart = cs.refPos
      skipStateInit(cs)
      init = store.cut(c, bitStart, cs.pos - bitStart, refStart, cs.refPos)
    }
  }
  const body = cs.bit() ? cs.ref() : store.cut(c, cs.pos, cs.remainingBits, cs.refPos, cs.refPos + cs.remainingRefs)
  const bodyContent = content(body)
  const opcode = opcodeOf(body)
  const initContent = init < 0 ? null : content(init)
  if (type === 0) {
    return {
      type: "int",
      hash,
      hash_norm: null,
      source,
      destination,
      value,
      value_extra_currencies: valueExtra,
      fwd_fee: fwdFee,
      ihr_fee: ihrFee,
      import_fee: null,
      created_lt: createdLt,
      created_at: createdAt,
      opcode,
      ihr_disabled: ihrDisabled,
      bounce,
      bounced,
      body: bodyContent,
      init_state: initContent
    }
  }
  if (type === 1) {
    // addrWorkchain/addrBytes still hold the destination: nothing after it reads an address.
    const norm = normalizedHash(body)
    return {
      type: "ext_in",
      hash,
      hash_norm: norm === hash ? null : norm,
      source: null,
      destination,
      value: null,
      value_extra_currencies: null,
      fwd_fee: null,
      ihr_fee: null,
      import_fee: importFee,
      created_lt: null,
      created_at: null,
      opcode,
      ihr_disabled: null,
      bounce: null,
      bounced: null,
      body: bodyContent,
      init_state: initContent
    }
  }
  return {
    type: "ext_out",
    hash,
    hash_norm: null,
    source,
    destination: null,
    value: null,
    value_extra_currencies: null,
    fwd_fee: null,
    ihr_fee: null,
    import_fee: null,
    created_lt: createdLt,
    created_at: createdAt,
    opcode,
    ihr_disabled: null,
    bounce: null,
    bounced: null,
    body: bodyContent,
    init_state: initContent
  }
}
