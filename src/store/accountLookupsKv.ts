/**
 * Fills `account_lookups_kv` (sql/0142), the one key-value table a v3 page's lookups read once it is filled, for
 * stores written before it: the known states are copied from `account_states_kv` (sql/0134; so only once that table
 * is filled, or the copy would miss states it lacks), every account's newest done code row is put from
 * `latest_account_code` as `account_code_kv`'s fill puts it (src/store/accountCodeKv.ts), then the row with the empty
 * key records the table filled. Invariants: state rows are immutable per hash, so a copy racing the view's writes of
 * the same hashes changes nothing, and every state stored after the copy began reaches the table through the view;
 * the account rows' puts are guarded and checked as the consumer's are (safe beside running consumers, which put the
 * same rows); a fill stopped half-way is run again from the start at the next call; the marker is written last.
 * Not used on a cluster (the table is per node there).
 */
import type { ClickHouseClient } from "@clickhouse/client"
import { ACCOUNT_LOOKUPS_KV, type CodeKvHooks, settleAll } from "./accountCodeKv.js"
import { accountStatesKvFilled } from "./accountStatesKv.js"
import { keyStored, rows } from "./pageRowFill.js"
import { str } from "./sql.js"
import { LOOKUPS_KV_FILLED, STATES_KV_FILLED } from "./Store.js"

export { LOOKUPS_KV_FILLED }

/** Whether the table is filled (its marker row exists). */
export const accountLookupsKvFilled = (client: ClickHouseClient): Promise<boolean> =>
  keyStored(client, "account_lookups_kv", "key", LOOKUPS_KV_FILLED)

export interface LookupsKvFill {
  readonly states: number
  readonly accounts: number
}

/**
 * Copies the known states and every account's newest done code row into `account_lookups_kv` and records it filled,
 * unless it is already (null then). Fails while `account_states_kv` is not filled (its own fill comes first).
 */
export const fillAccountLookupsKv = async (
  client: ClickHouseClient,
  hooks: CodeKvHooks = {}
): Promise<LookupsKvFill | null> => {
  if (await accountLookupsKvFilled(client)) return null
  if (!(await accountStatesKvFilled(client))) throw new Error("account_states_kv is not filled yet")
  const [r] = await rows<{ n: string }>(
    client,
    `SELECT count() AS n FROM account_states_kv WHERE hash != ${str(STATES_KV_FILLED)}`
  )
  await client.command({
    query: `INSERT INTO account_lookups_kv (key, mc_seqno, value)
            SELECT hash, 0, state FROM account_states_kv WHERE hash != ${str(STATES_KV_FILLED)}`
  })
  const accounts = await settleAll(client, ACCOUNT_LOOKUPS_KV, hooks)
  await client.command({
    query: `INSERT INTO account_lookups_kv (key, mc_seqno, value) VALUES (${str(LOOKUPS_KV_FILLED)}, 0, '')`
  })
  return { states: Number(r?.n ?? 0), accounts }
}
