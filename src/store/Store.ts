/**
 * The API's read port (TxStore) over ClickHouse: a handful of queries per call, each on a table's sort key.
 * Invariants: only masterchain blocks with a `mc_blocks_done` marker are visible (every query checks it in the
 * same statement), and results hold no duplicates before merges (FINAL, or aggregation on content-addressed rows).
 * Values are SQL literals (./sql.ts), not query parameters: embedded chdb runs parameterized statements one at a time
 * process-wide, literal ones side by side when the store is given several connections.
 */
import type { ClickHouseClient } from "@clickhouse/client"
import type {
  AccountCursor,
  McShardsText,
  PageTextStore,
  SortOrder,
  TxStore,
  V2BlockPage,
  V3PageText
} from "./TxStore.js"
import type { AccountStateRow } from "../flatten/account_states.js"
import type { BlockRow } from "../flatten/blocks.js"
import type { McShardBlockRow } from "../flatten/mc_shard_blocks.js"
import type { MessageRow } from "../flatten/messages.js"
import type { TransactionRow } from "../flatten/transactions.js"
import type { AccountStateRecord, BlockId, BlockIdExt, BlockRecord, TransactionRecord } from "../ton/record.js"
import {
  assembleAccountState,
  assembleBlock,
  assembleShardTop,
  assembleTransactions,
  contentHashes
} from "./assemble.js"
import { nativeStringColumns } from "./native.js"
import { isEmbeddedState } from "./pages.js"
import { int32, int64, str, strArray, strKeys, uint32, uint32Array, uint64, uint64Number } from "./sql.js"
import { v2PageKey } from "../flatten/v2_pages.js"
import { cutV2Page } from "./v2Pages.js"
import { SharedStatements } from "./SharedStatements.js"

/** Settings every read needs whatever the client defaults are: 64-bit values as JSON strings, end to end. */
export const readSettings = {
  output_format_json_quote_64bit_integers: 1,
  output_format_json_named_tuples_as_objects: 1,
  // Every table's partition key is a function of its sort key, so FINAL may skip cross-partition merging.
  do_not_merge_across_partitions_select_final: 1
} as const

const UINT32_MAX = 0xffffffff
const isUInt32 = (n: number): boolean => Number.isInteger(n) && n >= 0 && n <= UINT32_MAX
const isInt32 = (n: number): boolean => Number.isInteger(n) && n >= -0x80000000 && n <= 0x7fffffff
const INT64 = /^-?\d{1,19}$/
const isInt64 = (s: string): boolean => INT64.test(s) && BigInt(s) >= -(2n ** 63n) && BigInt(s) < 2n ** 63n
const validBlockId = (id: BlockId): boolean => isInt32(id.workchain) && isInt64(id.shard) && isUInt32(id.seqno)

// Membership in the completion marker for the masterchain seqnos of `inner` (a subquery returning UInt32).
const doneAmong = (inner: string): string => `(SELECT mc_seqno FROM mc_blocks_done WHERE mc_seqno IN (${inner}))`

const blockKey = (id: BlockId): string =>
  `workchain = ${int32(id.workchain)} AND shard = ${int64(id.shard)} AND seqno = ${uint32(id.seqno)}`

// Masterchain seqnos per bitmap of done blocks (8 KiB each; 50 million seqnos would be 6 MiB).
const DONE_CHUNK = 65_536

/** The key of the `account_lookups_kv` row that records the table filled (no state hash or account is empty). */
export const LOOKUPS_KV_FILLED = ""

// How long a store whose `account_lookups_kv` is not filled yet reads the MergeTree tables before asking again.
const LOOKUPS_KV_RETRY_MS = 10_000

// Bounds the memo of done blocks: a few hundred bytes each, so about a megabyte at most.
const DONE_BLOCKS_MEMO = 4096

/**
 * How concurrent page reads share statements (./SharedStatements.ts): at most `count` requests per statement, and
 * `inFlight` statements of one kind (page rows, lookups, v2 rows) at once; the requests arriving meanwhile wait for
 * the next one, or go out beside the running one once `extraAfter` of them wait. `count: 1` runs every request alone.
 */
export interface ReadSharing {
  readonly count: number
  readonly inFlight: number
  readonly extraAfter?: number
}

export const DEFAULT_READ_SHARING: ReadSharing = { count: 16, inFlight: 1 }

// Hashes and addresses per shared lookups statement (a page of 40 has ~80 hashes and up to a few hundred addresses).
const LOOKUP_KEYS = 8192

/** A v3 page's place in its block's `v3_pages` row. */
interface V3PageAsk {
  readonly seqno: number
  readonly offset: number
  readonly limit: number
  readonly sort: SortOrder
}

const samePageShape = (a: V3PageAsk, b: V3PageAsk): boolean =>
  a.offset === b.offset && a.limit === b.limit && a.sort === b.sort

/**
 * Whether a page may share the `v3_pages` statement of `group`: pages of any shapes may (each block's row answers
 * the shape asked of that block), but one block answers one shape per statement, so a page of a block the group
 * already asks in another shape waits for the next statement (the same page twice shares it).
 */
const fitsPageGroup = (group: ReadonlyArray<V3PageAsk>, q: V3PageAsk): boolean =>
  group.every((a) => a.seqno !== q.seqno || samePageShape(a, q))

/** What one page's lookups take from a shared lookups statement. */
interface LookupsAnswer {
  /** Whether `account_lookups_kv` is filled: else the other fields are empty (the caller reads the MergeTree). */
  readonly filled: boolean
  readonly states: Map<string, AccountStateRecord>
  readonly codes: Map<string, string | null>
}

