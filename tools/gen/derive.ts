/**
 * Volume from a base set: replica k of the emulated transactions is the same activity re-labelled as happening later,
 * on fresh user accounts. Every address except the long-lived "hub" contracts (highload wallets, jetton minters, NFT
 * collection, loggers, special accounts) is mapped to a new one per replica, hubs to one per lane (replicas k with
 * equal k % lanes share hubs, so lanes are independent and derive in parallel); lt, created_lt, now and created_at
 * shift by k whole base spans; each account's prev_trans hash/lt and state-hash chain are re-linked to the derived
 * history. Compute/action phases, fees and bodies stay exactly as the emulator executed them.
 * Invariant: replica 0 is the emulator's output bit for bit, and (account, lt) is unique across replicas, so every
 * derived transaction has a distinct hash. Known simplification: addresses inside message bodies (jetton destination,
 * NFT new owner) and state inits keep their base values, so a derived deploy's address is not the hash of its init.
 */
import { Address, beginCell, Cell, loadCommonMessageInfo, storeCommonMessageInfo } from "@ton/core"
import type { CommonMessageInfo } from "@ton/core"
import { createHash } from "node:crypto"
import type { GenTxAfter } from "./types.js"

/** One emulated transaction with the workchain of its account (the transaction cell itself only has the 256 bits). */
export interface BaseTx {
  readonly cell: Cell
  readonly workchain: number
}

/** Header fields read without decoding the whole transaction. */
export interface TxHead {
  readonly address: bigint
  readonly lt: bigint
  readonly now: number
}

export const readHead = (cell: Cell): TxHead => {
  const s = cell.beginParse()
  s.skip(4)
  const address = s.loadUintBig(256)
  const lt = s.loadUintBig(64)
  s.skip(256 + 64)
  return { address, lt, now: s.loadUint(32) }
}

const STATUSES = ["uninit", "frozen", "active", "nonexist"] as const

/** The account a transaction leaves: `end_status` from the root's bits, `new_hash` from its state_update cell. */
export const readAfter = (cell: Cell): GenTxAfter => {
  const s = cell.beginParse()
  s.skip(4 + 256 + 64 + 256 + 64 + 32 + 15 + 2)
  const status = STATUSES[s.loadUint(2)]!
  const update = cell.refs[cell.refs.length - 2]!.beginParse()
  update.skip(8 + 256)
  return { hash: update.loadBuffer(32).toString("base64"), status }
}

const ZERO_HASH = 0n

interface ChainState {
  hash: bigint
  lt: bigint
  stateHash: Buffer
}

const bufToBig = (b: Buffer): bigint => BigInt("0x" + b.toString("hex"))

export interface DeriverOptions {
  readonly seed: string
  /** Raw addresses ("wc:hex" lower-case) that keep their identity across replicas. */
  readonly hubs: ReadonlySet<string>
  /** Distance in lt between replicas: larger than the base set's lt span, a multiple of 1e6. */
  readonly ltSpan: bigint
  /** Distance in seconds between replicas: larger than the base set's time span. */
  readonly timeSpan: number
  /** Number of independent lanes (hub identities); part of the output's definition, not of the machine. */
  readonly lanes: number
}

/**
 * Stateful: transactions must be fed in global lt order (replica by replica), because prev_trans links and state
 * hashes chain through what was emitted before.
 */
export class Deriver {
  private readonly chains = new Map<string, ChainState>()
  private readonly addrCache = new Map<string, bigint>()
  private addrCacheReplica = -1

  constructor(private readonly opts: DeriverOptions) {}

  /** The derived 256-bit account id of a base account in replica k (needed before derivation, to pick a shard). */
  mapAccount(workchain: number, id: bigint, k: number): bigint {
    const lane = k % this.opts.lanes
    if (k === 0) return id
    if (this.addrCacheReplica !== k) {
      this.addrCache.clear()
      this.addrCacheReplica = k
    }
    const key = `${workchain}:${id.toString(16).padStart(64, "0")}`
    const hub = this.opts.hubs.has(key)
    if (hub && lane === 0) return id
    let v = this.addrCache.get(key)
    if (v === undefined) {
      const scope = hub ? `lane\u0000${lane}` : `replica\u0000${k}`
      v = bufToBig(createHash("sha256").update(`${this.opts.seed}\u0000${scope}\u0000${key}`).digest())
      this.addrCache.set(key, v)
    }
    return v
  }

  private mapAddress(a: Address, k: number): Address {
    if (k === 0) return a
    const id = this.mapAccount(a.workChain, bufToBig(a.hash), k)
    return new Address(a.workChain, Buffer.from(id.toString(16).padStart(64, "0"), "hex"))
  }

