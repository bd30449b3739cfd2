/**
 * Fills `account_lookups_kv` (sql/0142), the one key-value table a v3 page's lookups read once it is filled, for
 * stores written before it: the known states are copied from `account_states` as the table's view makes them, every
 * account's newest done code row is put from `latest_account_code` (src/store/accountCodeKv.ts), then the row with
 * the empty key records the table filled. Invariants: state rows are immutable per hash, so a copy racing the view's
 * writes of the same hashes changes nothing, and every state stored after the copy began reaches the table through
 * the view; the account rows' puts are guarded and checked as the consumer's are (safe beside running consumers,
 * which put the same rows); a fill stopped half-way is run again from the start at the next call; the marker is
 * written last. Not used on a cluster (the table is per node there).
 */
import type { ClickHouseClient } from "@clickhouse/client"
import { ACCOUNT_LOOKUPS_KV, type CodeKvHooks, settleAll } from "./accountCodeKv.js"
import { keyStored, rows } from "./pageRowFill.js"
import { str } from "./sql.js"
import { LOOKUPS_KV_FILLED } from "./Store.js"

export { LOOKUPS_KV_FILLED }

/**
 * A state row's `value`: the fields of `account_states` as one JSON object, numbers as text. The expression of the
 * table's view (sql/0142), so the fill's rows equal the view's (test/integration/account-lookups-kv.test.ts compares
 * them).
 */
const STATE_JSON = `toJSONString(CAST(
        tuple(account, toString(balance), mapApply((k, v) -> (k, toString(v)), extra_currencies), toString(account_status),
              toString(frozen_hash), toString(data_hash), toString(code_hash)),
        'Tuple(account String, balance Nullable(String), extra_currencies Map(UInt32, String), account_status Nullable(String), frozen_hash Nullable(String), data_hash Nullable(String), code_hash Nullable(String))'))`

/** Whether the table is filled (its marker row exists). */
export const accountLookupsKvFilled = (client: ClickHouseClient): Promise<boolean> =>
  keyStored(client, "account_lookups_kv", "key", LOOKUPS_KV_FILLED)

export interface LookupsKvFill {
  readonly states: number
  readonly accounts: number
}

/**
 * Copies the known states and every account's newest done code row into `account_lookups_kv` and records it filled,
 * unless it is already (null then).
 */
export const fillAccountLookupsKv = async (
  client: ClickHouseClient,
  hooks: CodeKvHooks = {}
): Promise<LookupsKvFill | null> => {
  if (await accountLookupsKvFilled(client)) return null
  const [r] = await rows<{ n: string }>(client, "SELECT uniqExact(hash) AS n FROM account_states WHERE known = 1")
  // Rows of builds that counted a frozen hash as no field (`known = 0` with one) render that hash on the MergeTree
  // path, so they are copied too, first, and only where no known row of the hash exists: the known rows' copy, after
  // it, rewrites any known row the view put meanwhile. A hash twice among the known rows (before the merge folds
  // them) is the same Account cell, so both copies write the same row.
  for (const where of [
    "known = 0 AND frozen_hash IS NOT NULL AND hash NOT IN (SELECT hash FROM account_states WHERE known = 1)",
    "known = 1"
  ]) {
    await client.command({
      query: `INSERT INTO account_lookups_kv (key, mc_seqno, value)
              SELECT toString(hash), 0, ${STATE_JSON} FROM account_states WHERE ${where}`
    })
  }
  const accounts = await settleAll(client, ACCOUNT_LOOKUPS_KV, hooks)
  await client.command({
    query: `INSERT INTO account_lookups_kv (key, mc_seqno, value) VALUES (${str(LOOKUPS_KV_FILLED)}, 0, '')`
  })
  return { states: Number(r?.n ?? 0), accounts }
}
