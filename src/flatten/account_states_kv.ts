/**
 * `account_states` rows -> `account_states_kv` rows (sql/0134): the known states only, the same row objects (the
 * table takes the same columns, and keeps the fields again as one JSON `state` the engine makes). A
 * hash-only row (`known = 0`: no field at all) is never written, so it can never replace a known state of its hash:
 * the read path renders a hash without a row exactly as a hash-only one.
 */
import type { AccountStateRow } from "./account_states.js"

export const accountStateKvRows = (rows: ReadonlyArray<AccountStateRow>): Array<AccountStateRow> =>
  rows.filter((r) => r.known === 1)
