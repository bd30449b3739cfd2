/**
 * Decodes one transaction BOC into the canonical TransactionRecord every later stage uses (Kafka payload,
 * ClickHouse rows, v2 and v3 JSON). All TL-B reading goes through @ton/core loaders.
 * Invariant: decodeTransaction never throws; the record keeps the original BOC string and carries every field
 * both endpoints need, with message bodies as node-ordered BOCs byte-identical to toncenter's.
 */
import {
  beginCell,
  Cell,
  CellType,
  Dictionary,
  loadAccountStatus,
  loadCommonMessageInfo,
  loadCurrencyCollection,
  loadHashUpdate,
  loadStateInit,
  loadTransactionActionPhase,
  loadTransactionBouncePhase,
  loadTransactionCreditPhase,
  loadTransactionDescription,
  loadTransactionStoragePhase,
  type AccountStatus as CoreAccountStatus,
  type AccountStatusChange,
  type CurrencyCollection,
  type Slice,
  type SplitMergeInfo,
  type TransactionActionPhase,
  type TransactionBouncePhase,
  type TransactionComputePhase,
  type TransactionCreditPhase,
  type TransactionDescription,
  type TransactionStoragePhase
} from "@ton/core"
import { Either } from "effect"
import { rawFromAddress, rawFromBigint, rawFromHash } from "./address.js"
import { errorText, parseBoc, serializeBocBase64 } from "./boc.js"
import { DecodeError } from "./errors.js"
import type {
  AccountStatus,
  ActionPhase,
  BlockIdExt,
  BouncePhase,
  ComputePhase,
  CreditPhase,
  ExtraCurrencies,
  HashB64,
  MessageContent,
  MessageRecord,
  StoragePhase,
  TransactionRecord,
  TxDescription
} from "./record.js"

export interface DecodeContext {
  readonly block: BlockIdExt
  readonly mc_block_seqno: number
}

export interface DecodeOptions {
  /**
   * Merkle proofs, Merkle updates and pruned branches inside message bodies: "reject" (default) fails with reason
   * "exotic_cell"; "keep" decodes them and serializes the cells as they are. Library cells are always kept: state
   * inits of library-backed contracts (jetton wallets, recent wallets) reference their code that way.
   */
  readonly exoticBodies?: "reject" | "keep"
}

/** Decodes a transaction given as a base64 BOC (standard or url-safe). */
export const decodeTransaction = (
  boc: string,
  ctx: DecodeContext,
  options?: DecodeOptions
): Either.Either<TransactionRecord, DecodeError> =>
  Either.flatMap(parseBoc(boc), (root) => decodeTransactionCell(root, boc, ctx, options))

/**
 * Decodes an already parsed transaction cell; `boc` is stored as is (block extraction passes the node-ordered
 * serialization it produced, upstream sources pass the string they received).
 */
export const decodeTransactionCell = (
  root: Cell,
  boc: string,
  ctx: DecodeContext,
  options?: DecodeOptions
): Either.Either<TransactionRecord, DecodeError> => {
  const rejectExotic = options?.exoticBodies !== "keep"
  const hash = b64(root.hash())
  if (root.isExotic) {
    return Either.left(new DecodeError({ reason: "not_a_transaction", message: "root cell is exotic", hash }))
  }
  let cs: Slice
  try {
    cs = root.beginParse()
    if (cs.remainingBits < 4 || cs.loadUint(4) !== 0x07) {
      return Either.left(
        new DecodeError({
          reason: "not_a_transaction",
          message: "missing transaction$0111 tag",
          hash,
          position: "bit 0"
        })
      )
    }
  } catch (e) {
    return Either.left(new DecodeError({ reason: "not_a_transaction", message: errorText(e), hash }))
  }
  try {
    return Either.right(readTransaction(cs, hash, boc, ctx, rejectExotic))
  } catch (e) {
    if (e instanceof DecodeError) return Either.left(e)
    return Either.left(new DecodeError({ reason: "not_a_transaction", message: errorText(e), hash }))
  }
}

