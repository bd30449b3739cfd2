import type { ClickHouseClient } from "@clickhouse/client"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { flattenBundles, INSERT_ORDER, MC_KEYED_TABLES, type TableRows } from "../../src/flatten/index.js"
import { deleteIncomplete, findIncomplete } from "../../src/sink/deleteIncomplete.js"
import { ClickHouseTxStore } from "../../src/store/Store.js"
import type { BlockRecord, MasterchainBundle, TransactionRecord } from "../../src/ton/record.js"
import { testClickHouse, type TestClickHouse } from "../support/integration.js"
import { h, realBundle, syntheticBundle } from "../unit/store/records.js"
import { readFileSync } from "node:fs"
import { Either } from "effect"
import { bundleStates } from "../../src/source/liteserver/states.js"
import { extractBlock, toBlockRecord } from "../../src/ton/block.js"
import { decodeTransaction } from "../../src/ton/decode.js"
import { FIXTURES } from "../unit/store/records.js"

/** A real masterchain block read whole: header fields beyond v2's and account states from its state update. */
const readWhole = (): MasterchainBundle => {
  const x = Either.getOrThrow(extractBlock(readFileSync(`${FIXTURES}/blocks/mainnet__-1_8000000000000000_17734191__tongo-block-5.boc`)))
  const mc = toBlockRecord(x.header, x.header.seqno)
  const states = bundleStates([x])
  return {
    schema_version: 1,
    network: "mainnet",
    mc_seqno: mc.id.seqno,
    mc_block: mc,
    shard_blocks: [],
    shard_tops: x.header.shards!.map((d) => ({ workchain: d.workchain, shard: d.shard, seqno: d.seqno, root_hash: d.root_hash, file_hash: d.file_hash })),
    transactions: x.transactions.map((t) => Either.getOrThrow(decodeTransaction(t.boc, { block: mc.id, mc_block_seqno: mc.id.seqno }))),
    account_states: states.account_states,
    code_hashes: states.code_hashes
  }
}

let handle: TestClickHouse
let client: ClickHouseClient
let store: ClickHouseTxStore

const insert = async (rows: TableRows, opts: { marker?: boolean; upTo?: string } = {}) => {
  const stop = opts.upTo === undefined ? INSERT_ORDER.length : INSERT_ORDER.indexOf(opts.upTo as never) + 1
  for (const table of INSERT_ORDER.slice(0, stop)) {
    if (table === "mc_blocks_done" && opts.marker === false) continue
    const values = rows[table]
    if (values.length > 0) await client.insert<object>({ table, values, format: "JSONEachRow" })
  }
}

const count = async (sql: string): Promise<number> => {
  const rs = await client.query({ query: sql, format: "JSONEachRow" })
  const [r] = await rs.json<{ n: string }>()
  return Number(r?.n)
}

const cmp = <A extends string | bigint>(a: A, b: A): number => (a < b ? -1 : a > b ? 1 : 0)
const byLtThenAccount = (sort: "asc" | "desc") => (a: TransactionRecord, b: TransactionRecord) =>
  (sort === "asc" ? 1 : -1) * cmp(BigInt(a.lt), BigInt(b.lt)) || cmp(a.account, b.account)
const byBlockOrder = (a: BlockRecord, b: BlockRecord) =>
  a.id.workchain - b.id.workchain || cmp(BigInt(a.id.shard), BigInt(b.id.shard)) || a.id.seqno - b.id.seqno

const real = realBundle()
const synthetic = [1000, 1001, 1002].map(syntheticBundle)
const whole = readWhole()
const done: Array<MasterchainBundle> = [real, ...synthetic, whole]

beforeAll(async () => {
  handle = await testClickHouse("store roundtrip")
  client = handle.client
  store = new ClickHouseTxStore(client)
  // Two batches, as the consumer would send them.
  await insert(flattenBundles([real, synthetic[0]!]))
  await insert(flattenBundles(synthetic.slice(1)))
  await insert(flattenBundles([whole]))
})

afterAll(async () => {
  await handle?.close()
})

const walkBlock = async (b: BlockRecord, pageSize: number): Promise<Array<TransactionRecord>> => {
  const out: Array<TransactionRecord> = []
  let after: { account: string; lt: string } | null = null
  for (;;) {
    const page = await store.blockTransactions(b.id, after, pageSize)
    out.push(...page)
    if (page.length < pageSize) return out
    const last = page.at(-1)!
    after = { account: last.account.split(":")[1]!, lt: last.lt }
  }
}

