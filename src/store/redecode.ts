/**
 * Brings a store's decoded columns to this build's body decoder (src/ton/bodies/version.ts): `messages.decoded_opcode`
 * of opcodes whose name changed, `message_contents.decoded` of bodies whose decoding changed, and the pre-rendered
 * pages (`tx_pages`, and on a single node the key-value rows `v3_pages` and `v2_pages`, rendered again straight from
 * the row tables: ./backfillPages.ts) of every masterchain block that shows either, then records the version in `body_decoder_runs`
 * (sql/0112). Invariants: a stale value is never left behind a recorded version, because pieces are dropped before
 * the values they were rendered from are corrected and the version is written last; it is safe beside a running
 * consumer (new rows already hold this decoder's values, only rows that differ are touched) and resumable (the
 * bodies pass records its cursor with each correction it applies; anything half done is found stale again).
 */
import type { ClickHouseClient } from "@clickhouse/client"
import { localName } from "../clickhouse/cluster.js"
import { decodeBodyBoc, opcodeName } from "../ton/bodies/decode.js"
import { BODY_DECODER_VERSION } from "../ton/bodies/version.js"
import { goJsonStringify } from "../ton/v3.js"
import { backfillTxPages, lowerRenderProgress } from "./backfillPages.js"
import { deleteV3Pages } from "./backfillV3Pages.js"
import { deleteV2Pages } from "./backfillV2Pages.js"
import { str, strArray, uint32Array } from "./sql.js"

export interface RedecodeOptions {
  /** The decoder version to bring the store to. Default: this build's (BODY_DECODER_VERSION). */
  readonly version?: number
  /** BOC bytes of `message_contents` decoded per batch (at least one row). Default 8 MiB. */
  readonly batchBytes?: number
  /** Bytes of corrected values (and their hashes) per mutation of `message_contents`. Default 32 MiB. */
  readonly updateBytes?: number
  /** CLICKHOUSE_CLUSTER: updates and deletes run on each shard's local table. */
  readonly cluster?: string
  readonly onProgress?: (line: string) => void
  /** Checked between batches: an aborted run stops there and resumes at the next start. */
  readonly signal?: AbortSignal
}

export interface RedecodeReport {
  /** The version the store held before (0: none recorded), and the one it holds now. */
  readonly from: number
  readonly to: number
  /** "current": nothing to do; "newer": the store was written by a newer decoder (left alone); "stopped": aborted. */
  readonly outcome: "current" | "newer" | "redecoded" | "stopped"
  readonly opcodes: number
  readonly opcodeRows: number
  readonly bodies: number
  readonly changedBodies: number
  /** Masterchain blocks whose pieces were dropped, and how many the page backfill rendered again. */
  readonly droppedPageBlocks: number
  readonly renderedBlocks: number
}

const SETTINGS = { output_format_json_quote_64bit_integers: 1 } as const

const rows = async <T>(client: ClickHouseClient, query: string): Promise<Array<T>> =>
  (await client.query({ query, format: "JSONEachRow", clickhouse_settings: SETTINGS })).json<T>()

// Mutation texts carry their values as literals (chdb binds query parameters process-wide, one statement at a time);
// a batch's decoded texts can pass the parser's default 256 KiB.
const BIG_QUERY = { max_query_size: "268435456" } as const

/** What a store at `stored` needs from a build whose decoder is `current`. */
export const decoderPlan = (stored: number, current: number): "current" | "newer" | "redecode" =>
  stored === current ? "current" : stored > current ? "newer" : "redecode"

/** The version a store's decoded columns were written by: 0 when none is recorded. */
export const storedDecoderVersion = async (client: ClickHouseClient): Promise<number> => {
  const [r] = await rows<{ v: number | string | null }>(
    client,
    "SELECT max(version) AS v FROM body_decoder_runs FINAL WHERE step = 'done'"
  )
  return Number(r?.v ?? 0)
}

