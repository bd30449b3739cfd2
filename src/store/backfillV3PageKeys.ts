/**
 * Fills `v3_page_keys` (sql/0144), the keys a v3 page looks up per line of its block's `v3_pages` row, for rows stored
 * before the table's view existed: one copy of every `v3_pages` row's keys by the view's own expression, then the
 * marker row recording the table filled. Invariants: a row is an upsert by key and derives from its `v3_pages` row
 * alone, so a copy racing the view's writes of the same blocks writes the same rows, and every row stored after the
 * copy began reaches the table through the view; a fill stopped half-way runs again from the start at the next call.
 * The read path checks every row it uses against the lines it got, so a row left stale or missing costs a lone page
 * only its speed. Not used on a cluster (the table is per node there).
 */
import type { ClickHouseClient } from "@clickhouse/client"
import { rows } from "./pageRowFill.js"

/** A row's `keys` from its `lines`: the expression of the table's view (sql/0144), so the fill's rows equal the view's. */
export const V3_PAGE_KEYS = `arrayMap(l -> arrayStringConcat(arrayFilter(k -> k != '', arraySlice(splitByChar('\\t', l, 4), 1, 3)), ' '), lines)`

/** Whether the table is filled (its marker row exists). */
export const v3PageKeysFilled = async (client: ClickHouseClient): Promise<boolean> => {
  const [r] = await rows<{ n: string }>(client, "SELECT count() AS n FROM v3_page_keys_filled WHERE id = 0")
  return r !== undefined && r.n !== "0"
}

/** Copies the keys of every `v3_pages` row and records the table filled, unless it is already (null then). */
export const fillV3PageKeys = async (client: ClickHouseClient): Promise<number | null> => {
  if (await v3PageKeysFilled(client)) return null
  const [r] = await rows<{ n: string }>(client, "SELECT count() AS n FROM v3_pages")
  // a few dozen rows of lines (~400 KB each) read at a time, not the engine's 65,536
  await client.command({
    query: `INSERT INTO v3_page_keys (mc_block_seqno, asc_rank, keys)
            SELECT mc_block_seqno, asc_rank, ${V3_PAGE_KEYS} FROM v3_pages
            SETTINGS max_block_size = 32`
  })
  await client.command({ query: "INSERT INTO v3_page_keys_filled (id) VALUES (0)" })
  return Number(r?.n ?? 0)
}