const NOT_FILLED: LookupsAnswer = { filled: false, states: new Map(), codes: new Map() }

/** A `v2_pages` row's fields after its key. */
interface V2Row {
  readonly mc: string
  readonly root_hash: string
  readonly file_hash: string
  readonly keys: string
  readonly v2: string
}

/** A `latest_account_code` row as the code-hash lookups read it: `key` is the account, `mc` its masterchain seqno. */
interface CodeRow {
  readonly key: string
  readonly code_hash: string | null
  readonly mc: number
}

/** The `value` of an `account_lookups_kv` state row (sql/0142): the fields of `account_states` as JSON, numbers as text. */
export interface StateKvValue {
  readonly account: string
  readonly balance: string | null
  readonly extra_currencies: Record<string, string>
  readonly account_status: AccountStateRecord["account_status"]
  readonly frozen_hash: string | null
  readonly data_hash: string | null
  readonly code_hash: string | null
}

/** A state's record from its stored fields (a row of `account_states` or a state row of `account_lookups_kv`). */
export const stateRecord = (hash: string, t: StateKvValue): AccountStateRecord => ({
  hash,
  account: t.account,
  balance: t.balance,
  extra_currencies: t.balance === null ? null : t.extra_currencies,
  account_status: t.account_status,
  frozen_hash: t.frozen_hash,
  data_hash: t.data_hash,
  code_hash: t.code_hash
})

/** A row of the v3 page's lookup statement: an account state (kind 0, key = hash) or a code row (kind 1, key = account). */
interface LookupRow extends StateKvValue {
  readonly kind: number
  readonly key: string
  readonly known: number
  readonly mc: number
}

/**
 * One way to run a read statement, answering its rows as JSONEachRow text: a client (server or chdb), or a native
 * embedded session already bound to the database with `readSettings` applied once (./readers.ts), which spares every
 * statement the client's per-statement `USE` and `SET` prefix.
 */
export interface ReadConnection {
  readonly jsonEachRow: (sql: string) => Promise<string>
  /** The statement's own output, for statements that end in a FORMAT clause. */
  readonly text: (sql: string) => Promise<string>
  /** `text` as the engine's bytes, undecoded. */
  readonly bytes: (sql: string) => Promise<Buffer>
}

/** The output of a statement sent as it is (its FORMAT clause decides the output), with the read settings. */
const execBytes = async (client: ClickHouseClient, query: string): Promise<Buffer> => {
  const r = await client.exec({ query, clickhouse_settings: readSettings })
  const chunks: Array<Buffer> = []
  for await (const c of r.stream) chunks.push(c as Buffer)
  return Buffer.concat(chunks)
}

/** A client as a read connection: the settings travel with every statement. */
export const clientReader = (client: ClickHouseClient): ReadConnection => ({
  jsonEachRow: async (query) =>
    (await client.query({ query, format: "JSONEachRow", clickhouse_settings: readSettings })).text(),
  text: async (query) => (await execBytes(client, query)).toString("utf8"),
  bytes: (query) => execBytes(client, query)
})

const isClient = (c: ClickHouseClient | ReadConnection): c is ClickHouseClient => !("jsonEachRow" in c)

/** JSONEachRow text -> rows (JSON escapes newlines inside strings, so every line is one row). */
const parseRows = <T>(text: string): Array<T> => {
  const out: Array<T> = []
  let start = 0
  while (start < text.length) {
    let end = text.indexOf("\n", start)
    if (end < 0) end = text.length
    if (end > start) out.push(JSON.parse(text.slice(start, end)) as T)
    start = end + 1
  }
  return out
}

/** The lines of TabSeparatedRaw text (every line ends in a newline). */
const tsvLines = (text: string): Array<string> => {
  const out = text.split("\n")
  if (out.length > 0 && out[out.length - 1] === "") out.pop()
  return out
}

/** The lines of TabSeparatedRaw bytes (every line ends in a newline), as views of `bytes`. */
const tsvByteLines = (bytes: Buffer): Array<Buffer> => {
  const out: Array<Buffer> = []
  let at = 0
  while (at < bytes.length) {
    let nl = bytes.indexOf(NL, at)
    if (nl < 0) nl = bytes.length
    out.push(bytes.subarray(at, nl))
    at = nl + 1
  }
  return out
}

const TAB = 9
const NL = 10

/**
 * A page line's three leading fields (state hashes and book addresses, without tabs) as text, and the
 * rest of it (the transaction's v3 piece) as a view of the line's bytes.
 */
const splitPageLine = (line: Buffer): { before: string; after: string; book: string; v3: Buffer } => {
  const t1 = line.indexOf(TAB)
  const t2 = t1 < 0 ? -1 : line.indexOf(TAB, t1 + 1)
  const t3 = t2 < 0 ? -1 : line.indexOf(TAB, t2 + 1)
  if (t3 < 0) throw new Error("a page line with fewer than 4 fields")
  return {
    before: line.toString("utf8", 0, t1),
    after: line.toString("utf8", t1 + 1, t2),
    book: line.toString("utf8", t2 + 1, t3),
    v3: line.subarray(t3 + 1)
  }
}

