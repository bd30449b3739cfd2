/**
 * Random transaction BOCs for comparing decoders, written cell by cell with @ton/core's builder so every TL-B
 * branch a decoder reads is reached: internal, external-in and external-out messages (addr_extern and anycast
 * addresses, extra currencies, huge coin amounts), state inits inline and by ref (split depth, tick-tock, libraries),
 * bodies inline and by ref, library / pruned-branch / Merkle-proof cells in bodies, heavy and shared subtrees, and
 * every description kind (ordinary with all phase shapes, suspended, storage, tick-tock, split prepare and install).
 * Plus damaged copies: truncations, bit flips with and without a repaired CRC32C, broken base64.
 * Invariant: the output depends only on the seed.
 */
import {
  beginCell,
  type Builder,
  Cell,
  Dictionary,
  storeTransactionActionPhase,
  storeTransactionBouncePhase,
  storeTransactionComputePhase,
  storeTransactionCreditPhase,
  storeTransactionDescription,
  type TransactionActionPhase,
  type TransactionBouncePhase,
  type TransactionComputePhase,
  type TransactionCreditPhase,
  type TransactionDescription,
  type TransactionStoragePhase
} from "@ton/core"
import { serializeBoc } from "../../src/ton/boc.js"
import { crc32c } from "../../src/ton/fastHash.js"
import { makeRng, type Rng } from "../fake/txgen.js"

const coins = (rng: Rng): bigint => {
  const k = rng.int(0, 9)
  if (k === 0) return 0n
  if (k === 9) return (1n << BigInt(rng.int(53, 119))) + BigInt(rng.int(0, 1e9)) // wider than a double
  return BigInt(rng.int(0, 2 ** 31)) * BigInt(rng.int(1, 2 ** 22))
}

const extraDict = (rng: Rng) => {
  const d = Dictionary.empty(Dictionary.Keys.Uint(32), Dictionary.Values.BigVarUint(5))
  const n = rng.int(1, 4)
  for (let i = 0; i < n; i++) d.set(rng.chance(0.5) ? rng.int(0, 300) : rng.int(0, 2 ** 32 - 1), coins(rng) + 1n)
  return d
}

const storeCurrency = (rng: Rng, b: Builder): void => {
  b.storeCoins(coins(rng))
  b.storeDict(rng.chance(0.15) ? extraDict(rng) : null)
}

const storeAddress = (rng: Rng, b: Builder): void => {
  b.storeUint(2, 2)
  if (rng.chance(0.05)) {
    const depth = rng.int(0, 30)
    b.storeBit(1).storeUint(depth, 5).storeUint(rng.int(0, 2 ** depth - 1), depth)
  } else b.storeBit(0)
  b.storeInt(rng.chance(0.8) ? 0 : rng.chance(0.9) ? -1 : rng.int(-128, 127), 8)
  b.storeBuffer(rng.bytes(32))
}

const storeExternal = (rng: Rng, b: Builder): void => {
  if (rng.chance(0.7)) b.storeUint(0, 2)
  else {
    const len = rng.int(0, 80)
    b.storeUint(1, 2).storeUint(len, 9)
    for (let i = 0; i < len; i++) b.storeBit(rng.chance(0.5))
  }
}

/** A random tree of ordinary cells: up to `budget` cells, some of them shared (the same cell under two parents). */
const tree = (rng: Rng, budget: number, pool: Array<Cell>): Cell => {
  const b = beginCell()
  const bits = rng.chance(0.3) ? rng.int(0, 16) : rng.int(0, 1023)
  for (let i = 0; i < bits; i++) b.storeBit(rng.chance(0.5))
  let left = budget - 1
  const refs = left > 0 ? rng.int(0, 4) : 0
  for (let r = 0; r < refs && left > 0; r++) {
    if (pool.length > 0 && rng.chance(0.2)) b.storeRef(pool[rng.int(0, pool.length - 1)]!)
    else {
      const share = rng.int(1, left)
      left -= share
      b.storeRef(tree(rng, share, pool))
    }
  }
  const cell = b.endCell()
  pool.push(cell)
  return cell
}

