/**
 * The use cases behind the routes: parse, ask the store (a handful of queries, independent ones in
 * parallel), reassemble, render. Shared by the REST routes and JSON-RPC so both answer identically.
 * Invariant: only blocks of completely ingested masterchain blocks are served; anything else is a 404.
 */
import { notFound } from "./errors.js"
import type { Renderers } from "./render.js"
import { v2BlockIdExt } from "./render.js"
import type { TxStore } from "./TxStore.js"
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
import { sortedRecord } from "./json.js"

export interface Clock {
  readonly nowMs: () => number
  readonly random: () => number
}

export interface Deps {
  readonly store: TxStore
  readonly render: Renderers
  readonly testnet: boolean
  readonly clock: Clock
}

type Query = Readonly<Record<string, QueryValue>>

/** The timeout ton-http-api adds to `@extra`'s timestamp (its default tonlib request timeout). */
const EXTRA_TIMEOUT_SECONDS = 10

const extra = (clock: Clock): string => makeExtra(clock.nowMs(), EXTRA_TIMEOUT_SECONDS, 0, clock.random())

const MC_SHARD = "-9223372036854775808"

const mcNotFoundV2 = (seqno: number): Error =>
  notFound(`cannot find block ${blockIdText({ workchain: -1, shard: MC_SHARD, seqno })}: block not found`)

/** v2 getBlockTransactionsExt: the `result` object (ton-http-api's `blocks.transactionsExt`). */
export const blockTransactionsExt = async (deps: Deps, q: Query): Promise<unknown> => {
  const req = parseBlockTransactionsExt(q)
  const block = await deps.store.blockById(req.id)
  if (block === null) throw notFound(`cannot find block ${blockIdText(req.id)}: block not found`)
  if (
    req.hashes !== null &&
    (req.hashes.root_hash !== block.id.root_hash || req.hashes.file_hash !== block.id.file_hash)
  ) {
    throw notFound(`cannot find block ${blockIdText(req.id)} with the given root_hash and file_hash`)
  }
  const txs = await deps.store.blockTransactions(req.id, req.after, req.count)
  return deps.render.v2BlockTransactionsExt({
    id: block.id,
    ...pageInfo(req.count, txs.length),
    transactions: txs,
    extra: extra(deps.clock)
  })
}

/** v2 shards: the shard tops a masterchain block references (`blocks.shards`). */
export const shards = async (deps: Deps, q: Query): Promise<unknown> => {
  const seqno = requiredInt("seqno", q.seqno, 0n, INT32_MAX)
  const [done, tops] = await Promise.all([deps.store.mcBlockDone(seqno), deps.store.shardTops(seqno)])
  if (!done) throw mcNotFoundV2(seqno)
  return { "@type": "blocks.shards", shards: tops.map(v2BlockIdExt), "@extra": extra(deps.clock) }
}

/** v3 transactionsByMasterchainBlock: `{transactions, address_book}` of a masterchain block and its shard blocks. */
export const transactionsByMasterchainBlock = async (
  deps: Deps,
  q: Query,
  o: { readonly withAddressBook: boolean }
): Promise<{ transactions: unknown[]; address_book: Record<string, unknown> }> => {
  const seqno = parseMcSeqno(q)
  const paging = parsePaging(q)
  const [done, txs] = await Promise.all([
    deps.store.mcBlockDone(seqno),
    deps.store.transactionsByMcSeqno(seqno, paging)
  ])
  if (!done) throw notFound(`masterchain block ${seqno} not found`)
  if (txs.length === 0) return { transactions: [], address_book: {} }
  const [states, codeHashes] = await Promise.all([
    deps.store.accountStates(stateHashes(txs)),
    o.withAddressBook ? deps.store.codeHashes(addressBookAddresses(txs)) : Promise.resolve(new Map<string, string | null>())
  ])
  const book = o.withAddressBook ? deps.render.addressBook(txs, codeHashes, { testnet: deps.testnet }) : {}
  return {
    transactions: txs.map((tx) => deps.render.v3Transaction(tx, states)),
    address_book: sortedRecord(Object.entries(book))
  }
}

/** v3 masterchainBlockShards: every block the masterchain block commits, itself included. */
export const masterchainBlockShards = async (deps: Deps, q: Query): Promise<{ blocks: unknown[] }> => {
  const seqno = parseMcSeqno(q)
  const { limit, offset } = parsePaging({ limit: q.limit, offset: q.offset })
  const mcId = { workchain: -1, shard: MC_SHARD, seqno }
  const [done, mc, shardBlocks] = await Promise.all([
    deps.store.mcBlockDone(seqno),
    deps.store.blockById(mcId),
    deps.store.shardBlocksOfMc(seqno)
  ])
  if (!done || mc === null) throw notFound(`masterchain block ${seqno} not found`)
  return { blocks: blocksOfMc(mc, shardBlocks).slice(offset, offset + limit).map(renderV3Block) }
}
