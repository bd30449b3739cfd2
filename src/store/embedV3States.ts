/**
 * Embeds the known account states into the `v3_pages` rows (sql/0131) of stores written before the consumer did
 * (src/flatten/v3_pages.ts): per row, every state field still holding a hash whose state `account_lookups_kv`
 * (sql/0142) holds becomes that state's JSON as the read path renders it from the same row (`embeddedStateJson` of
 * `stateRecord`), so a page of a filled row asks the lookups only for its address book and answers the same bytes.
 * Invariants: a row is only ever rewritten whole with the same lines but for those fields (an upsert by key, so
 * repeating the fill changes nothing: an embedded field is left as it is); a hash the table does not hold (a hash-only
 * state) keeps its hash; the fill waits for `account_lookups_kv` to be filled (until then a state may be missing from
 * it) and walks the done masterchain blocks in ascending batches past its recorded progress (`v3_pages_states_fill`,
 * sql/0151), resumable. It runs after the `v3_pages` fill, in the same start-up step (./BodyRedecode.ts), so no
 * re-render runs beside it; the consumer writes its rows already embedded, and the page render (./backfillPages.ts)
 * embeds the rows it writes (`embedV3StatesOf`). Not used on a cluster (the table is per node there).
 */
import type { ClickHouseClient } from "@clickhouse/client"
import { accountLookupsKvFilled } from "./accountLookupsKv.js"
import { fillPageRows, rows, type PageRowFillOptions } from "./pageRowFill.js"
import { embeddedStateJson, isEmbeddedState } from "./pages.js"
import { strKeys, uint32Array } from "./sql.js"
import { stateRecord, type StateKvValue } from "./Store.js"

/** A `v3_pages` row as the fill reads and writes it. */
interface PageRow {
  readonly mc_block_seqno: number
  readonly asc_rank: Array<number>
  readonly lines: Array<string>
}

/** A line's two state fields and the rest of it (book and piece, from the third field's tab). */
const fieldsOf = (line: string): { before: string; after: string; rest: string } => {
  const t1 = line.indexOf("\t")
  const t2 = t1 < 0 ? -1 : line.indexOf("\t", t1 + 1)
  if (t2 < 0) throw new Error("v3_pages: a line with fewer than 4 fields")
  return { before: line.slice(0, t1), after: line.slice(t1 + 1, t2), rest: line.slice(t2) }
}

/** Keys per lookups statement. */
const LOOKUP_CHUNK = 4096

/**
 * Rewrites the rows of these masterchain blocks that hold a state hash `account_lookups_kv` knows, with that state
 * embedded. Returns how many rows were rewritten.
 */
const embed = async (client: ClickHouseClient, mcSeqnos: ReadonlyArray<number>): Promise<number> => {
  if (mcSeqnos.length === 0) return 0
  const stored = await rows<PageRow>(
    client,
    `SELECT mc_block_seqno, asc_rank, lines FROM v3_pages WHERE mc_block_seqno IN ${uint32Array([...new Set(mcSeqnos)])}`
  )
  const hashes = new Set<string>()
  for (const r of stored) {
    for (const line of r.lines) {
      const f = fieldsOf(line)
      if (!isEmbeddedState(f.before)) hashes.add(f.before)
      if (!isEmbeddedState(f.after)) hashes.add(f.after)
    }
  }
  if (hashes.size === 0) return 0
  const json = new Map<string, string>()
  const all = [...hashes]
  for (let i = 0; i < all.length; i += LOOKUP_CHUNK) {
    for (const r of await rows<{ key: string; value: string }>(
      client,
      `SELECT key, value FROM account_lookups_kv WHERE key IN ${strKeys(all.slice(i, i + LOOKUP_CHUNK))}`
    )) {
      json.set(r.key, embeddedStateJson(stateRecord(r.key, JSON.parse(r.value) as StateKvValue)))
    }
  }
  const field = (f: string): string => (isEmbeddedState(f) ? f : (json.get(f) ?? f))
  const values: Array<PageRow> = []
  for (const r of stored) {
    let changed = false
    const lines = r.lines.map((line) => {
      const f = fieldsOf(line)
      const before = field(f.before)
      const after = field(f.after)
      if (before === f.before && after === f.after) return line
      changed = true
      return `${before}\t${after}${f.rest}`
    })
    if (changed) values.push({ mc_block_seqno: Number(r.mc_block_seqno), asc_rank: r.asc_rank, lines })
  }
  if (values.length > 0) await client.insert({ table: "v3_pages", values, format: "JSONEachRow" })
  return values.length
}

/**
 * Embeds the known states into the `v3_pages` rows of these masterchain blocks (rows just written from pieces, as the
 * page render writes them), once `account_lookups_kv` is filled (else nothing: the rows are read as they are).
 * Returns how many rows were rewritten.
 */
export const embedV3StatesOf = async (client: ClickHouseClient, mcSeqnos: ReadonlyArray<number>): Promise<number> =>
  mcSeqnos.length === 0 || !(await accountLookupsKvFilled(client)) ? 0 : embed(client, mcSeqnos)

export interface EmbedV3StatesOptions extends PageRowFillOptions {
  /** Masterchain blocks per statement. Default 50. */
  readonly batchBlocks?: number
}

/**
 * Embeds the known states into the `v3_pages` rows of the done masterchain blocks past the stored progress
 * (`v3_pages_states_fill`), in ascending batches, recording the progress after each; nothing (0) until
 * `account_lookups_kv` is filled. Returns the number of rows rewritten.
 */
export const embedV3States = async (client: ClickHouseClient, options: EmbedV3StatesOptions = {}): Promise<number> => {
  if (!(await accountLookupsKvFilled(client))) return 0
  const rewritten = await fillPageRows(client, "v3_pages_states_fill", (mcSeqnos) => embed(client, mcSeqnos), {
    ...options,
    batchBlocks: options.batchBlocks ?? 50
  })
  // The rewritten rows' old values stay in their files until a compaction drops them (with blob files, RocksDB's
  // default keeps no garbage collection): one compaction after a large rewrite, as sql/0145 did, gives the space back
  // and leaves the table in one sorted run.
  if (rewritten >= OPTIMIZE_AFTER_ROWS && options.signal?.aborted !== true) {
    await client.command({ query: "OPTIMIZE TABLE v3_pages" })
  }
  return rewritten
}

/** Rows rewritten by one fill from which it compacts the table after it. */
const OPTIMIZE_AFTER_ROWS = 1000
