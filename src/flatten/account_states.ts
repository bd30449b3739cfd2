/**
 * AccountStateRecord -> `account_states` rows, one per state hash. `known` is the ReplacingMergeTree version: a
 * state with fields wins over a hash-only row for the same hash. extra_currencies is null exactly when balance is.
 */
import type { AccountStateRecord, AccountStatus, ExtraCurrencies } from "../ton/record.js"
import { UnstorableRecordError } from "./messages.js"

export interface AccountStateRow {
  readonly hash: string
  readonly account: string
  readonly balance: string | null
  readonly extra_currencies: ExtraCurrencies
  readonly account_status: AccountStatus | null
  readonly frozen_hash: string | null
  readonly data_hash: string | null
  readonly code_hash: string | null
  readonly known: number
}

export const accountStateRow = (s: AccountStateRecord): AccountStateRow => {
  if ((s.balance === null) !== (s.extra_currencies === null)) {
    throw new UnstorableRecordError(`account state ${s.hash}: balance and extra_currencies must be null together`)
  }
  return {
    hash: s.hash,
    account: s.account,
    balance: s.balance,
    extra_currencies: s.extra_currencies ?? {},
    account_status: s.account_status,
    frozen_hash: s.frozen_hash,
    data_hash: s.data_hash,
    code_hash: s.code_hash,
    // hash-only: no field at all (so a row without one renders exactly as an absent state, see sql/0142)
    known:
      s.balance === null &&
      s.account_status === null &&
      s.code_hash === null &&
      s.data_hash === null &&
      s.frozen_hash === null
        ? 0
        : 1
  }
}

export const accountStateRows = (states: ReadonlyArray<AccountStateRecord>): Array<AccountStateRow> => {
  const byHash = new Map<string, AccountStateRow>()
  for (const s of states) {
    const row = accountStateRow(s)
    const prev = byHash.get(row.hash)
    if (prev === undefined || row.known > prev.known) byHash.set(row.hash, row)
  }
  return [...byHash.values()]
}