const readTransaction = (
  cs: Slice,
  hash: HashB64,
  boc: string,
  ctx: DecodeContext,
  rejectExotic: boolean
): TransactionRecord => {
  const accountId = cs.loadBuffer(32)
  const lt = cs.loadUintBig(64)
  const prevHash = cs.loadBuffer(32)
  const prevLt = cs.loadUintBig(64)
  const now = cs.loadUint(32)
  const outCount = cs.loadUint(15)
  const origStatus = loadAccountStatus(cs)
  const endStatus = loadAccountStatus(cs)
  const msgs = cs.loadRef().beginParse()
  const inMsgCell = msgs.loadBit() ? msgs.loadRef() : null
  const outDict = msgs.loadDict(Dictionary.Keys.Uint(15), Dictionary.Values.Cell())
  const totalFees = loadCurrencyCollection(cs)
  const stateUpdate = loadHashUpdate(cs.loadRef().beginParse())
  const description = loadDescription(cs.loadRef(), ctx.block.workchain)
  const account = rawFromHash(ctx.block.workchain, accountId)

  const inMsg = inMsgCell === null ? null : decodeMessage(inMsgCell, "in_msg", hash, rejectExotic)
  const outMsgs: Array<MessageRecord> = []
  for (let i = 0; i < outCount; i++) {
    const cell = outDict.get(i)
    if (cell === undefined) {
      const message = `out_msgs has no entry ${i} of ${outCount}`
      throw new DecodeError({ reason: "bad_message", message, hash, position: `out_msgs[${i}]` })
    }
    outMsgs.push(decodeMessage(cell, `out_msgs[${i}]`, hash, rejectExotic))
  }
  if (outDict.size !== outCount) {
    const message = `outmsg_cnt ${outCount} but ${outDict.size} entries`
    throw new DecodeError({ reason: "bad_message", message, hash, position: "out_msgs" })
  }
  return {
    account,
    hash,
    lt: lt.toString(),
    now,
    mc_block_seqno: ctx.mc_block_seqno,
    trace_id: null,
    prev_trans_hash: b64(prevHash),
    prev_trans_lt: prevLt.toString(),
    orig_status: mapStatus(origStatus),
    end_status: mapStatus(endStatus),
    total_fees: totalFees.coins.toString(),
    total_fees_extra_currencies: extraCurrencies(totalFees),
    description,
    block: ctx.block,
    in_msg: inMsg,
    out_msgs: outMsgs,
    account_state_hash_before: b64(stateUpdate.oldHash),
    account_state_hash_after: b64(stateUpdate.newHash),
    boc
  }
}