const libraryCell = (rng: Rng): Cell =>
  beginCell().storeUint(2, 8).storeBuffer(rng.bytes(32)).endCell({ exotic: true })

/** A Merkle proof over a small tree whose one branch is pruned: a level-0 exotic cell holding a level-1 one. */
const merkleProof = (rng: Rng): Cell => {
  const hidden = tree(rng, rng.int(1, 4), [])
  const pruned = beginCell()
    .storeUint(1, 8)
    .storeUint(1, 8)
    .storeBuffer(hidden.hash())
    .storeUint(hidden.depth(), 16)
    .endCell({ exotic: true })
  const inner = beginCell().storeUint(rng.int(0, 1000), 32).storeRef(pruned).endCell()
  return beginCell().storeUint(3, 8).storeBuffer(inner.hash(0)).storeUint(inner.depth(0), 16).storeRef(inner).endCell({
    exotic: true
  })
}

const body = (rng: Rng): Cell => {
  const k = rng.int(0, 19)
  if (k === 0) return Cell.EMPTY
  if (k === 1) {
    const n = rng.int(1, 31)
    return beginCell().storeUint(rng.int(0, 2 ** n - 1), n).endCell()
  }
  if (k === 2) return beginCell().storeUint(rng.int(0, 2 ** 32 - 1), 32).storeRef(libraryCell(rng)).endCell()
  if (k === 3) return beginCell().storeUint(0x12345678, 32).storeRef(merkleProof(rng)).endCell()
  if (k === 4) return libraryCell(rng)
  if (k <= 6) return tree(rng, rng.int(60, 200), []) // heavy: weights past the node's 64 limit
  if (k === 7) {
    // a deep chain
    let c = beginCell().storeUint(1, 8).endCell()
    for (let i = rng.int(10, 200); i > 0; i--) c = beginCell().storeUint(i, 16).storeRef(c).endCell()
    return c
  }
  return tree(rng, rng.int(1, 12), [])
}

const storeStateInit = (rng: Rng, b: Builder): void => {
  if (rng.chance(0.1)) b.storeBit(1).storeUint(rng.int(0, 31), 5)
  else b.storeBit(0)
  if (rng.chance(0.1)) b.storeBit(1).storeBit(rng.chance(0.5)).storeBit(rng.chance(0.5))
  else b.storeBit(0)
  b.storeMaybeRef(rng.chance(0.9) ? (rng.chance(0.2) ? libraryCell(rng) : tree(rng, rng.int(1, 20), [])) : null)
  b.storeMaybeRef(rng.chance(0.8) ? tree(rng, rng.int(1, 5), []) : null)
  if (rng.chance(0.1)) {
    const libs = Dictionary.empty(Dictionary.Keys.BigUint(256), {
      serialize: (v: { public: boolean; root: Cell }, lb: Builder) => lb.storeBit(v.public).storeRef(v.root),
      parse: (s) => ({ public: s.loadBit(), root: s.loadRef() })
    })
    for (let i = rng.int(1, 3); i > 0; i--) libs.set(rng.big256(), { public: rng.chance(0.5), root: tree(rng, 2, []) })
    b.storeDict(libs)
  } else b.storeBit(0)
}