export class ClickHouseTxStore implements TxStore, PageTextStore {
  readonly pages: PageTextStore = this
  // A block of a done masterchain block never changes again (TxStore's invariant), so its header is remembered:
  // the v2 route asks for it on every page, and the page query then needs no `blocks` lookup of its own.
  private readonly doneBlocks = new Map<string, BlockRecord>()
  private readonly doneChunks = new Map<number, Promise<Uint8Array>>()
  private readonly clients: ReadonlyArray<{ readonly reader: ReadConnection; inFlight: number }>
  private readonly pageKv: boolean
  // Whether `account_lookups_kv` was seen filled (it stays so): a page's lookups are then one read of it alone; and
  // until when not to ask it again after it was not.
  private lookupsKvFilled = false
  private lookupsKvRetryAt = 0
  private readonly v3Pages: SharedStatements<V3PageAsk, Array<Buffer> | null>
  private readonly lookups: SharedStatements<{ hashes: Set<string>; book: Set<string> }, LookupsAnswer>
  private readonly v2Rows: SharedStatements<string, V2Row | null>
  private readonly mcShardsRows: SharedStatements<number, McShardsText | null>

  /**
   * Several connections to the same database let statements of concurrent calls run side by side. `pageKv: false`
   * (a cluster, whose key-value tables are per node and never written) leaves the `v3_pages`, `v2_pages` and
   * `account_lookups_kv` rows unread.
   */
  constructor(
    clients: ClickHouseClient | ReadonlyArray<ClickHouseClient | ReadConnection>,
    options: { readonly pageKv?: boolean; readonly sharing?: ReadSharing } = {}
  ) {
    const list = Array.isArray(clients) ? clients : [clients as ClickHouseClient]
    if (list.length === 0) throw new RangeError("ClickHouseTxStore needs at least one client")
    this.clients = list.map((c) => ({ reader: isClient(c) ? clientReader(c) : c, inFlight: 0 }))
    this.pageKv = options.pageKv ?? true
    const { count, inFlight, extraAfter } = options.sharing ?? DEFAULT_READ_SHARING
    const limits = { count, inFlight, keys: count, extraAfter }
    this.v3Pages = new SharedStatements((g) => this.v3PageLines(g), limits, undefined, fitsPageGroup)
    this.lookups = new SharedStatements(
      (g) => this.v3LookupsKvRows(g),
      { ...limits, keys: LOOKUP_KEYS },
      (q) => q.hashes.size + q.book.size
    )
    this.v2Rows = new SharedStatements((g) => this.v2PageRows(g), limits)
    this.mcShardsRows = new SharedStatements((g) => this.mcShardsKvRows(g), limits)
  }

  /**
   * Whether masterchain block `seqno` is done, from a bitmap of the marker loaded 65,536 seqnos at a time (one
   * statement per range, 8 KiB each), so a page read needs no marker lookup of its own. Sound because a done block
   * stays done: a clear bit only means "ask in the statement" (the block may have been finished since the load).
   */
  private async isMcDone(seqno: number): Promise<boolean> {
    const chunk = Math.floor(seqno / DONE_CHUNK)
    let bits = this.doneChunks.get(chunk)
    if (bits === undefined) {
      bits = this.loadDoneChunk(chunk)
      this.doneChunks.set(chunk, bits)
    }
    const bitmap = await bits.catch(() => {
      this.doneChunks.delete(chunk)
      return new Uint8Array(DONE_CHUNK / 8)
    })
    const i = seqno - chunk * DONE_CHUNK
    return (bitmap[i >> 3]! & (1 << (i & 7))) !== 0
  }

  private async loadDoneChunk(chunk: number): Promise<Uint8Array> {
    const bitmap = new Uint8Array(DONE_CHUNK / 8)
    const lo = chunk * DONE_CHUNK
    const rows = await this.rows<{ s: number }>(
      `SELECT mc_seqno AS s FROM mc_blocks_done WHERE mc_seqno BETWEEN ${uint32(lo)} AND ${uint32(lo + DONE_CHUNK - 1)}`
    )
    for (const { s } of rows) {
      const i = Number(s) - lo
      bitmap[i >> 3]! |= 1 << (i & 7)
    }
    return bitmap
  }

  /**
   * Whether masterchain block `seqno` is done: the marker's bitmap, else (finished since its range was loaded, or not
   * finished) the marker itself, whose yes is remembered in the bitmap.
   */
  private async mcDoneAsking(seqno: number): Promise<boolean> {
    if (await this.isMcDone(seqno)) return true
    if (!(await this.mcBlockDone(seqno))) return false
    this.rememberMcDone(seqno)
    return true
  }

  /** Marks a block seen done by a marker-checked statement (its range's bitmap may predate it). */
  private rememberMcDone(seqno: number): void {
    const chunk = Math.floor(seqno / DONE_CHUNK)
    void this.doneChunks.get(chunk)?.then(
      (bitmap) => {
        const i = seqno - chunk * DONE_CHUNK
        bitmap[i >> 3]! |= 1 << (i & 7)
      },
      () => {}
    )
  }

  private rememberDone(key: string, block: BlockRecord): void {
    if (this.doneBlocks.size >= DONE_BLOCKS_MEMO) this.doneBlocks.delete(this.doneBlocks.keys().next().value!)
    this.doneBlocks.set(key, block)
  }

  private async rows<T>(query: string): Promise<Array<T>> {
    return parseRows<T>(await this.run((r) => r.jsonEachRow(query)))
  }

  private async text(query: string): Promise<string> {
    return this.run((r) => r.text(query))
  }

  /** `text` undecoded: the long pieces of a page go into the answer as the engine's bytes. */
  private async bytes(query: string): Promise<Buffer> {
    return this.run((r) => r.bytes(query))
  }

