/**
 * The use cases behind the routes: parse, ask the store (a handful of queries, independent ones in
 * parallel), reassemble, render, serialize. Shared by the REST routes and JSON-RPC so both answer identically.
 * Invariants: the store shows only completely ingested masterchain blocks (so rows found imply completion and
 * the completion marker is asked only to tell an empty block from a missing one), anything else is a 404, and
 * a serialized answer may be cached; v2 answers are cached without their per-response `@extra`.
 */
import { notFound } from "./errors.js"
import type { Renderers } from "./render.js"
import { renderV2BlockIdExt } from "../ton/v2.js"
import type { TxStore } from "../store/TxStore.js"
import type { QueryValue } from "./assemble/params.js"
import { blockIdText, makeExtra, pageInfo, parseBlockTransactionsExt } from "./assemble/v2.js"
import { requiredInt, INT32_MAX } from "./assemble/params.js"
import {
  addressBookAddresses,
  blocksOfMc,
  parseMcSeqno,
  parsePaging,
  renderV3Block,
  stateHashes
} from "./assemble/v3.js"
import { goJson, pythonJson, sortedRecord } from "./json.js"
import { v3PageAnswer } from "../store/pages.js"
import { renderAddressBookText } from "../ton/v3.js"
import type { ResponseCache } from "./cache.js"

/**
 * An answer already serialized in its dialect (pre-rendered pages, see TxStore's `pages`): sent as is. Those pages
 * come from the TON domain's renderers at ingest, so a store offering them is meant for `tonRenderers`.
 */
class JsonText {
  constructor(readonly text: string) {}
}

const EMPTY_V2_TXS = '"transactions":[]'
const EMPTY_SHARDS = '"shards":[]'

export interface Clock {
  readonly nowMs: () => number
  readonly random: () => number
}

export interface Deps {
  readonly store: TxStore
  readonly render: Renderers
  readonly testnet: boolean
  readonly clock: Clock
  readonly cache: ResponseCache | null
}

/** How long a v3 answer with an address book may be reused: its bounceable flags follow the latest known code. */
export const ADDRESS_BOOK_TTL_MS = 60_000

type Query = Readonly<Record<string, QueryValue>>

/** The timeout ton-http-api adds to `@extra`'s timestamp (its default tonlib request timeout). */
const EXTRA_TIMEOUT_SECONDS = 10

const extra = (clock: Clock): string => makeExtra(clock.nowMs(), EXTRA_TIMEOUT_SECONDS, 0, clock.random())

const MC_SHARD = "-9223372036854775808"

const mcNotFoundV2 = (seqno: number): Error =>
  notFound(`cannot find block ${blockIdText({ workchain: -1, shard: MC_SHARD, seqno })}: block not found`)

/**
 * A v2 `result` as JSON text whose last key is `@extra`: served from the cache with a fresh `@extra`, or
 * produced, serialized and cached without it.
 */
const withExtra = async (deps: Deps, key: string, produce: (extra: string) => Promise<unknown>): Promise<string> => {
  const fresh = extra(deps.clock)
  const tail = `,"@extra":${JSON.stringify(fresh)}}`
  const hit = deps.cache?.get(key)
  if (hit !== undefined) return (typeof hit === "string" ? hit : hit.toString("utf8")) + tail
  const produced = await produce(fresh)
  const text = produced instanceof JsonText ? produced.text : pythonJson(produced)
  if (deps.cache !== null && text.endsWith(tail)) deps.cache.set(key, text.slice(0, -tail.length))
  return text
}

/** v2 getBlockTransactionsExt: the `result` (ton-http-api's `blocks.transactionsExt`) as JSON text. */
export const blockTransactionsExt = async (deps: Deps, q: Query): Promise<string> => {
  const req = parseBlockTransactionsExt(q)
  const { id, hashes, after, count } = req
  const key = [
    "v2tx",
    id.workchain,
    id.shard,
    id.seqno,
    hashes?.root_hash,
    hashes?.file_hash,
    after?.account,
    after?.lt,
    count
  ].join("|")
  return withExtra(deps, key, (fresh) => blockTransactionsExtResult(deps, req, fresh))
}