  private rewriteMessage(msg: Cell, k: number): Cell {
    const s = msg.beginParse()
    const info = loadCommonMessageInfo(s)
    const shift = BigInt(k) * this.opts.ltSpan
    const dt = k * this.opts.timeSpan
    let out: CommonMessageInfo
    if (info.type === "internal") {
      out = {
        ...info,
        src: this.mapAddress(info.src, k),
        dest: this.mapAddress(info.dest, k),
        createdLt: info.createdLt + shift,
        createdAt: info.createdAt + dt
      }
    } else if (info.type === "external-in") {
      out = { ...info, dest: this.mapAddress(info.dest, k) }
    } else {
      out = { ...info, src: this.mapAddress(info.src, k), createdLt: info.createdLt + shift, createdAt: info.createdAt + dt }
    }
    // The rest of the message (state init and body, inline or in refs) is copied as it was.
    return beginCell().store(storeCommonMessageInfo(out)).storeSlice(s).endCell()
  }

  /**
   * The out_msgs dictionary (HashmapE 15 ^Message) with every message rewritten and its shape kept: the keys do not
   * change, so each node keeps its label bits; a fork node has two refs (its children), a leaf exactly one (the
   * message). Re-serializing through Dictionary would rebuild the same tree far more slowly.
   */
  private rewriteOutDict(node: Cell, k: number): Cell {
    const b = beginCell().storeBits(node.bits)
    if (node.refs.length === 1) b.storeRef(this.rewriteMessage(node.refs[0]!, k))
    else for (const child of node.refs) b.storeRef(this.rewriteOutDict(child, k))
    return b.endCell()
  }

  /** Replica k of a base transaction: the new cell, its account id, lt and now. */
  derive(base: BaseTx, k: number): { cell: Cell; account: bigint; lt: bigint; now: number } {
    const s = base.cell.beginParse()
    s.skip(4)
    const baseAccount = s.loadUintBig(256)
    const baseLt = s.loadUintBig(64)
    const basePrevHash = s.loadUintBig(256)
    const basePrevLt = s.loadUintBig(64)
    const now = s.loadUint(32) + k * this.opts.timeSpan
    const account = this.mapAccount(base.workchain, baseAccount, k)
    const lt = baseLt + BigInt(k) * this.opts.ltSpan
    const key = `${base.workchain}:${account.toString(16)}`
    const chain = this.chains.get(key)
    // Without history in the derived stream the base link is kept (shifted), so a first transaction stays first.
    const prevHash = chain?.hash ?? (basePrevLt === 0n ? ZERO_HASH : basePrevHash)
    const prevLt = chain?.lt ?? (basePrevLt === 0n ? 0n : basePrevLt + BigInt(k) * this.opts.ltSpan)

    const refs = base.cell.refs
    const msgs = refs[0]!
    const hashUpdate = refs[refs.length - 2]!
    const description = refs[refs.length - 1]!

    const ms = msgs.beginParse()
    const hasIn = ms.loadBit()
    const inMsg = hasIn ? this.rewriteMessage(ms.loadRef(), k) : null
    const hasOuts = ms.loadBit()
    const msgBuilder = beginCell().storeBit(hasIn)
    if (inMsg) msgBuilder.storeRef(inMsg)
    msgBuilder.storeBit(hasOuts)
    if (hasOuts) msgBuilder.storeRef(this.rewriteOutDict(ms.loadRef(), k))
    const newMsgs = msgBuilder.endCell()

    const hs = hashUpdate.beginParse()
    const tag = hs.loadUint(8)
    const oldHash = hs.loadBuffer(32)
    const newHash = hs.loadBuffer(32)
    const derivedNew = k === 0 ? newHash : createHash("sha256").update(newHash).update(String(k)).digest()
    const derivedOld = chain?.stateHash ?? (k === 0 ? oldHash : createHash("sha256").update(oldHash).update(String(k)).digest())
    const newUpdate = beginCell().storeUint(tag, 8).storeBuffer(derivedOld).storeBuffer(derivedNew).endCell()

    const b = beginCell()
      .storeUint(7, 4)
      .storeUint(account, 256)
      .storeUint(lt, 64)
      .storeUint(prevHash, 256)
      .storeUint(prevLt, 64)
      .storeUint(now, 32)
    // out_msg_cnt, statuses and total_fees are copied bit for bit; refs are rebuilt around the unchanged description.
    b.storeBits(s.loadBits(s.remainingBits))
    b.storeRef(newMsgs)
    for (let i = 1; i < refs.length - 2; i++) b.storeRef(refs[i]!)
    b.storeRef(newUpdate).storeRef(description)
    const cell = b.endCell()
    this.chains.set(key, { hash: bufToBig(cell.hash()), lt, stateHash: derivedNew })
    return { cell, account, lt, now }
  }
}