  private async run<A>(f: (reader: ReadConnection) => Promise<A>): Promise<A> {
    // the least busy connection; ties go to the first, so one client at a time is used while calls do not overlap
    let pick = this.clients[0]!
    for (const c of this.clients) if (c.inFlight < pick.inFlight) pick = c
    pick.inFlight++
    try {
      return await f(pick.reader)
    } finally {
      pick.inFlight--
    }
  }

  async mcBlockDone(seqno: number): Promise<boolean> {
    if (!isUInt32(seqno)) return false
    const [r] = await this.rows<{ n: string }>(
      `SELECT count() AS n FROM mc_blocks_done WHERE mc_seqno = ${uint32(seqno)}`
    )
    return r !== undefined && r.n !== "0"
  }

  async lastDoneMcSeqno(): Promise<number | null> {
    const [r] = await this.rows<{ m: number; n: string }>("SELECT max(mc_seqno) AS m, count() AS n FROM mc_blocks_done")
    return r === undefined || r.n === "0" ? null : r.m
  }

  async transactionsByMcSeqno(
    seqno: number,
    o: { limit: number; offset: number; sort: SortOrder }
  ): Promise<Array<TransactionRecord>> {
    if (!isUInt32(seqno) || !isUInt32(o.limit) || !Number.isSafeInteger(o.offset) || o.offset < 0) return []
    const dir = o.sort === "asc" ? "ASC" : "DESC"
    const s = uint32(seqno)
    const txs = await this.rows<TransactionRow>(
      `SELECT * FROM transactions FINAL
       WHERE mc_block_seqno = ${s} AND mc_block_seqno IN ${doneAmong(s)}
       ORDER BY lt ${dir}, account ASC
       LIMIT ${uint32(o.limit)} OFFSET ${uint64Number(o.offset)}`
    )
    return this.withMessages(txs)
  }

  async blockById(id: BlockId): Promise<BlockRecord | null> {
    if (!validBlockId(id)) return null
    const key = `${id.workchain}:${id.shard}:${id.seqno}`
    const known = this.doneBlocks.get(key)
    if (known !== undefined) return known
    // One key range and no subquery (each would be planned and run like a statement of its own) when the marker's
    // bitmap shows the block's masterchain block done; otherwise (a block of the newest masterchain blocks) the row
    // and its marker are read together, as one statement, so a row of an unfinished block is never taken.
    let [r] = await this.rows<BlockRow>(`SELECT * FROM blocks FINAL WHERE ${blockKey(id)} LIMIT 1`)
    if (r === undefined) return null
    if (!(await this.isMcDone(Number(r.mc_block_seqno)))) {
      ;[r] = await this.rows<BlockRow>(
        `SELECT * FROM blocks FINAL
         WHERE ${blockKey(id)}
           AND mc_block_seqno IN ${doneAmong(`SELECT mc_block_seqno FROM blocks WHERE ${blockKey(id)}`)}
         LIMIT 1`
      )
      if (r === undefined) return null
      this.rememberMcDone(Number(r.mc_block_seqno))
    }
    const block = assembleBlock(r)
    this.rememberDone(key, block)
    return block
  }

  async blockTransactions(id: BlockId, after: AccountCursor | null, count: number): Promise<Array<TransactionRecord>> {
    if (!validBlockId(id) || !isUInt32(count) || count === 0) return []
    if (after !== null && !/^[0-9A-Fa-f]{64}$/.test(after.account)) return []
    // No transaction has an lt beyond 64 bits, so such a cursor is past the end of any block.
    if (after !== null && (!/^\d{1,20}$/.test(after.lt) || BigInt(after.lt) >= 2n ** 64n)) return []
    // The block's header carries its masterchain seqno and proves that block done (usually memoized already), so
    // the page is one key range with constants only: no `blocks` lookup and no marker check inside the statement.
    const block = await this.blockById(id)
    if (block === null) return []
    // Accounts of one block share the workchain prefix, so "wc:HEX" strings order exactly like the account ids.
    const cursor =
      after === null
        ? ""
        : `AND (account, lt) > (${str(`${id.workchain}:${after.account.toUpperCase()}`)}, ${uint64(after.lt)})`
    const txs = await this.rows<TransactionRow>(
      `SELECT * FROM transactions FINAL
       WHERE mc_block_seqno = ${uint32(block.mc_block_seqno)}
         AND block_workchain = ${int32(id.workchain)} AND block_shard = ${int64(id.shard)}
         AND block_seqno = ${uint32(id.seqno)}
         ${cursor}
       ORDER BY account ASC, lt ASC
       LIMIT ${uint32(count)}`
    )
    return this.withMessages(txs)
  }

  async shardBlocksOfMc(seqno: number): Promise<Array<BlockRecord>> {
    if (!isUInt32(seqno)) return []
    const s = uint32(seqno)
    const rows = await this.rows<BlockRow>(
      `SELECT * FROM blocks FINAL
       WHERE (workchain, shard, seqno) IN
             (SELECT workchain, shard, seqno FROM mc_shard_blocks WHERE mc_seqno = ${s} AND committed)
         AND mc_block_seqno = ${s} AND mc_block_seqno IN ${doneAmong(s)}
       ORDER BY workchain, shard, seqno`
    )
    return rows.map(assembleBlock)
  }

  async shardTops(seqno: number): Promise<Array<BlockIdExt>> {
    if (!isUInt32(seqno)) return []
    const s = uint32(seqno)
    const rows = await this.rows<McShardBlockRow>(
      `SELECT * FROM mc_shard_blocks FINAL
       WHERE mc_seqno = ${s} AND shard_top_index IS NOT NULL AND mc_seqno IN ${doneAmong(s)}
       ORDER BY shard_top_index`
    )
    return rows.map(assembleShardTop)
  }

