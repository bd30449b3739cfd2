/**
 * Account states from a block's own state_update, at no request cost. The update is a Merkle update of the shard
 * state: its old tree holds every Account cell the block changed as it was before the block, its new tree as it is
 * after, with unchanged subtrees (and unchanged code and data) left as pruned branches that still carry their hashes.
 * Invariant: only accounts with transactions in the block are read, each at most once per side; an account whose
 * cell is absent (pruned, or the update itself pruned away as in some stored block files) is simply not returned, so
 * the caller falls back to what it knew before (a hash-only state, as toncenter renders states it cannot know).
 */
import { type Cell, CellType, type Slice } from "@ton/core"
import { accountStateOf, walkHashmap } from "./accountState.js"
import { rawFromHash } from "./address.js"
import type { AccountStateRecord } from "./record.js"

export interface BlockStates {
  /** Each changed account as the block found it (the end of the account's previous block). */
  readonly before: ReadonlyArray<AccountStateRecord>
  /** Each changed account as the block left it. */
  readonly after: ReadonlyArray<AccountStateRecord>
}

const SHARD_STATE = 0x9023afe2
const SPLIT_STATE = 0x5f327da5

const isPruned = (c: Cell): boolean => c.isExotic && c.type === CellType.PrunedBranch

/** The ShardAccounts roots of a ShardState (two for a split state); pruned parts give none. */
const accountRoots = (state: Cell): Array<Cell> => {
  if (isPruned(state)) return []
  const s = state.beginParse(true)
  const tag = s.loadUint(32)
  if (tag === SPLIT_STATE) return [...accountRoots(s.loadRef()), ...accountRoots(s.loadRef())]
  if (tag !== SHARD_STATE) throw new Error(`unknown ShardState tag ${tag.toString(16)}`)
  const accounts = state.refs[1]
  if (accounts === undefined || isPruned(accounts)) return []
  const a = accounts.beginParse(true)
  if (!a.loadBit()) return []
  return [a.loadRef()]
}

/** DepthBalanceInfo: split_depth (#<= 30) and a CurrencyCollection. */
const skipDepthBalance = (s: Slice): void => {
  s.skip(5)
  s.loadCoins()
  s.loadMaybeRef()
}

/** Account cells by account id (hex, upper case) for the wanted ids found in one tree. */
const accountCells = (state: Cell, wanted: ReadonlySet<string>): Map<string, Cell> => {
  const out = new Map<string, Cell>()
  for (const root of accountRoots(state)) {
    walkHashmap(
      root,
      256,
      (key, leaf) => {
        const id = BigInt("0b" + key)
          .toString(16)
          .padStart(64, "0")
          .toUpperCase()
        if (!wanted.has(id)) return
        skipDepthBalance(leaf)
        out.set(id, leaf.loadRef())
      },
      skipDepthBalance
    )
  }
  return out
}

const statesOf = (cells: Map<string, Cell>, workchain: number): Array<AccountStateRecord> => {
  const out: Array<AccountStateRecord> = []
  for (const [id, cell] of [...cells].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    const s = accountStateOf(cell, rawFromHash(workchain, Buffer.from(id, "hex")))
    if (s !== null) out.push(s)
  }
  return out
}

/**
 * The before and after states of the given accounts (ids as 64 upper-case hex digits) from a block's state_update
 * cell. A state_update that is not a Merkle update (a block file stored with it pruned) gives no states.
 */
export const blockStates = (stateUpdate: Cell, workchain: number, accountIds: ReadonlySet<string>): BlockStates => {
  if (!stateUpdate.isExotic || stateUpdate.type !== CellType.MerkleUpdate || accountIds.size === 0) {
    return { before: [], after: [] }
  }
  const [oldState, newState] = stateUpdate.refs
  if (oldState === undefined || newState === undefined) return { before: [], after: [] }
  return {
    before: statesOf(accountCells(oldState, accountIds), workchain),
    after: statesOf(accountCells(newState, accountIds), workchain)
  }
}
