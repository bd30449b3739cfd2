/**
 * Account cell (block.tlb `Account`) -> the AccountStateRecord toncenter v3 serves: status, balance, extra
 * currencies, code / data hashes and the frozen state hash. Works on full cells and on the trees of a Merkle update,
 * where unchanged code and data are pruned branches: a cell's level-0 hash is the hash of the original cell either way.
 * Invariant: the record's `hash` is the Account cell's hash (what a transaction's HASH_UPDATE names); a cell that does
 * not read exactly as an Account (bits or refs left over, a pruned part that must be read) gives null, never a guess.
 */
import { type Cell, CellType, type Slice } from "@ton/core"
import type { AccountStateRecord, AccountStatus, ExtraCurrencies, RawAddress } from "./record.js"

const b64 = (c: Cell): string => c.hash(0).toString("base64")

const isPruned = (c: Cell): boolean => c.isExotic && c.type === CellType.PrunedBranch

/** `#<= m`: the number of bits needed to write m. */
const bitsFor = (m: number): number => Math.ceil(Math.log2(m + 1))

const loadVarUint = (s: Slice, lenBits: number): bigint => {
  const bytes = s.loadUint(lenBits)
  return bytes === 0 ? 0n : s.loadUintBig(bytes * 8)
}

/** HmLabel ~l n: the key bits of one edge. */
const loadLabel = (s: Slice, n: number): string => {
  if (!s.loadBit()) {
    let len = 0
    while (s.loadBit()) len += 1
    let out = ""
    for (let i = 0; i < len; i += 1) out += s.loadBit() ? "1" : "0"
    return out
  }
  if (!s.loadBit()) {
    const len = s.loadUint(bitsFor(n))
    let out = ""
    for (let i = 0; i < len; i += 1) out += s.loadBit() ? "1" : "0"
    return out
  }
  const bit = s.loadBit() ? "1" : "0"
  return bit.repeat(s.loadUint(bitsFor(n)))
}

/**
 * Walks a Hashmap(Aug) of n-bit keys, calling `leaf` with each key (as bits) and the slice at its leaf node; pruned
 * subtrees are skipped (in a Merkle tree they are the parts that did not change).
 */
export const walkHashmap = (
  root: Cell,
  n: number,
  leaf: (key: string, s: Slice) => void,
  forkExtra: (s: Slice) => void = () => undefined
): void => {
  const visit = (cell: Cell, n: number, prefix: string): void => {
    if (isPruned(cell)) return
    const s = cell.beginParse(true)
    const label = loadLabel(s, n)
    const rest = n - label.length
    const key = prefix + label
    if (rest === 0) {
      leaf(key, s)
      return
    }
    const left = s.loadRef()
    const right = s.loadRef()
    forkExtra(s)
    visit(left, rest - 1, key + "0")
    visit(right, rest - 1, key + "1")
  }
  visit(root, n, "")
}

/** ExtraCurrencyCollection (HashmapE 32 (VarUInteger 32)) as toncenter prints it: id -> amount, decimal strings. */
const loadExtraCurrencies = (s: Slice): ExtraCurrencies => {
  const out: Record<string, string> = {}
  const root = s.loadMaybeRef()
  if (root === null) return out
  if (isPruned(root)) throw new Error("extra currencies are pruned")
  walkHashmap(root, 32, (key, leaf) => {
    out[String(parseInt(key, 2) >>> 0)] = loadVarUint(leaf, 5).toString()
  })
  return out
}

/** MsgAddressInt (addr_std, addr_var), anycast skipped. */
const skipAddressInt = (s: Slice): void => {
  const tag = s.loadUint(2)
  if (tag !== 2 && tag !== 3) throw new Error(`not an internal address (tag ${tag})`)
  if (s.loadBit()) s.skip(s.loadUint(5)) // anycast rewrite_pfx
  if (tag === 2) s.skip(8 + 256)
  else {
    const len = s.loadUint(9)
    s.skip(32 + len)
  }
}

interface Tail {
  readonly balance: bigint
  readonly extra: ExtraCurrencies
  readonly status: AccountStatus
  readonly code: Cell | null
  readonly data: Cell | null
  readonly frozen: string | null
}

/** last_paid, due_payment and AccountStorage, which must end the cell exactly. */
const loadTail = (s: Slice): Tail => {
  s.skip(32) // last_paid
  if (s.loadBit()) loadVarUint(s, 4) // due_payment
  s.skip(64) // last_trans_lt
  const balance = loadVarUint(s, 4)
  const extra = loadExtraCurrencies(s)
  let out: Tail
  if (s.loadBit()) {
    // account_active$1 StateInit
    if (s.loadBit()) s.skip(5) // split_depth
    if (s.loadBit()) s.skip(2) // special
    const code = s.loadMaybeRef()
    const data = s.loadMaybeRef()
    s.loadMaybeRef() // library
    out = { balance, extra, status: "active", code, data, frozen: null }
  } else if (s.loadBit()) {
    out = { balance, extra, status: "frozen", code: null, data: null, frozen: s.loadBuffer(32).toString("base64") }
  } else {
    out = { balance, extra, status: "uninit", code: null, data: null, frozen: null }
  }
  if (s.remainingBits !== 0 || s.remainingRefs !== 0) throw new Error("Account has data left over")
  return out
}

/**
 * StorageInfo exists in two layouts: `cells bits public_cells` (before global version 4's storage changes) and
 * `cells bits storage_extra` (storage_extra_none$000 | storage_extra_info$001 dict_hash:uint256). Both begin with the
 * same three bits when there is nothing extra, so each is tried and the one that reads the cell exactly wins.
 */
const loadAfterStorageUsed = (s: Slice): Tail => {
  const attempts: Array<(x: Slice) => void> = [
    (x) => {
      const tag = x.loadUint(3)
      if (tag === 1) x.skip(256)
      else if (tag !== 0) throw new Error("bad StorageExtraInfo")
    },
    (x) => {
      loadVarUint(x, 3) // public_cells
    }
  ]
  let last: unknown
  for (const skipExtra of attempts) {
    const x = s.clone()
    try {
      skipExtra(x)
      return loadTail(x)
    } catch (e) {
      last = e
    }
  }
  throw last
}

/** The record of an Account cell, or null when the cell does not read as one. */
export const accountStateOf = (cell: Cell, account: RawAddress): AccountStateRecord | null => {
  if (isPruned(cell)) return null
  const hash = b64(cell)
  try {
    const s = cell.beginParse(true)
    if (!s.loadBit()) {
      if (s.remainingBits !== 0 || s.remainingRefs !== 0) return null
      // account_none: the indexer stores a nonexistent account with a zero balance and no hashes
      return {
        hash,
        account,
        balance: "0",
        extra_currencies: {},
        account_status: "nonexist",
        frozen_hash: null,
        data_hash: null,
        code_hash: null
      }
    }
    skipAddressInt(s)
    loadVarUint(s, 3) // storage used: cells
    loadVarUint(s, 3) // bits
    const t = loadAfterStorageUsed(s)
    return {
      hash,
      account,
      balance: t.balance.toString(),
      extra_currencies: t.extra,
      account_status: t.status,
      frozen_hash: t.frozen,
      data_hash: t.data === null ? null : b64(t.data),
      code_hash: t.code === null ? null : b64(t.code)
    }
  } catch {
    return null
  }
}