  async accountStates(hashes: ReadonlyArray<string>): Promise<Map<string, AccountStateRecord>> {
    const out = new Map<string, AccountStateRecord>()
    if (hashes.length === 0) return out
    const rows = await this.rows<AccountStateRow>(
      `SELECT * FROM account_states FINAL WHERE hash IN ${strKeys([...new Set(hashes)])}`
    )
    for (const r of rows) out.set(r.hash, assembleAccountState(r))
    return out
  }

  /**
   * The newest code hash done masterchain blocks reported per account: null for an account reported without code,
   * absent for one no done block reported (the address book tells the two apart, as toncenter's does).
   */
  async codeHashes(accounts: ReadonlyArray<string>): Promise<Map<string, string | null>> {
    if (accounts.length === 0) return new Map()
    const rows = await this.rows<CodeRow>(
      `SELECT account AS key, code_hash, mc_seqno AS mc FROM latest_account_code
       WHERE account IN ${strKeys([...new Set(accounts)])}`
    )
    return this.newestDoneCodes(rows)
  }

  /**
   * A v3 page in two plain statements (no subqueries: in the embedded engine each subquery is planned and run like a
   * statement of its own, a few milliseconds each even over an empty table): the page's pieces (the page's lines of
   * the block's one `v3_pages` row, a key-value lookup, or for a block without that row one key range of `tx_pages`;
   * both as raw tab-separated text, so the long JSON pieces are neither escaped by the engine nor parsed here), then
   * the account states they reference and, with the address book, the code hash of each of its addresses, one UNION
   * ALL looked up by the literal keys the first one returned (each table's key). Once `account_lookups_kv` is filled
   * that second statement is one multi-get of it (its code rows each already the newest done report); until then,
   * and on a cluster, the code hashes are every `latest_account_code` row of the addresses, taken as `codeHashes`
   * takes them (`newestDoneCodes`; a third statement only for rows of the newest blocks).
   */
  async v3PageText(
    seqno: number,
    o: { limit: number; offset: number; sort: SortOrder },
    withAddressBook: boolean
  ): Promise<V3PageText | null> {
    if (!isUInt32(seqno) || !isUInt32(o.limit) || !Number.isSafeInteger(o.offset) || o.offset < 0) return null
    const dir = o.sort === "asc" ? "ASC" : "DESC"
    const s = uint32(seqno)
    // For the key-value row (sql/0131), a done block: one the marker's bitmap does not show done yet (a block finished
    // since its range was loaded) is asked of the marker, since a single node's consumer writes no `tx_pages` rows for
    // blocks the key-value rows serve.
    const done = this.pageKv ? await this.mcDoneAsking(seqno) : await this.isMcDone(seqno)
    const txs: Array<{ v3: Buffer; before: string; after: string }> = []
    const hashes = new Set<string>()
    const book = new Set<string>()
    const take = (line: Buffer) => {
      const f = splitPageLine(line)
      txs.push({ v3: f.v3, before: f.before, after: f.after })
      // a state embedded in the line (its JSON, written with the row) needs no lookup
      if (!isEmbeddedState(f.before)) hashes.add(f.before)
      if (!isEmbeddedState(f.after)) hashes.add(f.after)
      if (withAddressBook) for (const a of f.book.split(" ")) if (a.length > 0) book.add(a)
    }
    // A block without a row (stored before the table and not filled yet, or its pieces dropped for a re-render) reads
    // `tx_pages`, then (the caller) the row tables.
    const lines = done && this.pageKv ? await this.v3Pages.submit({ seqno, ...o }) : null
    if (lines !== null) {
      for (const line of lines) take(line)
      return txs.length === 0 ? null : this.v3Lookups(txs, hashes, book)
    }
    // Columns without tabs or newlines (decimal, hex and base64 text, addresses joined by spaces), the JSON piece last:
    // compact JSON holds neither character raw (txPageRow checks), so each line splits at its first three tabs.
    const text = await this.bytes(
      `SELECT state_before, state_after, ${withAddressBook ? "arrayStringConcat(book, ' ')" : "''"}, v3
       FROM tx_pages
       WHERE mc_block_seqno = ${s}${done ? "" : ` AND mc_block_seqno IN ${doneAmong(s)}`}
       ORDER BY lt ${dir}, account ASC
       LIMIT ${uint32(o.limit)} OFFSET ${uint64Number(o.offset)}
       FORMAT TabSeparatedRaw`
    )
    for (const line of tsvByteLines(text)) take(line)
    if (txs.length === 0) return null
    if (!done) this.rememberMcDone(seqno)
    return this.v3Lookups(txs, hashes, book)
  }