const decodeMessage = (cell: Cell, path: string, txHash: HashB64, rejectExotic: boolean): MessageRecord => {
  if (cell.isExotic) {
    const message = `message cell ${b64(cell.hash())} is exotic`
    throw new DecodeError({ reason: "exotic_cell", message, hash: txHash, position: path })
  }
  const hash = b64(cell.hash())
  const cs = cell.beginParse()
  let info: ReturnType<typeof loadCommonMessageInfo>
  let init: Cell | null = null
  let body: Cell
  try {
    info = loadCommonMessageInfo(cs)
    if (cs.loadBit()) {
      if (cs.loadBit()) {
        init = cs.loadRef()
      } else {
        // An inline StateInit is cut out of the message cell into a cell of its own, as the node does.
        const start = cs.clone()
        loadStateInit(cs)
        const bits = cs.offsetBits - start.offsetBits
        const refs = cs.offsetRefs - start.offsetRefs
        const b = beginCell().storeBits(start.loadBits(bits))
        for (let i = 0; i < refs; i++) b.storeRef(start.loadRef())
        init = b.endCell()
      }
    }
    body = cs.loadBit() ? cs.loadRef() : cs.asCell()
  } catch (e) {
    throw new DecodeError({ reason: "bad_message", message: `${path}: ${errorText(e)}`, hash: txHash, position: path })
  }
  if (rejectExotic) assertNoProofCells(body, `${path}.body`, txHash)

  const bodyContent = content(body)
  const opcode = bodyOpcode(body)
  const initContent = init === null ? null : content(init)

  if (info.type === "internal") {
    return {
      type: "int",
      hash,
      hash_norm: null,
      source: rawFromAddress(info.src),
      destination: rawFromAddress(info.dest),
      value: info.value.coins.toString(),
      value_extra_currencies: extraCurrencies(info.value),
      fwd_fee: info.forwardFee.toString(),
      ihr_fee: info.ihrFee.toString(),
      import_fee: null,
      created_lt: info.createdLt.toString(),
      created_at: info.createdAt,
      opcode,
      ihr_disabled: info.ihrDisabled,
      bounce: info.bounce,
      bounced: info.bounced,
      body: bodyContent,
      init_state: initContent
    }
  }
  if (info.type === "external-in") {
    // The indexer's normalized hash: the same message with addr_none source, zero import fee, no init, body in a ref.
    const norm = b64(
      beginCell()
        .storeUint(2, 2)
        .storeUint(0, 2)
        .storeAddress(info.dest)
        .storeCoins(0)
        .storeBit(0)
        .storeBit(1)
        .storeRef(body)
        .endCell()
        .hash()
    )
    return {
      type: "ext_in",
      hash,
      hash_norm: norm === hash ? null : norm,
      source: null,
      destination: rawFromAddress(info.dest),
      value: null,
      value_extra_currencies: null,
      fwd_fee: null,
      ihr_fee: null,
      import_fee: info.importFee.toString(),
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
    source: rawFromAddress(info.src),
    destination: null,
    value: null,
    value_extra_currencies: null,
    fwd_fee: null,
    ihr_fee: null,
    import_fee: null,
    created_lt: info.createdLt.toString(),
    created_at: info.createdAt,
    opcode,
    ihr_disabled: null,
    bounce: null,
    bounced: null,
    body: bodyContent,
    init_state: initContent
  }
}

/** Proof-type exotic cells (pruned branch, Merkle proof/update) in a body are refused by default, with their path. */
const assertNoProofCells = (root: Cell, path: string, txHash: HashB64): void => {
  const seen = new Set<Cell>()
  const walk = (cell: Cell, at: string): void => {
    if (seen.has(cell)) return
    seen.add(cell)
    if (cell.isExotic && cell.type !== CellType.Library) {
      throw new DecodeError({
        reason: "exotic_cell",
        message: `exotic cell (type ${cell.type}) ${b64(cell.hash())} at ${at}`,
        hash: txHash,
        position: at
      })
    }
    for (let i = 0; i < cell.refs.length; i++) walk(cell.refs[i]!, `${at}/${i}`)
  }
  walk(root, path)
}

/** First 32 bits of a body as an unsigned number; null for shorter bodies (the indexer's `opcode`). */
export const bodyOpcode = (body: Cell): number | null =>
  body.bits.length >= 32 ? body.beginParse(true).preloadUint(32) : null

const content = (cell: Cell): MessageContent => ({ hash: b64(cell.hash()), boc: serializeBocBase64(cell) })

const b64 = (buf: Buffer): HashB64 => buf.toString("base64")

const hashFromBigint = (v: bigint): HashB64 => Buffer.from(v.toString(16).padStart(64, "0"), "hex").toString("base64")

const mapStatus = (s: CoreAccountStatus): AccountStatus => {
  switch (s) {
    case "uninitialized":
      return "uninit"
    case "non-existing":
      return "nonexist"
    default:
      return s
  }
}

const mapStatusChange = (s: AccountStatusChange): "unchanged" | "frozen" | "deleted" => s

export const extraCurrencies = (cc: CurrencyCollection): ExtraCurrencies => {
  const out: Record<string, string> = {}
  if (cc.other) {
    const keys = [...cc.other.keys()].sort((a, b) => a - b)
    for (const k of keys) out[String(k)] = cc.other.get(k)!.toString()
  }
  return out
}

const mapStorage = (p: TransactionStoragePhase): StoragePhase => ({
  storage_fees_collected: p.storageFeesCollected.toString(),
  storage_fees_due: p.storageFeesDue == null ? null : p.storageFeesDue.toString(),
  status_change: mapStatusChange(p.statusChange)
})

const mapCredit = (p: TransactionCreditPhase): CreditPhase => ({
  due_fees_collected: p.dueFeesColelcted == null ? null : p.dueFeesColelcted.toString(),
  credit: p.credit.coins.toString(),
  credit_extra_currencies: extraCurrencies(p.credit)
})

const mapCompute = (p: TransactionComputePhase): ComputePhase => {
  if (p.type === "skipped") {
    const reason = p.reason === "no-state" ? "no_state" : p.reason === "bad-state" ? "bad_state" : "no_gas"
    return { skipped: true, reason }
  }
  return {
    skipped: false,
    success: p.success,
    msg_state_used: p.messageStateUsed,
    account_activated: p.accountActivated,
    gas_fees: p.gasFees.toString(),
    gas_used: p.gasUsed.toString(),
    gas_limit: p.gasLimit.toString(),
    gas_credit: p.gasCredit == null ? null : p.gasCredit.toString(),
    mode: p.mode,
    exit_code: p.exitCode,
    exit_arg: p.exitArg == null ? null : p.exitArg,
    vm_steps: p.vmSteps,
    vm_init_state_hash: hashFromBigint(p.vmInitStateHash),
    vm_final_state_hash: hashFromBigint(p.vmFinalStateHash)
  }
}

const mapAction = (p: TransactionActionPhase): ActionPhase => ({
  success: p.success,
  valid: p.valid,
  no_funds: p.noFunds,
  status_change: mapStatusChange(p.statusChange),
  total_fwd_fees: p.totalFwdFees == null ? null : p.totalFwdFees.toString(),
  total_action_fees: p.totalActionFees == null ? null : p.totalActionFees.toString(),
  result_code: p.resultCode,
  result_arg: p.resultArg == null ? null : p.resultArg,
  tot_actions: p.totalActions,
  spec_actions: p.specActions,
  skipped_actions: p.skippedActions,
  msgs_created: p.messagesCreated,
  action_list_hash: hashFromBigint(p.actionListHash),
  tot_msg_size: { cells: p.totalMessageSize.cells.toString(), bits: p.totalMessageSize.bits.toString() }
})

const mapBounce = (p: TransactionBouncePhase): BouncePhase => {
  switch (p.type) {
    case "negative-funds":
      return { type: "negfunds" }
    case "no-funds":
      return {
        type: "nofunds",
        msg_size: { cells: p.messageSize.cells.toString(), bits: p.messageSize.bits.toString() },
        req_fwd_fees: p.requiredForwardFees.toString()
      }
    case "ok":
      return {
        type: "ok",
        msg_size: { cells: p.messageSize.cells.toString(), bits: p.messageSize.bits.toString() },
        msg_fees: p.messageFees.toString(),
        fwd_fees: p.forwardFees.toString()
      }
  }
}

/** @ton/core's description loader, plus the ordinary transaction with cskip_suspended$110 that it does not know. */
const loadDescription = (cell: Cell, workchain: number): TxDescription => {
  try {
    return mapDescription(loadTransactionDescription(cell.beginParse()), workchain)
  } catch (e) {
    const suspended = loadSuspendedOrd(cell.beginParse())
    if (suspended === null) throw e
    return suspended
  }
}

/** trans_ord whose compute phase was skipped because the account is suspended; null for anything else. */
const loadSuspendedOrd = (s: Slice): TxDescription | null => {
  if (s.loadUint(4) !== 0) return null
  const credit_first = s.loadBit()
  const storage = s.loadBit() ? loadTransactionStoragePhase(s) : null
  const credit = s.loadBit() ? loadTransactionCreditPhase(s) : null
  if (s.loadBit() || s.loadUint(3) !== 0b110) return null
  const action = s.loadBit() ? loadTransactionActionPhase(s.loadRef().beginParse()) : null
  const aborted = s.loadBit()
  const bounce = s.loadBit() ? loadTransactionBouncePhase(s) : null
  const destroyed = s.loadBit()
  return {
    type: "ord",
    aborted,
    destroyed,
    credit_first,
    ...(storage ? { storage_ph: mapStorage(storage) } : {}),
    ...(credit ? { credit_ph: mapCredit(credit) } : {}),
    compute_ph: { skipped: true, reason: "suspended" },
    ...(action ? { action: mapAction(action) } : {}),
    ...(bounce ? { bounce: mapBounce(bounce) } : {})
  }
}

const mapDescription = (d: TransactionDescription, workchain: number): TxDescription => {
  const splitInfo = (s: SplitMergeInfo) => ({
    cur_shard_pfx_len: s.currentShardPrefixLength,
    acc_split_depth: s.accountSplitDepth,
    this_addr: rawFromBigint(workchain, s.thisAddress),
    sibling_addr: rawFromBigint(workchain, s.siblingAddress)
  })
  switch (d.type) {
    case "generic":
      return {
        type: "ord",
        aborted: d.aborted,
        destroyed: d.destroyed,
        credit_first: d.creditFirst,
        ...(d.storagePhase ? { storage_ph: mapStorage(d.storagePhase) } : {}),
        ...(d.creditPhase ? { credit_ph: mapCredit(d.creditPhase) } : {}),
        compute_ph: mapCompute(d.computePhase),
        ...(d.actionPhase ? { action: mapAction(d.actionPhase) } : {}),
        ...(d.bouncePhase ? { bounce: mapBounce(d.bouncePhase) } : {})
      }
    case "storage":
      return { type: "storage", storage_ph: mapStorage(d.storagePhase) }
    case "tick-tock":
      return {
        type: "tick_tock",
        aborted: d.aborted,
        destroyed: d.destroyed,
        is_tock: d.isTock,
        storage_ph: mapStorage(d.storagePhase),
        compute_ph: mapCompute(d.computePhase),
        ...(d.actionPhase ? { action: mapAction(d.actionPhase) } : {})
      }
    case "split-prepare":
      return {
        type: "split_prepare",
        aborted: d.aborted,
        destroyed: d.destroyed,
        ...(d.storagePhase ? { storage_ph: mapStorage(d.storagePhase) } : {}),
        compute_ph: mapCompute(d.computePhase),
        ...(d.actionPhase ? { action: mapAction(d.actionPhase) } : {}),
        split_info: splitInfo(d.splitInfo)
      }
    case "split-install":
      return { type: "split_install", installed: d.installed, split_info: splitInfo(d.splitInfo) }
    case "merge-prepare":
      return {
        type: "merge_prepare",
        aborted: d.aborted,
        storage_ph: mapStorage(d.storagePhase),
        split_info: splitInfo(d.splitInfo)
      }
    case "merge-install":
      return {
        type: "merge_install",
        aborted: d.aborted,
        destroyed: d.destroyed,
        ...(d.storagePhase ? { storage_ph: mapStorage(d.storagePhase) } : {}),
        ...(d.creditPhase ? { credit_ph: mapCredit(d.creditPhase) } : {}),
        compute_ph: mapCompute(d.computePhase),
        ...(d.actionPhase ? { action: mapAction(d.actionPhase) } : {}),
        split_info: splitInfo(d.splitInfo)
      }
  }
}
