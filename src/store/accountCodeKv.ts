/**
 * Writes the account rows of `account_lookups_kv` (sql/0142): per account the code hash of its newest report from a
 * done masterchain block. Invariant: once no block is being finished, every account's row is the `latest_account_code`
 * row of its highest done masterchain seqno. Every write is a guarded put (read the stored rows by key, write only
 * the newer ones), made after the reported block's completion marker, and followed by a check that repairs the race
 * of two writers (see `settle`). Not used on a cluster (the table is per node there).
 *
 * Why the check suffices. Take an account whose final row holds seqno x, written by the last put W to its key, while
 * a done block c > x reported the account. (1) c was marked done before W's check of the marker ended: the check
 * (a consumer's: a done block newer than what it wrote and outside its batch; a repair's or the fill's: a block
 * marked done between the start of its read and the end of its write) names the account, so W puts again from the
 * MergeTree, which holds c's row (rows precede their marker); that put reads x and writes >= c after W, a
 * contradiction. (2) c was marked done after W's check: c's consumer puts after its marker, so after W; it reads a
 * row of seqno < c (W's x, or a later put, either contradicts W being last) and writes c. Replays and batches out
 * of order are the same case: a put never lowers a row it read, and a lowering by a stale writer is repaired by (1).
 * A put that writes nothing skips its check: it lowered no row, and the argument only needs the checks of the puts
 * that wrote (c's consumer writing nothing in (2) means it read a row >= c, a put after W).
 */
import type { ClickHouseClient } from "@clickhouse/client"
import { rows } from "./pageRowFill.js"
import { str, strKeys, uint32, uint32Array } from "./sql.js"

/**
 * A key-value table that holds per account its newest done code row: the account rows of `account_lookups_kv`
 * (sql/0142, whose state rows, keyed by hash, never meet an account key).
 */
export interface CodeKvTable {
  readonly name: string
  readonly key: string
  readonly code: string
  /** The stored form of a code hash (NULL, an account that lost its code, as the table keeps it). */
  readonly literal: (code: string | null) => string
}

/** `account_lookups_kv`'s account rows: the code hash as text, '' for NULL (a code hash is never empty). */
export const ACCOUNT_LOOKUPS_KV: CodeKvTable = {
  name: "account_lookups_kv",
  key: "key",
  code: "value",
  literal: (c) => str(c ?? "")
}

export interface CodeKvRow {
  readonly account: string
  readonly mc_seqno: number
  readonly code_hash: string | null
}

/** Points a test may stop a writer at, to force an interleaving of two writers. */
export interface CodeKvHooks {
  /** After a put read the stored rows, before it writes the newer ones. */
  readonly beforePut?: () => Promise<void>
  /** After a put wrote, before its check of the marker. */
  readonly beforeCheck?: () => Promise<void>
}

// ~70 bytes per key: a statement stays well within the engine's max_query_size (256 KiB)
const KEYS_PER_STATEMENT = 1_000

const chunks = <T>(xs: ReadonlyArray<T>, n: number): Array<ReadonlyArray<T>> => {
  const out: Array<ReadonlyArray<T>> = []
  for (let i = 0; i < xs.length; i += n) out.push(xs.slice(i, i + n))
  return out
}

/** Per account, the candidate of the highest seqno (the last one of equal seqnos, as the rows came). */
export const newestPerAccount = (candidates: Iterable<CodeKvRow>): Map<string, CodeKvRow> => {
  const out = new Map<string, CodeKvRow>()
  for (const r of candidates) {
    const prev = out.get(r.account)
    if (prev === undefined || r.mc_seqno >= prev.mc_seqno) out.set(r.account, r)
  }
  return out
}

/** Writes the candidates newer than the stored rows of their accounts; returns the rows written. */
const put = async (
  client: ClickHouseClient,
  table: CodeKvTable,
  candidates: ReadonlyArray<CodeKvRow>,
  hooks: CodeKvHooks
): Promise<Array<CodeKvRow>> => {
  const written: Array<CodeKvRow> = []
  for (const part of chunks(candidates, KEYS_PER_STATEMENT)) {
    const stored = new Map<string, number>()
    for (const r of await rows<{ account: string; m: number }>(
      client,
      `SELECT ${table.key} AS account, mc_seqno AS m FROM ${table.name}
       WHERE ${table.key} IN ${strKeys(part.map((c) => c.account))}`
    )) {
      stored.set(r.account, Number(r.m))
    }
    const newer = part.filter((c) => {
      const m = stored.get(c.account)
      return m === undefined || c.mc_seqno > m
    })
    if (hooks.beforePut) await hooks.beforePut()
    if (newer.length === 0) continue
    await client.command({
      query: `INSERT INTO ${table.name} (${table.key}, mc_seqno, ${table.code}) VALUES ${newer
        .map((c) => `(${str(c.account)}, ${uint32(c.mc_seqno)}, ${table.literal(c.code_hash)})`)
        .join(", ")}`
    })
    written.push(...newer)
  }
  return written
}

/** Done masterchain seqnos above `floor`. */
const doneAbove = async (client: ClickHouseClient, floor: number): Promise<Set<number>> =>
  new Set(
    (
      await rows<{ s: number }>(
        client,
        `SELECT DISTINCT mc_seqno AS s FROM mc_blocks_done WHERE mc_seqno > ${uint32(floor)}`
      )
    ).map((r) => Number(r.s))
  )