const checkEverything = async () => {
  for (const b of done) {
    expect(await store.mcBlockDone(b.mc_seqno)).toBe(true)
    for (const sort of ["asc", "desc"] as const) {
      const all = await store.transactionsByMcSeqno(b.mc_seqno, { limit: 1000, offset: 0, sort })
      expect(all).toStrictEqual([...b.transactions].sort(byLtThenAccount(sort)))
    }
    const pages: Array<TransactionRecord> = []
    for (let offset = 0; offset < b.transactions.length + 3; offset += 3) {
      pages.push(...(await store.transactionsByMcSeqno(b.mc_seqno, { limit: 3, offset, sort: "desc" })))
    }
    expect(pages).toStrictEqual([...b.transactions].sort(byLtThenAccount("desc")))

    for (const blk of [b.mc_block, ...b.shard_blocks]) {
      expect(await store.blockById(blk.id)).toStrictEqual(blk)
      const own = b.transactions.filter((t) => t.block.shard === blk.id.shard && t.block.seqno === blk.id.seqno)
      expect(await walkBlock(blk, 1)).toStrictEqual(own)
      expect(await store.blockTransactions(blk.id, null, 1000)).toStrictEqual(own)
    }
    expect(await store.shardBlocksOfMc(b.mc_seqno)).toStrictEqual([b.mc_block, ...b.shard_blocks].sort(byBlockOrder))
    expect(await store.shardTops(b.mc_seqno)).toStrictEqual(b.shard_tops)

    const states = await store.accountStates(b.account_states.map((s) => s.hash))
    const expected = new Map<string, (typeof b.account_states)[number]>()
    for (const s of b.account_states) if (!expected.has(s.hash) || s.balance !== null) expected.set(s.hash, s)
    expect(states).toStrictEqual(expected)
  }
  expect(await store.lastDoneMcSeqno()).toBe(real.mc_seqno)
}

