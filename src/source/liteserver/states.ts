/**
 * The account states and code hashes of a masterchain bundle read from liteservers, taken from the blocks' own
 * state updates (no extra request): every state a block's Merkle update holds for an account it changed, before and
 * after, and per account the code hash it was left with (the address book's bounceable rule), as the toncenter
 * source's v3 enrichment gives them.
 * Invariant: the records are the same canonical AccountStateRecords whoever produces them (keyed by the Account cell
 * hash, sorted by account then hash); an account whose final state is not in the update gets no code hash rather
 * than a stale one.
 */
import type { ExtractedBlock } from "../../ton/block.js"
import type { AccountStateRecord, HashB64, RawAddress } from "../../ton/record.js"

/** block: from the blocks' state updates; block+lookup: also the accounts their messages mention (accountLookup). */
export type AccountStatesMode = "block" | "block+lookup" | "off"

export interface BundleStates {
  readonly account_states: ReadonlyArray<AccountStateRecord>
  readonly code_hashes: Readonly<Record<RawAddress, HashB64 | null>>
}

export const NO_STATES: BundleStates = { account_states: [], code_hashes: {} }

const cmp = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0)

/** States of every block of a bundle (any order); the newest block of an account (by end lt) gives its code hash. */
export const bundleStates = (
  blocks: ReadonlyArray<Pick<ExtractedBlock, "states"> & { readonly header: { readonly end_lt: string } }>
): BundleStates => {
  const byHash = new Map<HashB64, AccountStateRecord>()
  const finalState = new Map<RawAddress, { lt: bigint; state: AccountStateRecord }>()
  for (const b of blocks) {
    const endLt = BigInt(b.header.end_lt)
    for (const s of b.states.before) byHash.set(s.hash, s)
    for (const s of b.states.after) {
      byHash.set(s.hash, s)
      const prev = finalState.get(s.account)
      if (prev === undefined || prev.lt < endLt) finalState.set(s.account, { lt: endLt, state: s })
    }
  }
  const account_states = [...byHash.values()].sort((x, y) => cmp(x.account, y.account) || cmp(x.hash, y.hash))
  const code_hashes: Record<RawAddress, HashB64 | null> = {}
  for (const account of [...finalState.keys()].sort(cmp)) code_hashes[account] = finalState.get(account)!.state.code_hash
  return { account_states, code_hashes }
}