const message = (rng: Rng, kind: "int" | "ext_in" | "ext_out"): Cell => {
  const b = beginCell()
  if (kind === "int") {
    b.storeBit(0).storeBit(rng.chance(0.5)).storeBit(rng.chance(0.5)).storeBit(rng.chance(0.2))
    storeAddress(rng, b)
    storeAddress(rng, b)
    storeCurrency(rng, b)
    b.storeCoins(coins(rng)).storeCoins(coins(rng))
    b.storeUint(BigInt.asUintN(64, BigInt(rng.int(0, 2 ** 31)) * 4294967296n * BigInt(rng.int(0, 4096))), 64)
    b.storeUint(rng.int(0, 2 ** 32 - 1), 32)
  } else if (kind === "ext_in") {
    b.storeUint(2, 2)
    storeExternal(rng, b)
    storeAddress(rng, b)
    b.storeCoins(coins(rng))
  } else {
    b.storeUint(3, 2)
    storeAddress(rng, b)
    storeExternal(rng, b)
    b.storeUint(BigInt(rng.int(0, 2 ** 31)) * 1000n, 64).storeUint(rng.int(0, 2 ** 32 - 1), 32)
  }
  if (rng.chance(0.2)) {
    const init = beginCell()
    storeStateInit(rng, init)
    const initCell = init.endCell()
    if (rng.chance(0.5) && b.availableBits > initCell.bits.length + 1 && b.availableRefs > initCell.refs.length) {
      b.storeBit(1).storeBit(0).storeSlice(initCell.beginParse())
    } else b.storeBit(1).storeBit(1).storeRef(initCell)
  } else b.storeBit(0)
  const content = body(rng)
  if (
    !content.isExotic &&
    rng.chance(0.5) &&
    b.availableBits > content.bits.length + 1 &&
    b.availableRefs >= content.refs.length
  ) {
    b.storeBit(0).storeSlice(content.beginParse())
  } else b.storeBit(1).storeRef(content)
  return b.endCell()
}

const storagePhase = (rng: Rng): TransactionStoragePhase => ({
  storageFeesCollected: coins(rng),
  storageFeesDue: rng.chance(0.2) ? coins(rng) : undefined,
  statusChange: rng.chance(0.8) ? "unchanged" : rng.chance(0.5) ? "frozen" : "deleted"
})

const storeStorage = (p: TransactionStoragePhase, b: Builder): void => {
  b.storeCoins(p.storageFeesCollected)
  if (p.storageFeesDue == null) b.storeBit(0)
  else b.storeBit(1).storeCoins(p.storageFeesDue)
  if (p.statusChange === "unchanged") b.storeBit(0)
  else b.storeBit(1).storeBit(p.statusChange === "deleted")
}

const creditPhase = (rng: Rng): TransactionCreditPhase => {
  const other = rng.chance(0.2) ? extraDict(rng) : undefined
  return {
    dueFeesColelcted: rng.chance(0.3) ? coins(rng) : undefined,
    credit: other ? { coins: coins(rng), other } : { coins: coins(rng) }
  }
}

const computePhase = (rng: Rng): TransactionComputePhase => {
  if (rng.chance(0.15)) return { type: "skipped", reason: (["no-state", "bad-state", "no-gas"] as const)[rng.int(0, 2)]! }
  const signed = () => rng.int(-(2 ** 31), 2 ** 31 - 1)
  return {
    type: "vm",
    success: rng.chance(0.7),
    messageStateUsed: rng.chance(0.2),
    accountActivated: rng.chance(0.2),
    gasFees: coins(rng),
    gasUsed: BigInt(rng.int(0, 2 ** 40)),
    gasLimit: rng.chance(0.1) ? (1n << 55n) + 7n : BigInt(rng.int(0, 2 ** 30)),
    gasCredit: rng.chance(0.3) ? BigInt(rng.int(0, 65535)) : undefined,
    mode: rng.int(0, 255),
    exitCode: signed(),
    exitArg: rng.chance(0.2) ? signed() : undefined,
    vmSteps: rng.int(0, 2 ** 32 - 1),
    vmInitStateHash: rng.big256(),
    vmFinalStateHash: rng.big256()
  }
}