describe("TxStore over embedded ClickHouse", () => {
  it("returns exactly the records that were flattened, in the API's orders", async () => {
    await checkEverything()
  })

  it("keeps the header fields and account states of a block read whole", async () => {
    expect(whole.mc_block.rand_seed).toMatch(/^[A-Za-z0-9+/]{43}=$/)
    expect(whole.mc_block.master_ref_seqno).toBeNull()
    expect(await store.blockById(whole.mc_block.id)).toStrictEqual(whole.mc_block)
    expect(whole.account_states.filter((st) => st.code_hash !== null).length).toBeGreaterThan(3)
    const accounts = Object.keys(whole.code_hashes)
    expect(await store.codeHashes(accounts)).toStrictEqual(new Map(accounts.map((a) => [a, whole.code_hashes[a]])))
  })

  it("answers empty for unknown blocks and cursors past the end", async () => {
    expect(await store.mcBlockDone(999)).toBe(false)
    expect(await store.transactionsByMcSeqno(999, { limit: 10, offset: 0, sort: "desc" })).toEqual([])
    const blk = synthetic[0]!.shard_blocks[0]!
    expect(await store.blockById({ ...blk.id, seqno: blk.id.seqno + 1000 })).toBeNull()
    expect(await store.blockTransactions(blk.id, { account: "F".repeat(64), lt: "0" }, 10)).toEqual([])
    expect(await store.blockTransactions(blk.id, { account: "0".repeat(64), lt: (2n ** 64n).toString() }, 10)).toEqual(
      []
    )
    expect(await store.blockTransactions(blk.id, { account: "0".repeat(64), lt: "0" }, 1000)).toHaveLength(blk.tx_count)
    expect(await store.shardTops(999)).toEqual([])
    expect(await store.accountStates([h("no such state")])).toEqual(new Map())
  })

  it("returns the newest code hash of done blocks per account, NULL included, nothing for an unknown one", async () => {
    const b = synthetic[1]!
    const [withCode, withNull] = [Object.keys(b.code_hashes)[0]!, Object.keys(b.code_hashes)[2]!]
    const unknown = "0:" + "AB".repeat(32)
    expect(await store.codeHashes([withCode, withNull, unknown])).toStrictEqual(
      new Map([
        [withCode, b.code_hashes[withCode]!],
        [withNull, null]
      ])
    )
  })

  it("answers the same through several connections with calls overlapping", async () => {
    // The same client three times: statements are spread over the list while earlier ones are in flight.
    const pooled = new ClickHouseTxStore([client, client, client])
    const answers = await Promise.all(
      done.flatMap((b) => [
        pooled.transactionsByMcSeqno(b.mc_seqno, { limit: 1000, offset: 0, sort: "asc" }),
        ...b.shard_blocks.map((blk) => pooled.blockTransactions(blk.id, null, 1000)),
        pooled.shardBlocksOfMc(b.mc_seqno)
      ])
    )
    const expected = done.flatMap((b) => [
      [...b.transactions].sort(byLtThenAccount("asc")),
      ...b.shard_blocks.map((blk) =>
        b.transactions.filter((t) => t.block.shard === blk.id.shard && t.block.seqno === blk.id.seqno)
      ),
      [b.mc_block, ...b.shard_blocks].sort(byBlockOrder)
    ])
    expect(answers).toStrictEqual(expected)
    expect(() => new ClickHouseTxStore([])).toThrow(RangeError)
  })

  it("reads values that look like SQL as data only", async () => {
    const tricky = ["x' OR 1=1 --", "0:'); DROP TABLE transactions; --", "\\'", "'"]
    expect(await store.accountStates(tricky)).toEqual(new Map())
    expect(await store.codeHashes(tricky)).toStrictEqual(new Map())
    expect(await count("SELECT count() AS n FROM transactions")).toBeGreaterThan(0)
  })

  it("stays exactly-once when every row is inserted again", async () => {
    const before = await count("SELECT count() AS n FROM transactions")
    await insert(flattenBundles(done))
    // The raw table now holds the replay too (until merges), which the reads must not show.
    expect(await count("SELECT count() AS n FROM transactions")).toBeGreaterThanOrEqual(before)
    await checkEverything()
    expect(await count("SELECT count() AS n FROM transactions FINAL")).toBe(
      done.reduce((n, b) => n + b.transactions.length, 0)
    )
  })

  it("hides a block without completion marker and deleteIncomplete removes its rows", async () => {
    const late = syntheticBundle(1005)
    // A newer code hash for an account of a done block: must stay invisible until 1005 is done.
    const b = synthetic[1]!
    const account = Object.keys(b.code_hashes)[0]!
    const partial = { ...late, code_hashes: { ...late.code_hashes, [account]: h("new code") } }
    await insert(flattenBundles([partial]), { marker: false })

    expect(await store.mcBlockDone(1005)).toBe(false)
    expect(await store.transactionsByMcSeqno(1005, { limit: 100, offset: 0, sort: "asc" })).toEqual([])
    expect(await store.blockById(late.shard_blocks[0]!.id)).toBeNull()
    expect(await store.blockById(late.mc_block.id)).toBeNull()
    expect(await store.blockTransactions(late.shard_blocks[0]!.id, null, 100)).toEqual([])
    expect(await store.shardBlocksOfMc(1005)).toEqual([])
    expect(await store.shardTops(1005)).toEqual([])
    expect(await store.lastDoneMcSeqno()).toBe(real.mc_seqno)
    expect((await store.codeHashes([account])).get(account)).toBe(b.code_hashes[account])

    const rowsOf = async (seqno: number) => {
      let n = 0
      for (const { table, column } of MC_KEYED_TABLES)
        n += await count(`SELECT count() AS n FROM ${table} WHERE ${column} = ${seqno}`)
      return n
    }
    const doneRows = await Promise.all(done.map((d) => rowsOf(d.mc_seqno)))
    expect(await rowsOf(1005)).toBeGreaterThan(0)

    expect(await deleteIncomplete(client)).toEqual([1005])
    expect(await rowsOf(1005)).toBe(0)
    expect(await Promise.all(done.map((d) => rowsOf(d.mc_seqno)))).toEqual(doneRows)
    expect(await deleteIncomplete(client)).toEqual([])

    // Re-ingesting the block after the cleanup makes it visible, newer code hash included.
    await insert(flattenBundles([partial]))
    expect(await store.transactionsByMcSeqno(1005, { limit: 100, offset: 0, sort: "asc" })).toStrictEqual(
      [...late.transactions].sort(byLtThenAccount("asc"))
    )
    expect((await store.codeHashes([account])).get(account)).toBe(h("new code"))
    // Nothing was remembered about the block while it was hidden: once done it is served by id and by block walk.
    const lateShard = late.shard_blocks[0]!
    const lateOwn = late.transactions.filter(
      (t) => t.block.shard === lateShard.id.shard && t.block.seqno === lateShard.id.seqno
    )
    expect(lateOwn.length).toBeGreaterThan(0)
    expect(await store.blockById(lateShard.id)).toStrictEqual(lateShard)
    expect(await store.blockTransactions(lateShard.id, null, 1000)).toStrictEqual(lateOwn)
    expect(await store.lastDoneMcSeqno()).toBe(real.mc_seqno)
    await checkEverything()
  })

  it("finds and removes a batch cut short after some tables, scanning in small ranges", async () => {
    const cut = [syntheticBundle(1010), syntheticBundle(1012)]
    await insert(flattenBundles(cut), { upTo: "transactions" })
    expect(await findIncomplete(client, { rangeSize: 1 })).toEqual([1010, 1012])
    expect(await findIncomplete(client, { fromSeqno: 1011 })).toEqual([1012])
    expect(await deleteIncomplete(client, { rangeSize: 3 })).toEqual([1010, 1012])
    expect(await count("SELECT count() AS n FROM transactions WHERE mc_block_seqno IN (1010, 1012)")).toBe(0)
    expect(await count("SELECT count() AS n FROM messages WHERE mc_block_seqno IN (1010, 1012)")).toBe(0)
    expect(await findIncomplete(client)).toEqual([])
    await checkEverything()
  })
})