const blockTransactionsExtResult = async (
  deps: Deps,
  req: ReturnType<typeof parseBlockTransactionsExt>,
  fresh: string
): Promise<unknown> => {
  // One lookup when the store holds the block's page row; the same checks and envelope as below.
  const kv = await deps.store.pages?.v2BlockPage?.(req.id, req.after, req.count)
  if (kv !== undefined && kv !== null) {
    if (req.hashes !== null && (req.hashes.root_hash !== kv.id.root_hash || req.hashes.file_hash !== kv.id.file_hash)) {
      throw notFound(`cannot find block ${blockIdText(req.id)} with the given root_hash and file_hash`)
    }
    const envelope = pythonJson(
      deps.render.v2BlockTransactionsExt({ id: kv.id, ...pageInfo(req.count, kv.count), transactions: [], extra: fresh })
    )
    return new JsonText(envelope.replace(EMPTY_V2_TXS, `"transactions":[${kv.transactions}]`))
  }
  const block = await deps.store.blockById(req.id)
  if (block === null) throw notFound(`cannot find block ${blockIdText(req.id)}: block not found`)
  if (
    req.hashes !== null &&
    (req.hashes.root_hash !== block.id.root_hash || req.hashes.file_hash !== block.id.file_hash)
  ) {
    throw notFound(`cannot find block ${blockIdText(req.id)} with the given root_hash and file_hash`)
  }
  const pieces = await deps.store.pages?.v2PageText(block, req.after, req.count)
  if (pieces !== undefined && pieces !== null) {
    // The envelope rendered without transactions, then the stored per-transaction JSON spliced in.
    const envelope = pythonJson(
      deps.render.v2BlockTransactionsExt({ id: block.id, ...pageInfo(req.count, pieces.length), transactions: [], extra: fresh })
    )
    return new JsonText(envelope.replace(EMPTY_V2_TXS, `"transactions":[${pieces.join(",")}]`))
  }
  const txs = await deps.store.blockTransactions(req.id, req.after, req.count)
  return deps.render.v2BlockTransactionsExt({
    id: block.id,
    ...pageInfo(req.count, txs.length),
    transactions: txs,
    extra: fresh
  })
}

/** v2 shards: the shard tops a masterchain block references (`blocks.shards`) as JSON text. */
export const shards = async (deps: Deps, q: Query): Promise<string> => {
  const seqno = requiredInt("seqno", q.seqno, 0n, INT32_MAX)
  return withExtra(deps, `v2shards|${seqno}`, async (fresh) => {
    // One lookup when the store holds the masterchain block's row (sql/0150): the envelope with the stored tops
    const kv = await deps.store.pages?.mcShards?.(seqno)
    if (kv !== undefined && kv !== null) {
      const envelope = pythonJson({ "@type": "blocks.shards", shards: [], "@extra": fresh })
      return new JsonText(envelope.replace(EMPTY_SHARDS, `"shards":[${kv.tops}]`))
    }
    const tops = await deps.store.shardTops(seqno)
    if (tops.length === 0 && !(await deps.store.mcBlockDone(seqno))) throw mcNotFoundV2(seqno)
    return { "@type": "blocks.shards", shards: tops.map(renderV2BlockIdExt), "@extra": fresh }
  })
}

/** A v3 body as JSON text, from the cache or produced, serialized (Go dialect) and cached for `ttlMs`. */
const cachedV3 = async (
  deps: Deps,
  key: string,
  ttlMs: number,
  produce: () => Promise<unknown>
): Promise<string | Buffer> => {
  const hit = deps.cache?.get(key)
  if (hit !== undefined) return hit
  const produced = await produce()
  const body = produced instanceof JsonText ? produced.text : Buffer.isBuffer(produced) ? produced : goJson(produced)
  deps.cache?.set(key, body, ttlMs)
  return body
}