const actionPhase = (rng: Rng): TransactionActionPhase => ({
  success: rng.chance(0.8),
  valid: rng.chance(0.9),
  noFunds: rng.chance(0.1),
  statusChange: rng.chance(0.8) ? "unchanged" : rng.chance(0.5) ? "frozen" : "deleted",
  totalFwdFees: rng.chance(0.6) ? coins(rng) : undefined,
  totalActionFees: rng.chance(0.6) ? coins(rng) : undefined,
  resultCode: rng.int(-(2 ** 31), 2 ** 31 - 1),
  resultArg: rng.chance(0.2) ? rng.int(-(2 ** 31), 2 ** 31 - 1) : undefined,
  totalActions: rng.int(0, 65535),
  specActions: rng.int(0, 65535),
  skippedActions: rng.int(0, 65535),
  messagesCreated: rng.int(0, 65535),
  actionListHash: rng.big256(),
  totalMessageSize: { cells: BigInt(rng.int(0, 2 ** 40)), bits: BigInt(rng.int(0, 2 ** 40)) }
})

const bouncePhase = (rng: Rng): TransactionBouncePhase => {
  const k = rng.int(0, 2)
  const size = { cells: BigInt(rng.int(0, 1000)), bits: BigInt(rng.int(0, 100000)) }
  if (k === 0) return { type: "negative-funds" }
  if (k === 1) return { type: "no-funds", messageSize: size, requiredForwardFees: coins(rng) }
  return { type: "ok", messageSize: size, messageFees: coins(rng), forwardFees: coins(rng) }
}

const splitInfo = (rng: Rng) => ({
  currentShardPrefixLength: rng.int(0, 63),
  accountSplitDepth: rng.int(0, 63),
  thisAddress: rng.big256(),
  siblingAddress: rng.big256()
})

/** trans_ord with cskip_suspended$110 (which @ton/core cannot write). */
const suspendedOrd = (rng: Rng): Cell => {
  const b = beginCell().storeUint(0, 4).storeBit(rng.chance(0.5))
  if (rng.chance(0.7)) {
    b.storeBit(1)
    storeStorage(storagePhase(rng), b)
  } else b.storeBit(0)
  if (rng.chance(0.5)) b.storeBit(1).store(storeTransactionCreditPhase(creditPhase(rng)))
  else b.storeBit(0)
  b.storeBit(0).storeUint(0b110, 3)
  if (rng.chance(0.3)) b.storeBit(1).storeRef(beginCell().store(storeTransactionActionPhase(actionPhase(rng))))
  else b.storeBit(0)
  b.storeBit(rng.chance(0.5))
  if (rng.chance(0.3)) b.storeBit(1).store(storeTransactionBouncePhase(bouncePhase(rng)))
  else b.storeBit(0)
  return b.storeBit(rng.chance(0.1)).endCell()
}

