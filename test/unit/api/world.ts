/**
 * A small world for API tests: the real 510-transaction shard block (tongo block 3) committed by a
 * masterchain block, plus an ingested masterchain block without transactions.
 * Invariant: seqnos and identities below are what the tests assert against; nothing else is implied.
 */
import { buildApp, type ApiAppConfig } from "../../../src/api/app.js"
import type { Renderers } from "../../../src/api/render.js"
import type { Clock } from "../../../src/api/handlers.js"
import type { BlockRecord } from "../../../src/ton/record.js"
import { MemoryTxStore } from "../../../tools/fake/memoryStore.js"
import { blockFromSummary, readTxsJson, txFromSummary } from "./records.js"

export const BIG_MC = 34606336
export const EMPTY_MC = 34606337

const mcBlock = (seqno: number): BlockRecord => {
  const shard = readTxsJson("mainnet__0_8000000000000000_40484438__tongo-block-3").block
  const base = blockFromSummary({ ...shard, workchain: -1, seqno, tx_count: 0, master_ref: null, prev: [] }, seqno)
  return { ...base, id: { ...base.id, root_hash: Buffer.alloc(32, seqno % 251).toString("base64") } }
}

export const bigBlockWorld = () => {
  const j = readTxsJson("mainnet__0_8000000000000000_40484438__tongo-block-3")
  const shardBlock = blockFromSummary(j.block, BIG_MC)
  const txs = j.transactions.map((t) => txFromSummary(t, shardBlock))
  const store = new MemoryTxStore([
    { mc: mcBlock(BIG_MC), shardBlocks: [shardBlock], shardTops: [shardBlock.id], transactions: txs },
    { mc: mcBlock(EMPTY_MC), shardBlocks: [], shardTops: [shardBlock.id], transactions: [] }
  ])
  return { store, shardBlock, txs }
}

export const testConfig: ApiAppConfig = { network: "mainnet", api: { keys: [], rateLimit: 0 }, cacheBytes: 0 }

export const fixedClock: Clock = { nowMs: () => 1724745562699, random: () => 0.5335802192168009 }

export const appFor = (
  store: MemoryTxStore,
  o: { config?: Partial<ApiAppConfig>; render?: Renderers; clock?: Clock } = {}
) =>
  buildApp({
    store,
    config: { ...testConfig, ...o.config },
    ...(o.render ? { render: o.render } : {}),
    clock: o.clock ?? fixedClock
  })