/** v3 transactionsByMasterchainBlock: `{transactions, address_book}` of a masterchain block and its shard blocks. */
export const transactionsByMasterchainBlock = async (
  deps: Deps,
  q: Query,
  o: { readonly withAddressBook: boolean }
): Promise<string | Buffer> => {
  const seqno = parseMcSeqno(q)
  const paging = parsePaging(q)
  const key = `v3tx|${seqno}|${paging.limit}|${paging.offset}|${paging.sort}|${o.withAddressBook}`
  const ttl = o.withAddressBook ? ADDRESS_BOOK_TTL_MS : Number.POSITIVE_INFINITY
  return cachedV3(deps, key, ttl, () => transactionsBody(deps, seqno, paging, o.withAddressBook))
}

const transactionsBody = async (
  deps: Deps,
  seqno: number,
  paging: ReturnType<typeof parsePaging>,
  withAddressBook: boolean
): Promise<{ transactions: unknown[]; address_book: Record<string, unknown> } | Buffer> => {
  const page = await deps.store.pages?.v3PageText(seqno, paging, withAddressBook)
  if (page !== undefined && page !== null) {
    const book = withAddressBook ? renderAddressBookText(page.book, page.codeHashes, { testnet: deps.testnet }) : "{}"
    return v3PageAnswer(page, book)
  }
  const txs = await deps.store.transactionsByMcSeqno(seqno, paging)
  if (txs.length === 0) {
    // the store shows only completed blocks, so rows imply completion; only an empty page needs the marker
    if (!(await deps.store.mcBlockDone(seqno))) throw notFound(`masterchain block ${seqno} not found`)
    return { transactions: [], address_book: {} }
  }
  const [states, codeHashes] = await Promise.all([
    deps.store.accountStates(stateHashes(txs)),
    withAddressBook
      ? deps.store.codeHashes(addressBookAddresses(txs))
      : Promise.resolve(new Map<string, string | null>())
  ])
  const book = withAddressBook ? deps.render.addressBook(txs, codeHashes, { testnet: deps.testnet }) : {}
  return {
    transactions: txs.map((tx) => deps.render.v3Transaction(tx, states)),
    address_book: sortedRecord(Object.entries(book))
  }
}

/** v3 masterchainBlockShards: every block the masterchain block commits, itself included. */
export const masterchainBlockShards = async (deps: Deps, q: Query): Promise<string | Buffer> => {
  const seqno = parseMcSeqno(q)
  const { limit, offset } = parsePaging({ limit: q.limit, offset: q.offset })
  return cachedV3(deps, `v3blocks|${seqno}|${limit}|${offset}`, Number.POSITIVE_INFINITY, () =>
    blocksBody(deps, seqno, limit, offset)
  )
}

const blocksBody = async (
  deps: Deps,
  seqno: number,
  limit: number,
  offset: number
): Promise<{ blocks: unknown[] } | JsonText> => {
  // One lookup when the store holds the masterchain block's row (sql/0150): its rendered blocks, cut here
  const kv = await deps.store.pages?.mcShards?.(seqno)
  if (kv !== undefined && kv !== null) return new JsonText(`{"blocks":[${kv.blocks.slice(offset, offset + limit).join(",")}]}`)
  const mcId = { workchain: -1, shard: MC_SHARD, seqno }
  const [mc, shardBlocks] = await Promise.all([deps.store.blockById(mcId), deps.store.shardBlocksOfMc(seqno)])
  // ton-index-go's GetShardsDiff words its miss this way (transactionsByMasterchainBlock names the seqno)
  if (mc === null) throw notFound("blocks not found")
  return {
    blocks: blocksOfMc(mc, shardBlocks)
      .slice(offset, offset + limit)
      .map(renderV3Block)
  }
}