  /**
   * The pages' lines cut from their blocks' `v3_pages` rows (sql/0131) by one key lookup of every block (one shape
   * per block: `fitsPageGroup`) whose statement returns only the pages' lines, in page order: a descending page is a
   * slice of the row's lines, an ascending one the lines whose ascending position falls in the page, ordered by it.
   * Pages of one shape (a lone page among them) take it as constants, so their statement is the lone page's with more
   * keys; an offset or limit the pages differ in is taken by each row from literal arrays by its block (`transform`),
   * and the statement cuts only the orders asked (both, an `if` per row, only when both are). Null for a block
   * without a row.
   */
  private async v3PageLines(asks: ReadonlyArray<V3PageAsk>): Promise<Array<Array<Buffer> | null>> {
    const shapes = new Map<number, V3PageAsk>()
    for (const a of asks) shapes.set(a.seqno, a)
    const blocks = [...shapes.values()]
    const keys = uint32Array(blocks.map((a) => a.seqno))
    // an argument the pages share is a constant, one they differ in is looked up by each row's block
    const perRow = (type: string, value: (a: V3PageAsk) => string): string => {
      const values = blocks.map(value)
      return values.every((v) => v === values[0])
        ? values[0]!
        : `transform(mc_block_seqno, CAST(${keys} AS Array(UInt32)), CAST([${values.join(",")}] AS Array(${type})), to${type}(0))`
    }
    const offset = perRow("UInt64", (a) => uint64Number(a.offset))
    const limit = perRow("UInt32", (a) => uint32(a.limit))
    const inPage = `r > ${offset} AND r <= ${offset} + ${limit}`
    const asc = `arraySort((x, r) -> r, arrayFilter((x, r) -> ${inPage}, lines, asc_rank), arrayFilter(r -> ${inPage}, asc_rank))`
    const desc = `arraySlice(lines, ${offset} + 1, ${limit})`
    const sorts = new Set(blocks.map((a) => a.sort))
    const page =
      sorts.size === 2
        ? `if(${perRow("UInt8", (a) => (a.sort === "asc" ? "1" : "0"))} = 1, ${asc}, ${desc})`
        : sorts.has("asc")
          ? asc
          : desc
    // Per row: the block, its page's line count, then the lines, each with no raw tab or newline of its own but tabs
    // between its fields, so a row is its first two tab-ended fields and that many newline-ended lines.
    // The engine's former analyzer plans this statement with less CPU, the same answer (BENCHMARKS.md, 2026-11-25).
    const text = await this.bytes(
      `SELECT mc_block_seqno, length(${page} AS page), arrayStringConcat(page, '\\n') FROM v3_pages
       WHERE mc_block_seqno IN ${keys}
       SETTINGS enable_analyzer = 0
       FORMAT TabSeparatedRaw`
    )
    const rows = new Map<number, Array<Buffer>>()
    let at = 0
    while (at < text.length) {
      const t1 = text.indexOf(TAB, at)
      const t2 = text.indexOf(TAB, t1 + 1)
      if (t1 < 0 || t2 < 0) throw new Error("v3_pages: a row without its block and line count")
      const seqno = Number(text.toString("latin1", at, t1))
      const n = Number(text.toString("latin1", t1 + 1, t2))
      const lines: Array<Buffer> = []
      at = t2 + 1
      if (n === 0) at++
      for (let i = 0; i < n; i++) {
        const nl = text.indexOf(NL, at)
        if (nl < 0) throw new Error(`v3_pages: ${i} of ${n} lines`)
        lines.push(text.subarray(at, nl))
        at = nl + 1
      }
      rows.set(seqno, lines)
    }
    return asks.map((a) => rows.get(a.seqno) ?? null)
  }

  /**
   * The account states and code rows a page's pieces reference, in one statement (see v3PageText): one read of
   * `account_lookups_kv` once that table is filled, else `account_states` and `latest_account_code`.
   */
  private async v3Lookups(
    txs: Array<{ v3: Buffer; before: string; after: string }>,
    hashes: Set<string>,
    book: Set<string>
  ): Promise<V3PageText> {
    // every state embedded and no address book: nothing to look up
    if (hashes.size === 0 && book.size === 0) return { txs, states: new Map(), book: [], codeHashes: new Map() }
    if (this.pageKv && Date.now() >= this.lookupsKvRetryAt) {
      const got = await this.lookups.submit({ hashes, book })
      if (got.filled) return { txs, states: got.states, book: [...book], codeHashes: got.codes }
      this.lookupsKvRetryAt = Date.now() + LOOKUPS_KV_RETRY_MS
    }
    const lookups = await this.rows<LookupRow>(
      `SELECT 0 AS kind, toString(hash) AS key, known, account, balance, extra_currencies, account_status, frozen_hash,
              data_hash, code_hash, toUInt32(0) AS mc
       FROM account_states WHERE ${hashes.size === 0 ? "0" : `hash IN ${strKeys([...hashes])}`}` +
        (book.size === 0
          ? ""
          : `
       UNION ALL
       SELECT 1, account, 0, '', NULL, CAST(map(), 'Map(UInt32, UInt256)'), NULL, NULL, NULL, code_hash, mc_seqno
       FROM latest_account_code WHERE account IN ${strKeys([...book])}`) +
        // as above: less CPU, the same rows (the settings of a UNION's last SELECT apply to the whole statement)
        "\n       SETTINGS enable_analyzer = 0"
    )
    // A hash may have a hash-only row beside the full one until merges fold them: the known one wins (as FINAL).
    const best = new Map<string, LookupRow>()
    const codeRows: Array<LookupRow> = []
    for (const r of lookups) {
      if (r.kind !== 0) {
        codeRows.push(r)
        continue
      }
      const prev = best.get(r.key)
      if (prev === undefined || r.known > prev.known) best.set(r.key, r)
    }
    const states = new Map<string, AccountStateRecord>()
    for (const [hash, t] of best) states.set(hash, stateRecord(hash, t))
    return { txs, states, book: [...book], codeHashes: await this.newestDoneCodes(codeRows) }
  }