const description = (rng: Rng, depth: number): Cell => {
  const k = rng.int(0, 29)
  if (k === 0) return suspendedOrd(rng)
  if (k === 1) return beginCell().storeUint(1, 4).store((b) => storeStorage(storagePhase(rng), b)).endCell()
  if (k <= 3) {
    // tick-tock, written by hand: @ton/core's writer needs the storage phase writer it does not export
    const b = beginCell().storeUint(k === 2 ? 2 : 3, 4)
    storeStorage(storagePhase(rng), b)
    b.store(storeTransactionComputePhase(computePhase(rng)))
    if (rng.chance(0.5)) b.storeBit(1).storeRef(beginCell().store(storeTransactionActionPhase(actionPhase(rng))))
    else b.storeBit(0)
    return b.storeBit(rng.chance(0.1)).storeBit(rng.chance(0.05)).endCell()
  }
  if (k === 4) {
    const b = beginCell().storeUint(4, 4)
    const s = splitInfo(rng)
    b.storeUint(s.currentShardPrefixLength, 6).storeUint(s.accountSplitDepth, 6)
    b.storeUint(s.thisAddress, 256).storeUint(s.siblingAddress, 256)
    if (rng.chance(0.5)) {
      b.storeBit(1)
      storeStorage(storagePhase(rng), b)
    } else b.storeBit(0)
    b.store(storeTransactionComputePhase(computePhase(rng)))
    if (rng.chance(0.5)) b.storeBit(1).storeRef(beginCell().store(storeTransactionActionPhase(actionPhase(rng))))
    else b.storeBit(0)
    return b.storeBit(rng.chance(0.1)).storeBit(rng.chance(0.05)).endCell()
  }
  if (k === 5 && depth === 0) {
    const s = splitInfo(rng)
    const b = beginCell().storeUint(5, 4).storeUint(s.currentShardPrefixLength, 6).storeUint(s.accountSplitDepth, 6)
    b.storeUint(s.thisAddress, 256).storeUint(s.siblingAddress, 256)
    return b.storeRef(transactionCell(rng, 1)).storeBit(rng.chance(0.5)).endCell()
  }
  if (k === 6) return beginCell().storeUint(rng.int(6, 15), 4).storeUint(rng.int(0, 2 ** 20), 20).endCell()
  const d: TransactionDescription = {
    type: "generic",
    creditFirst: rng.chance(0.5),
    storagePhase: rng.chance(0.7) ? storagePhase(rng) : undefined,
    creditPhase: rng.chance(0.6) ? creditPhase(rng) : undefined,
    computePhase: computePhase(rng),
    actionPhase: rng.chance(0.6) ? actionPhase(rng) : undefined,
    aborted: rng.chance(0.2),
    bouncePhase: rng.chance(0.2) ? bouncePhase(rng) : undefined,
    destroyed: rng.chance(0.05)
  }
  if (d.storagePhase == null) return beginCell().store(storeTransactionDescription(d)).endCell()
  // @ton/core writes the storage phase through a writer it does not export; write ord by hand to reach it.
  const b = beginCell().storeUint(0, 4).storeBit(d.creditFirst).storeBit(1)
  storeStorage(d.storagePhase, b)
  if (d.creditPhase) b.storeBit(1).store(storeTransactionCreditPhase(d.creditPhase))
  else b.storeBit(0)
  b.store(storeTransactionComputePhase(d.computePhase))
  if (d.actionPhase) b.storeBit(1).storeRef(beginCell().store(storeTransactionActionPhase(d.actionPhase)))
  else b.storeBit(0)
  b.storeBit(d.aborted)
  if (d.bouncePhase) b.storeBit(1).store(storeTransactionBouncePhase(d.bouncePhase))
  else b.storeBit(0)
  return b.storeBit(d.destroyed).endCell()
}

/**
 * Messages and descriptions are drawn from pools built once per 2,048 cases (building cells with @ton/core is what
 * costs here): transactions differ in how they combine them and in their own fields, the pools in every generation.
 */
interface Pools {
  readonly key: string
  readonly int: Array<Cell>
  readonly extIn: Array<Cell>
  readonly extOut: Array<Cell>
  readonly descriptions: Array<Cell>
}
const POOL_SPAN = 2048
let pools: Pools | null = null

const poolsFor = (seed: number, index: number): Pools => {
  const key = `${seed}/${Math.floor(index / POOL_SPAN)}`
  if (pools?.key === key) return pools
  const rng = makeRng(seed * 7919 + Math.floor(index / POOL_SPAN) + 1)
  const make = <A>(n: number, f: () => A): Array<A> => Array.from({ length: n }, f)
  pools = {
    key,
    int: make(160, () => message(rng, "int")),
    extIn: make(60, () => message(rng, "ext_in")),
    extOut: make(60, () => message(rng, "ext_out")),
    descriptions: make(120, () => description(rng, 0))
  }
  return pools
}

const pick = <A>(rng: Rng, xs: ReadonlyArray<A>): A => xs[rng.int(0, xs.length - 1)]!

const outMessage = (rng: Rng, p: Pools): Cell => {
  const k = rng.int(0, 9)
  return k < 7 ? pick(rng, p.int) : k < 9 ? pick(rng, p.extOut) : pick(rng, p.extIn)
}