/**
 * The newest done `latest_account_code` row of each account (of `accounts`, or of every account when null) among
 * blocks above `floor`.
 */
const newestDone = async (
  client: ClickHouseClient,
  accounts: ReadonlyArray<string> | null,
  floor: number
): Promise<Array<CodeKvRow>> => {
  const parts = accounts === null ? [null] : chunks(accounts, KEYS_PER_STATEMENT)
  const out: Array<CodeKvRow> = []
  for (const part of parts) {
    if (part !== null && part.length === 0) continue
    const got = await rows<{ account: string; m: number; c: string | null }>(
      client,
      `SELECT account, max(mc_seqno) AS m, argMax(tuple(code_hash), mc_seqno).1 AS c FROM latest_account_code
       WHERE mc_seqno > ${uint32(floor)}
         AND mc_seqno IN (SELECT mc_seqno FROM mc_blocks_done WHERE mc_seqno > ${uint32(floor)})
         ${part === null ? "" : `AND account IN ${strKeys(part)}`}
       GROUP BY account`
    )
    for (const r of got) out.push({ account: r.account, mc_seqno: Number(r.m), code_hash: r.c })
  }
  return out
}

/**
 * Puts the newest done rows of `accounts` (every account when null) from the MergeTree, then, as long as blocks above
 * `floor` were marked done between the start of a round and the end of its put, puts again the accounts those blocks
 * reported: a put of a snapshot taken before such a block may have overwritten that block's own put.
 */
const settle = async (
  client: ClickHouseClient,
  table: CodeKvTable,
  accounts: ReadonlyArray<string> | null,
  floor: number,
  hooks: CodeKvHooks
): Promise<number> => {
  let before = await doneAbove(client, floor)
  let written = (await put(client, table, await newestDone(client, accounts, floor), hooks)).length
  for (;;) {
    if (hooks.beforeCheck) await hooks.beforeCheck()
    const after = await doneAbove(client, floor)
    const fresh = [...after].filter((s) => !before.has(s))
    if (fresh.length === 0) return written
    const touched: Array<string> = []
    for (const part of accounts === null ? [null] : chunks(accounts, KEYS_PER_STATEMENT)) {
      const only = part === null ? "" : ` AND account IN ${strKeys(part)}`
      for (const r of await rows<{ account: string }>(
        client,
        `SELECT DISTINCT account FROM latest_account_code WHERE mc_seqno IN ${uint32Array(fresh)}${only}`
      )) {
        touched.push(r.account)
      }
    }
    before = after
    if (touched.length > 0) {
      written += (await put(client, table, await newestDone(client, touched, floor), hooks)).length
    }
  }
}

/**
 * The consumer's write of a batch whose completion markers are written: each account's newest row of the batch,
 * guarded, then a repair of the accounts written for which a done block outside the batch is newer than the row
 * written (a put that wrote nothing overwrote nothing: a replay of done blocks costs one multi-get). Returns the rows
 * written.
 */
export const writeAccountCodes = async (
  client: ClickHouseClient,
  batchRows: Iterable<CodeKvRow>,
  batchSeqnos: ReadonlyArray<number>,
  hooks: CodeKvHooks = {},
  table: CodeKvTable = ACCOUNT_LOOKUPS_KV
): Promise<number> => {
  const candidates = [...newestPerAccount(batchRows).values()]
  if (candidates.length === 0) return 0
  const newest = await put(client, table, candidates, hooks)
  let written = newest.length
  if (written === 0) return 0
  if (hooks.beforeCheck) await hooks.beforeCheck()
  const floor = Math.min(...newest.map((r) => r.mc_seqno))
  const [m] = await rows<{ m: number; n: string }>(
    client,
    `SELECT max(mc_seqno) AS m, count() AS n FROM mc_blocks_done
     WHERE mc_seqno > ${uint32(floor)} AND mc_seqno NOT IN ${uint32Array(batchSeqnos)}`
  )
  if (m === undefined || m.n === "0") return written
  const newer = Number(m.m)
  const stale = newest.filter((r) => r.mc_seqno < newer)
  if (stale.length === 0) return written
  const staleFloor = Math.min(...stale.map((r) => r.mc_seqno))
  // below the floor nothing can be newer than what was written; the floor bounds every marker scan
  written += await settle(
    client,
    table,
    stale.map((r) => r.account),
    staleFloor,
    hooks
  )
  return written
}

/** Puts every account's newest done code row into `table` (see `settle`); returns the rows written. */
export const settleAll = async (client: ClickHouseClient, table: CodeKvTable, hooks: CodeKvHooks): Promise<number> => {
  // Seqno 0 is a block like any other: settle's bounds are exclusive, so its rows are put first on their own.
  const zero = await rows<{ account: string; c: string | null }>(
    client,
    `SELECT account, argMax(tuple(code_hash), mc_seqno).1 AS c FROM latest_account_code
     WHERE mc_seqno = 0 AND 0 IN (SELECT mc_seqno FROM mc_blocks_done WHERE mc_seqno = 0) GROUP BY account`
  )
  const written = (
    await put(
      client,
      table,
      zero.map((r) => ({ account: r.account, mc_seqno: 0, code_hash: r.c })),
      hooks
    )
  ).length
  return written + (await settle(client, table, null, 0, hooks))
}