  /**
   * The lookups of several pages in one statement, a multi-get of `account_lookups_kv` (sql/0142) by all their state
   * hashes and book addresses, in the engine's Native output (key, then the state's JSON or the code hash, '' for none).
   * A key is a state hash or an account, never both (see the table), so each page takes back the rows of its own keys;
   * the account rows are each already the newest done report, and a hash without a row is a hash-only state (the table
   * holds every known one), rendered as an absent one. Until the table is known filled the row with the empty key,
   * written by its fill after every row stored before it, is asked too: without it no answer is `filled`.
   */
  private async v3LookupsKvRows(
    asks: ReadonlyArray<{ hashes: Set<string>; book: Set<string> }>
  ): Promise<Array<LookupsAnswer>> {
    const keys = new Set<string>(this.lookupsKvFilled ? [] : [LOOKUPS_KV_FILLED])
    for (const a of asks) {
      for (const h of a.hashes) keys.add(h)
      for (const b of a.book) keys.add(b)
    }
    // Native output: the engine writes each column's values in one pass instead of row by row, for ~0.1 ms less CPU
    // per statement than tab-separated text, the same values (BENCHMARKS.md, "the found keys").
    const [found, foundValues] = nativeStringColumns(
      await this.bytes(
        `SELECT key, value FROM account_lookups_kv WHERE key IN ${strKeys([...keys])}
         SETTINGS enable_analyzer = 0
         FORMAT Native`
      ),
      2
    )
    const values = new Map<string, string>()
    for (let i = 0; i < found!.length; i++) values.set(found![i]!, foundValues![i]!)
    if (!this.lookupsKvFilled) {
      if (!values.has(LOOKUPS_KV_FILLED)) return asks.map(() => NOT_FILLED)
      this.lookupsKvFilled = true
    }
    const states = new Map<string, AccountStateRecord>()
    return asks.map((a) => {
      const own = new Map<string, AccountStateRecord>()
      for (const h of a.hashes) {
        let state = states.get(h)
        if (state === undefined) {
          const value = values.get(h)
          if (value === undefined) continue
          state = stateRecord(h, JSON.parse(value) as StateKvValue)
          states.set(h, state)
        }
        own.set(h, state)
      }
      const codes = new Map<string, string | null>()
      for (const account of a.book) {
        const code = values.get(account)
        if (code !== undefined) codes.set(account, code === "" ? null : code)
      }
      return { filled: true, states: own, codes }
    })
  }

  /**
   * Per account, the code hash of its `latest_account_code` row of the highest done masterchain seqno (NULL kept: an
   * account that lost its code). Done-ness comes from the marker's bitmap; only seqnos it does not show done are
   * asked of the marker (rows of the newest blocks), so no statement carries a subquery.
   */
  private async newestDoneCodes(rows: ReadonlyArray<CodeRow>): Promise<Map<string, string | null>> {
    const seqnos = [...new Set(rows.map((r) => Number(r.mc)))]
    const doneSeqnos = new Set<number>()
    const ask: Array<number> = []
    for (const m of seqnos) {
      if (!isUInt32(m)) continue
      if (await this.isMcDone(m)) doneSeqnos.add(m)
      else ask.push(m)
    }
    if (ask.length > 0) {
      const found = await this.rows<{ s: number }>(
        `SELECT mc_seqno AS s FROM mc_blocks_done WHERE mc_seqno IN ${uint32Array(ask)}`
      )
      for (const { s } of found) {
        doneSeqnos.add(Number(s))
        this.rememberMcDone(Number(s))
      }
    }
    const newest = new Map<string, CodeRow>()
    for (const r of rows) {
      if (!doneSeqnos.has(Number(r.mc))) continue
      const prev = newest.get(r.key)
      if (prev === undefined || Number(r.mc) > Number(prev.mc)) newest.set(r.key, r)
    }
    const out = new Map<string, string | null>()
    for (const [account, r] of newest) out.set(account, r.code_hash)
    return out
  }

  /** A v2 page of a done block in one statement: the pieces after the cursor, in (account, lt) order, as raw text. */
  async v2PageText(
    block: BlockRecord,
    after: AccountCursor | null,
    count: number
  ): Promise<ReadonlyArray<string> | null> {
    const id = block.id
    if (!validBlockId(id) || !isUInt32(count) || count === 0) return null
    if (after !== null && !/^[0-9A-Fa-f]{64}$/.test(after.account)) return null
    if (after !== null && (!/^\d{1,20}$/.test(after.lt) || BigInt(after.lt) >= 2n ** 64n)) return null
    const cursor =
      after === null
        ? ""
        : `AND (account, lt) > (${str(`${id.workchain}:${after.account.toUpperCase()}`)}, ${uint64(after.lt)})`
    const text = await this.text(
      `SELECT v2 FROM tx_pages
       WHERE mc_block_seqno = ${uint32(block.mc_block_seqno)}
         AND block_workchain = ${int32(id.workchain)} AND block_shard = ${int64(id.shard)}
         AND block_seqno = ${uint32(id.seqno)}
         ${cursor}
       ORDER BY account ASC, lt ASC
       LIMIT ${uint32(count)}
       FORMAT TabSeparatedRaw`
    )
    const pieces = tsvLines(text)
    return pieces.length === 0 ? null : pieces
  }