const transactionCell = (rng: Rng, depth = 0, p: Pools | null = null): Cell => {
  const inKind = rng.chance(0.1) ? null : rng.chance(0.3) ? "ext_in" : "int"
  const outCount = rng.chance(0.4) ? 0 : rng.int(1, rng.chance(0.9) ? 4 : 40)
  const outs = Dictionary.empty(Dictionary.Keys.Uint(15), Dictionary.Values.Cell())
  for (let i = 0; i < outCount; i++) outs.set(i, p === null ? message(rng, "int") : outMessage(rng, p))
  const msgs = beginCell()
  if (inKind === null) msgs.storeBit(0)
  else if (p === null) msgs.storeBit(1).storeRef(message(rng, inKind))
  else msgs.storeBit(1).storeRef(pick(rng, inKind === "int" ? p.int : p.extIn))
  msgs.storeDict(outs.size > 0 ? outs : null)
  const b = beginCell().storeUint(7, 4).storeBuffer(rng.bytes(32))
  b.storeUint(BigInt.asUintN(64, BigInt(rng.int(0, 2 ** 31)) * BigInt(rng.int(0, 2 ** 31)) * BigInt(rng.int(1, 8))), 64)
  b.storeBuffer(rng.bytes(32)).storeUint(BigInt(rng.int(0, 2 ** 31)) * 1000n, 64)
  b.storeUint(rng.int(0, 2 ** 32 - 1), 32).storeUint(outCount, 15)
  b.storeUint(rng.int(0, 3), 2).storeUint(rng.int(0, 3), 2)
  b.storeRef(msgs.endCell())
  storeCurrency(rng, b)
  b.storeRef(beginCell().storeUint(0x72, 8).storeBuffer(rng.bytes(32)).storeBuffer(rng.bytes(32)).endCell())
  b.storeRef(p === null || rng.chance(0.05) ? description(rng, depth) : pick(rng, p.descriptions))
  return b.endCell()
}

export interface RandomCase {
  readonly boc: string
  readonly workchain: number
  readonly damaged: boolean
}

/**
 * The `index`-th case of the stream seeded by `seed`: a random transaction in the node's BOC form (standard or
 * url-safe base64, with or without CRC32C, sometimes with an index), and every fourth one damaged.
 */
export const randomCase = (seed: number, index: number): RandomCase => {
  const rng = makeRng(seed * 1_000_003 + index)
  const cell = transactionCell(rng, 0, poolsFor(seed, index))
  // Mostly the node's own layout (as upstream serves it); sometimes @ton/core's, with an index or without a CRC.
  const crc = rng.chance(0.95)
  let bytes = crc && rng.chance(0.9) ? serializeBoc(cell) : cell.toBoc({ idx: rng.chance(0.3), crc32: crc })
  const workchain = rng.chance(0.8) ? 0 : -1
  const damaged = index % 4 === 3
  if (damaged) bytes = damage(rng, bytes, crc)
  let boc = bytes.toString("base64")
  if (rng.chance(0.05)) boc = boc.replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "")
  if (damaged && rng.chance(0.05)) boc = boc.slice(0, rng.int(0, boc.length)) + "*" + boc.slice(rng.int(0, boc.length))
  return { boc, workchain, damaged }
}

const damage = (rng: Rng, bytes: Buffer, crc: boolean): Buffer => {
  const k = rng.int(0, 3)
  if (k === 0) return bytes.subarray(0, rng.int(0, bytes.length - 1))
  const out = Buffer.from(bytes)
  for (let i = rng.int(1, 3); i > 0; i--) out[rng.int(0, out.length - 1)]! ^= 1 << rng.int(0, 7)
  // A repaired CRC lets the flip reach the cell and TL-B readers instead of stopping at the checksum.
  if (crc && k >= 2) out.writeUInt32LE(crc32c(out.subarray(0, out.length - 4)), out.length - 4)
  return out
}
