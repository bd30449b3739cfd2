/**
 * Fills `account_states_kv` (sql/0134), the key-value copy of the known account states, for stores written before
 * it: every known `account_states` row (and any with a frozen hash, which older builds counted hash-only) is copied by one INSERT ... SELECT (the engine makes each row's `state` as it
 * does for the consumer's rows), then the row with the empty key records the table filled, and from then on the read
 * path takes the states from it (src/store/Store.ts, v3LookupsKv). Invariants: state rows are immutable per hash, so
 * a copy racing the consumer's own writes of the same hashes, a repeated copy or one stopped half-way (run again
 * from the start at the next call) changes nothing; the marker is written only after the copy ended, and every state
 * stored after the copy began is written to the table by the consumer itself (before its block's completion marker).
 * Not used on a cluster (the table is per node there).
 */
import type { ClickHouseClient } from "@clickhouse/client"
import { keyStored, rows } from "./pageRowFill.js"
import { STATES_KV_FILLED } from "./Store.js"
import { str } from "./sql.js"

const COLUMNS = "hash, account, balance, extra_currencies, account_status, frozen_hash, data_hash, code_hash, known"

/** Whether the table is filled (its marker row exists). */
export const accountStatesKvFilled = (client: ClickHouseClient): Promise<boolean> =>
  keyStored(client, "account_states_kv", "hash", STATES_KV_FILLED)

/**
 * Copies every known state into `account_states_kv` and records it filled, unless it is already. Returns the number
 * of `account_states` rows copied (0 when it was filled already).
 */
export const fillAccountStatesKv = async (client: ClickHouseClient): Promise<number> => {
  if (await accountStatesKvFilled(client)) return 0
  const [r] = await rows<{ n: string }>(client, "SELECT count() AS n FROM account_states WHERE known = 1")
  // Rows written before `known` counted a frozen hash (sql/0134) as a field come first: a known row of the same
  // hash, written after, wins (as it wins the merge of `account_states`).
  for (const where of ["known = 0 AND frozen_hash IS NOT NULL", "known = 1"]) {
    await client.command({
      query: `INSERT INTO account_states_kv (${COLUMNS})
              SELECT toString(hash), account, balance, extra_currencies, account_status, frozen_hash, data_hash,
                     code_hash, known
              FROM account_states WHERE ${where}`
    })
  }
  await client.command({
    query: `INSERT INTO account_states_kv (${COLUMNS})
            VALUES (${str(STATES_KV_FILLED)}, '', NULL, map(), NULL, NULL, NULL, NULL, 0)`
  })
  return Number(r?.n ?? 0)
}