  /**
   * A v2 page and its block's id in ONE statement: the block's `v2_pages` row (sql/0132) by its key, cut here
   * (./v2Pages.ts). Null (the caller takes the `blockById` + `v2PageText` path) when the row is off or missing (a
   * cluster, a block stored before the table and not filled yet, an unknown block), when its masterchain block is not
   * done (the marker's bitmap, then for a block it does not show the marker itself), or for arguments that path
   * refuses or treats specially (an invalid id, count or cursor).
   */
  async v2BlockPage(id: BlockId, after: AccountCursor | null, count: number): Promise<V2BlockPage | null> {
    if (!this.pageKv || !validBlockId(id) || !isUInt32(count) || count === 0) return null
    if (after !== null && !/^[0-9A-Fa-f]{64}$/.test(after.account)) return null
    if (after !== null && (!/^\d{1,20}$/.test(after.lt) || BigInt(after.lt) >= 2n ** 64n)) return null
    const row = await this.v2Rows.submit(v2PageKey(id.workchain, id.shard, id.seqno))
    if (row === null) return null
    // A block the marker's bitmap does not show done (finished since its range was loaded, or not finished) is asked
    // of the marker: the other path would find no `tx_pages` rows for it (a single node's consumer writes none for a
    // block with a row) and answer from the row tables.
    if (!(await this.mcDoneAsking(Number(row.mc)))) return null
    const page = cutV2Page(row.keys, row.v2, after, count)
    return {
      id: {
        workchain: id.workchain,
        shard: BigInt.asIntN(64, BigInt(id.shard)).toString(),
        seqno: id.seqno,
        root_hash: row.root_hash,
        file_hash: row.file_hash
      },
      transactions: page.text,
      count: page.count
    }
  }

  /**
   * The `v2_pages` rows (sql/0132) of several blocks by their keys, in one statement; null for a block without one.
   * The fields before the pieces hold no tab or newline (decimal, base64, hex and digits), the pieces (one a line) no
   * tab, so a row is its first six tab-ended fields (the pieces' newline count sixth) and the pieces' lines.
   * Planned by the engine's former analyzer, as the v3 statements are: the same row for ~0.4 ms less wall time and
   * ~0.8 ms less CPU per statement (at load ~20), all of it on a lone request's path (BENCHMARKS.md, 2026-11-26).
   */
  private async v2PageRows(blocks: ReadonlyArray<string>): Promise<Array<V2Row | null>> {
    const text = await this.text(
      `SELECT block, mc_block_seqno, root_hash, file_hash, keys, countSubstrings(v2, '\\n'), v2 FROM v2_pages
       WHERE block IN ${strArray([...new Set(blocks)])}
       SETTINGS enable_analyzer = 0
       FORMAT TabSeparatedRaw`
    )
    const rows = new Map<string, V2Row>()
    let at = 0
    while (at < text.length) {
      const f: Array<string> = []
      for (let i = 0; i < 6; i++) {
        const tab = text.indexOf("\t", at)
        if (tab < 0) throw new Error(`v2_pages: a row of ${i + 1} fields`)
        f.push(text.slice(at, tab))
        at = tab + 1
      }
      let end = at
      for (let n = Number(f[5]); n >= 0; n--) {
        end = text.indexOf("\n", end) + 1
        if (end === 0) throw new Error("v2_pages: a row's pieces cut short")
      }
      rows.set(f[0]!, { mc: f[1]!, root_hash: f[2]!, file_hash: f[3]!, keys: f[4]!, v2: text.slice(at, end - 1) })
      at = end
    }
    return blocks.map((b) => rows.get(b) ?? null)
  }

  /**
   * A done masterchain block's blocks and shard tops from its `mc_shards_kv` row (sql/0150) in one key lookup. Null
   * (the caller reads `blocks` and `mc_shard_blocks`) when the row is off or missing (a cluster, a block stored before
   * the table and not filled yet, an unknown block) or its block is not done (the marker's bitmap, then for a block it
   * does not show the marker itself).
   */
  async mcShards(seqno: number): Promise<McShardsText | null> {
    if (!this.pageKv || !isUInt32(seqno)) return null
    const row = await this.mcShardsRows.submit(seqno)
    if (row === null || !(await this.mcDoneAsking(seqno))) return null
    return row
  }

  /**
   * The `mc_shards_kv` rows of several masterchain blocks by their keys, in one statement; null for a block without
   * one. Native output of String columns: the values come back as stored, with no escaping to undo.
   */
  private async mcShardsKvRows(seqnos: ReadonlyArray<number>): Promise<Array<McShardsText | null>> {
    const [keys, blocks, tops] = nativeStringColumns(
      await this.bytes(
        `SELECT toString(mc_seqno), blocks, tops FROM mc_shards_kv
         WHERE mc_seqno IN ${uint32Array([...new Set(seqnos)])}
         SETTINGS enable_analyzer = 0
         FORMAT Native`
      ),
      3
    )
    const rows = new Map<number, McShardsText>()
    for (let i = 0; i < keys!.length; i++) rows.set(Number(keys![i]), { blocks: blocks![i]!.split("\n"), tops: tops![i]! })
    return seqnos.map((s) => rows.get(s) ?? null)
  }

  /** Two more queries for a page of transactions: its messages, then the bodies and init states they reference. */
  private async withMessages(txs: ReadonlyArray<TransactionRow>): Promise<Array<TransactionRecord>> {
    if (txs.length === 0) return []
    const messages = await this.rows<MessageRow>(
      `SELECT * FROM messages FINAL
       WHERE mc_block_seqno IN ${uint32Array([...new Set(txs.map((t) => t.mc_block_seqno))])}
         AND tx_hash IN ${strKeys(txs.map((t) => t.hash))}`
    )
    const hashes = contentHashes(messages)
    const contents = new Map<string, string>()
    if (hashes.length > 0) {
      const rows = await this.rows<{ hash: string; boc: string }>(
        `SELECT hash, any(boc) AS boc FROM message_contents WHERE hash IN ${strKeys(hashes)} GROUP BY hash`
      )
      for (const r of rows) contents.set(r.hash, r.boc)
    }
    return assembleTransactions(txs, messages, contents)
  }
}