interface Resume {
  readonly cursor: string
  readonly bodies: number
  readonly changed: number
}

const resumePoint = async (client: ClickHouseClient, version: number): Promise<Resume> => {
  const [r] = await rows<{ cursor: string; bodies: string; changed: string }>(
    client,
    `SELECT cursor, bodies, changed FROM body_decoder_runs FINAL WHERE version = ${version} AND step = 'bodies'`
  )
  return r === undefined
    ? { cursor: "", bodies: 0, changed: 0 }
    : { cursor: r.cursor, bodies: Number(r.bodies), changed: Number(r.changed) }
}

const record = (client: ClickHouseClient, version: number, step: "bodies" | "done", r: Resume) =>
  client.insert({
    table: "body_decoder_runs",
    values: [{ version, step, cursor: r.cursor, bodies: r.bodies, changed: r.changed }],
    format: "JSONEachRow"
  })

/** The JSON text `message_contents.decoded` holds for a body (as src/flatten/message_contents.ts writes it). */
export const decodedText = (boc: string): string | null => {
  const d = decodeBodyBoc(boc)
  return d === null ? null : goJsonStringify(d)
}

/** What rows of one hash hold: its distinct decoded values (null included). Stale unless exactly `[fresh]`. */
export const isStale = (stored: ReadonlyArray<string | null>, fresh: string | null): boolean =>
  stored.length !== 1 || stored[0] !== fresh

const nullableStrArray = (xs: ReadonlyArray<string | null>): string =>
  `CAST([${xs.map((x) => (x === null ? "NULL" : str(x))).join(",")}] AS Array(Nullable(String)))`

/**
 * Brings the store to `options.version` (default: this build's decoder). Returns what it did; a store already at
 * that version (or newer) costs one query.
 */
export const redecodeBodies = async (
  client: ClickHouseClient,
  options: RedecodeOptions = {}
): Promise<RedecodeReport> => {
  const version = options.version ?? BODY_DECODER_VERSION
  const say = options.onProgress ?? (() => {})
  const from = await storedDecoderVersion(client)
  const base = { from, opcodes: 0, opcodeRows: 0, bodies: 0, changedBodies: 0, droppedPageBlocks: 0, renderedBlocks: 0 }
  const plan = decoderPlan(from, version)
  if (plan !== "redecode") return { ...base, to: from, outcome: plan }
  const target = (table: string) => (options.cluster ? `${localName(table)} ON CLUSTER ${options.cluster}` : table)
  const started = Date.now()
  const cpu0 = process.cpuUsage()
  // Process CPU (user + system, the embedded engine's threads included) since the run began.
  const cpu = () => {
    const c = process.cpuUsage(cpu0)
    return `${((c.user + c.system) / 1e6).toFixed(1)} s CPU`
  }
  const dropped = new Set<number>()

  /** Drops the pieces of the blocks whose messages match `where`: they are answered from the rows until rendered. */
  const dropPieces = async (where: string): Promise<void> => {
    const blocks = (
      await rows<{ s: number }>(client, `SELECT DISTINCT mc_block_seqno AS s FROM messages WHERE ${where}`)
    ).map((r) => Number(r.s))
    if (blocks.length === 0) return
    // On a single node: the render walk's progress lowered below them first (an interruption before they are
    // rendered again leaves them findable: they then have no pages at all), then their key-value page rows (sql/0131,
    // sql/0132; none on a cluster), so a row is never left beside re-rendered pieces.
    if (options.cluster === undefined) {
      await lowerRenderProgress(client, Math.min(...blocks))
      await deleteV3Pages(client, blocks)
      await deleteV2Pages(client, blocks)
    }
    await client.command({
      query: `DELETE FROM ${target("tx_pages")} WHERE mc_block_seqno IN ${uint32Array(blocks)}`,
      clickhouse_settings: { lightweight_deletes_sync: "2" }
    })
    for (const b of blocks) dropped.add(b)
  }

  // Opcode names: a function of the opcode, so one GROUP BY finds every stale pair.
  const pairs = await rows<{ opcode: number; name: string | null; n: string }>(
    client,
    "SELECT opcode, decoded_opcode AS name, count() AS n FROM messages WHERE opcode IS NOT NULL GROUP BY opcode, name"
  )
  const staleOps = new Map<number, string | null>()
  let opcodeRows = 0
  for (const p of pairs) {
    const fresh = opcodeName(Number(p.opcode))
    if ((p.name ?? null) !== fresh) {
      staleOps.set(Number(p.opcode), fresh)
      opcodeRows += Number(p.n)
    }
  }
  if (staleOps.size > 0) {
    const ops = [...staleOps.keys()]
    const names = ops.map((o) => staleOps.get(o) ?? null)
    const opsArray = `CAST(${uint32Array(ops)} AS Array(UInt32))`
    const expected = `transform(assumeNotNull(opcode), ${opsArray}, ${nullableStrArray(names)}, NULL)`
    const stale = `opcode IN ${uint32Array(ops)} AND ifNull(decoded_opcode, '') != ifNull(${expected}, '')`
    await dropPieces(stale)
    await client.command({
      query: `ALTER TABLE ${target("messages")} UPDATE decoded_opcode = ${expected} WHERE ${stale}`,
      clickhouse_settings: { ...BIG_QUERY, mutations_sync: "2" }
    })
    // The names table is filled by a view on inserts, which a mutation does not reach.
    await client.command({
      query: `DELETE FROM ${target("opcode_names")} WHERE opcode IN ${uint32Array(ops)}`,
      clickhouse_settings: { lightweight_deletes_sync: "2" }
    })
    const named = ops.filter((o) => staleOps.get(o) !== null).map((o) => ({ opcode: o, name: staleOps.get(o) }))
    if (named.length > 0) await client.insert({ table: "opcode_names", values: named, format: "JSONEachRow" })
    say(`redecode: ${staleOps.size} opcode names corrected on ${opcodeRows} message rows`)
  }

  // Init states share the table and are never decoded: leave alone cells used only that way.
  const inits = (
    await rows<{ h: string }>(
      client,
      "SELECT DISTINCT init_state_hash AS h FROM messages WHERE init_state_hash IS NOT NULL"
    )
  ).map((r) => r.h)
  const initOnly = new Set(inits)
  for (let i = 0; i < inits.length; i += 10_000) {
    const chunk = inits.slice(i, i + 10_000)
    for (const r of await rows<{ h: string }>(
      client,
      `SELECT DISTINCT body_hash AS h FROM messages WHERE body_hash IN ${strArray(chunk)}`
    ))
      initOnly.delete(r.h)
  }

  const batchBytes = Math.max(1, options.batchBytes ?? 8 * 1024 * 1024)
  const progress = await resumePoint(client, version)
  let { cursor, bodies, changed } = progress
  if (cursor !== "") say(`redecode: resuming after ${cursor} (${bodies} bodies, ${changed} changed)`)
  // Corrections wait for a few batches: each mutation rewrites the column in every part holding one of its hashes,
  // and content hashes are spread over all parts, so fewer, larger mutations cost less. The cursor moves with them.
  const updateBytes = Math.max(1, options.updateBytes ?? 32 * 1024 * 1024)
  let pending: Array<{ readonly hash: string; readonly value: string | null }> = []
  let pendingBytes = 0
  let flushed = cursor
  const flush = async () => {
    if (pending.length > 0) {
      const hashes = strArray(pending.map((p) => p.hash))
      await client.command({
        query:
          `ALTER TABLE ${target("message_contents")} UPDATE decoded = ` +
          `transform(toString(hash), ${hashes}, ${nullableStrArray(pending.map((p) => p.value))}, decoded) ` +
          `WHERE hash IN ${hashes}`,
        clickhouse_settings: { ...BIG_QUERY, mutations_sync: "2" }
      })
      changed += pending.length
      pending = []
      pendingBytes = 0
    }
    if (cursor !== flushed) {
      await record(client, version, "bodies", { cursor, bodies, changed })
      flushed = cursor
    }
  }
  for (;;) {
    if (options.signal?.aborted) {
      return {
        ...base,
        to: from,
        outcome: "stopped",
        opcodes: staleOps.size,
        opcodeRows,
        bodies,
        changedBodies: changed,
        droppedPageBlocks: dropped.size
      }
    }
    // The batch's end: the hash where the BOC bytes after the cursor pass the bound (sizes only, no BOCs read).
    const sizes = await rows<{ hash: string; n: string }>(
      client,
      `SELECT hash, length(boc) AS n FROM message_contents WHERE hash > ${str(cursor)} ORDER BY hash LIMIT 100000`
    )
    if (sizes.length === 0) break
    let end = sizes[sizes.length - 1]!.hash
    let sum = 0
    for (const s of sizes) {
      sum += Number(s.n)
      if (sum >= batchBytes) {
        end = s.hash
        break
      }
    }
    const batch = await rows<{ hash: string; boc: string; values: Array<string>; nulls: string }>(
      client,
      `SELECT hash, any(boc) AS boc, groupUniqArray(decoded) AS values, countIf(decoded IS NULL) AS nulls
       FROM message_contents WHERE hash > ${str(cursor)} AND hash <= ${str(end)} GROUP BY hash`
    )
    const stale: Array<string> = []
    for (const r of batch) {
      if (initOnly.has(r.hash)) continue
      bodies++
      const fresh = decodedText(r.boc)
      const stored: Array<string | null> = Number(r.nulls) > 0 ? [...r.values, null] : r.values
      if (isStale(stored, fresh)) {
        stale.push(r.hash)
        pending.push({ hash: r.hash, value: fresh })
        pendingBytes += r.hash.length + (fresh?.length ?? 0)
      }
    }
    // Pieces first: a crash after this leaves the values stale (the cursor has not passed them), so the next run
    // finds them again; until rendered, these blocks are answered from the rows.
    if (stale.length > 0) await dropPieces(`body_hash IN ${strArray(stale)}`)
    cursor = end
    if (pendingBytes >= updateBytes) await flush()
    say(
      `redecode: ${bodies} bodies decoded, ${changed + pending.length} changed, ${dropped.size} blocks' pages dropped ` +
        `(${((Date.now() - started) / 1000).toFixed(1)} s, ${cpu()})`
    )
  }
  await flush()
  // Small insert batches: a whole store of dropped pages may be rendered here (the default batch is 20,000 rows).
  // On a single node the dropped blocks are rendered straight into their key-value rows (and `tx_pages` only where
  // those cannot serve a block), then any done block left without pages is found past the walk's progress; on a
  // cluster into `tx_pages`, every done block without pieces.
  const rendered =
    options.cluster === undefined
      ? await backfillTxPages(client, { batchTxs: 2_000, pageKv: true, seqnos: [...dropped] })
      : await backfillTxPages(client, { batchTxs: 2_000 })
  if (rendered.length > 0) say(`redecode: pages rendered again for ${rendered.length} masterchain blocks (${cpu()})`)
  await record(client, version, "done", { cursor, bodies, changed })
  say(
    bodies === 0 && staleOps.size === 0
      ? `redecode: no stored body to decode again; the store is at body decoder version ${version}`
      : `redecode: decoder version ${from} -> ${version}: ${bodies} bodies, ${changed} changed, ` +
          `${staleOps.size} opcode names on ${opcodeRows} rows, in ${((Date.now() - started) / 1000).toFixed(1)} s, ${cpu()}`
  )
  return {
    from,
    to: version,
    outcome: "redecoded",
    opcodes: staleOps.size,
    opcodeRows,
    bodies,
    changedBodies: changed,
    droppedPageBlocks: dropped.size,
    renderedBlocks: rendered.length
  }
}
