/**
 * Round trips on real data through the whole app (routes, store port, reassembly, renderers, JSON dialect):
 * - v2: BlockPI's getBlockTransactionsExt for masterchain block 39984096 (Python ton-http-api, Aug 2024) byte for
 *   byte apart from `@extra` and the two message fields tonlib added after Aug 2024 (`hash`, `extra_currencies`),
 *   the same documented exception as the decoder's own golden test.
 * - v3: the six transactions of the ton-org/docs traces fixture (ton-index-go, all in masterchain block 52372896),
 *   decoded from their verified BOCs, served as transactionsByMasterchainBlock and compared with toncenter's
 *   objects and address book byte for byte. Inputs no BOC holds (trace_id, account states, code hashes) are
 *   supplied from the fixture, as the pipeline's enrichment supplies them. The recording predates the keys today's
 *   toncenter adds, so this one is served in the `2025-09` shape.
 * - committed goldens for a real masterchain block (tongo block 5: tick-tock, ext-in with init_state) on every route.
 */
import fs from "node:fs"
import path from "node:path"
import { Either } from "effect"
import { describe, expect, it } from "vitest"
import { goJson, pythonJson } from "../../../src/api/json.js"
import { renderersFor } from "../../../src/api/render.js"
import { decodeTransaction } from "../../../src/ton/decode.js"
import type { AccountStateRecord, BlockIdExt, BlockRecord, TransactionRecord } from "../../../src/ton/record.js"
import { expectGoldenBody, expectSameBytes } from "./goldenFile.js"
import { MemoryTxStore } from "../../../tools/fake/memoryStore.js"
import { REAL_FIXTURES, blockFromSummary, readTxsJson, shardTopsFromSummary, txFromSummary } from "./records.js"
import { appFor, fixedClock } from "./world.js"

const shared = (rel: string): any => JSON.parse(fs.readFileSync(path.join(REAL_FIXTURES, rel), "utf8"))
const decode = (boc: string, block: BlockIdExt, mc: number): TransactionRecord => {
  const r = decodeTransaction(boc, { block, mc_block_seqno: mc })
  if (Either.isLeft(r)) throw new Error(r.left.message)
  return r.right
}
const FIXED_EXTRA = "1724745572.699:0:0.5335802192168009"

describe("v2 getBlockTransactionsExt: BlockPI mc 39984096, served from the store", () => {
  const fixture = shared("v2/blockpi-official-docs__v2_getBlockTransactionsExt__mc-39984096.json")
  const header = shared("v2/blockpi-official-docs__v2_getBlockHeader__mainnet_mc-39984096.json").result
  const id: BlockIdExt = {
    workchain: header.id.workchain,
    shard: header.id.shard,
    seqno: header.id.seqno,
    root_hash: header.id.root_hash,
    file_hash: header.id.file_hash
  }
  const mc: BlockRecord = {
    id,
    mc_block_seqno: id.seqno,
    global_id: header.global_id,
    version: header.version,
    flags: header.flags,
    after_merge: header.after_merge,
    after_split: header.after_split,
    before_split: header.before_split,
    want_merge: header.want_merge,
    want_split: header.want_split,
    key_block: header.is_key_block,
    vert_seqno: header.vert_seqno,
    validator_list_hash_short: header.validator_list_hash_short,
    gen_catchain_seqno: header.catchain_seqno,
    min_ref_mc_seqno: header.min_ref_mc_seqno,
    prev_key_block_seqno: header.prev_key_block_seqno,
    gen_utime: header.gen_utime,
    start_lt: header.start_lt,
    end_lt: header.end_lt,
    prev_blocks: header.prev_blocks.map(({ "@type": _, ...p }: any) => p),
    tx_count: fixture.result.transactions.length
  }
  const txs = fixture.result.transactions.map((t: any) => decode(t.data, id, id.seqno))
  const store = new MemoryTxStore([{ mc, shardBlocks: [], shardTops: [], transactions: txs }])
  const app = appFor(store)
  const url = `/api/v2/getBlockTransactionsExt?workchain=-1&shard=-9223372036854775808&seqno=39984096`

  const expected = (): string => {
    const e = structuredClone(fixture)
    e.result["@extra"] = FIXED_EXTRA
    return pythonJson(e)
  }
  const withoutNewMessageFields = (body: string): string => {
    const b = JSON.parse(body)
    for (const t of b.result.transactions) {
      for (const m of [t.in_msg, ...t.out_msgs].filter(Boolean)) {
        delete m.hash
        delete m.extra_currencies
      }
    }
    return pythonJson(b)
  }

  it("reproduces toncenter's response byte for byte apart from @extra and the post-Aug-2024 message fields", async () => {
    const res = await app.inject(
      `${url}&root_hash=${encodeURIComponent(id.root_hash)}&file_hash=${encodeURIComponent(id.file_hash)}`
    )
    expect(res.statusCode).toBe(200)
    // the body is compact JSON as Python prints it: reparsing and printing again changes nothing
    expect(pythonJson(JSON.parse(res.body))).toBe(res.body)
    expectSameBytes("v2-blockpi-39984096", withoutNewMessageFields(res.body), expected())
    expectGoldenBody("v2-blockpi-39984096", res.body)
  })

  it("answers the same result through JSON-RPC", async () => {
    const rest = await app.inject(url)
    const rpc = await app.inject({
      method: "POST",
      url: "/api/v2/jsonRPC",
      headers: { "content-type": "application/json" },
      payload:
        '{"method":"getBlockTransactionsExt","params":{"workchain":-1,"shard":-9223372036854775808,"seqno":39984096},"id":7,"jsonrpc":"2.0"}'
    })
    expect(rpc.body).toBe(`${rest.body.slice(0, -1)},"id":"7","jsonrpc":"2.0"}`)
  })

  it("keeps @extra in pytonlib's format", async () => {
    const live = appFor(store, { clock: { nowMs: Date.now, random: Math.random } })
    const extra = (await live.inject(url)).json().result["@extra"]
    expect(extra).toMatch(/^\d{10}\.\d+:\d+:0\.\d+(e-\d+)?$/)
    expect(fixture.result["@extra"]).toMatch(/^\d{10}\.\d+:\d+:0\.\d+$/)
    expect(fixedClock.nowMs()).toBeGreaterThan(0)
  })
})

describe("v3 transactionsByMasterchainBlock: ton-org/docs traces (mc 52372896), served from the store", () => {
  const traces = shared("v3/ton-org-docs__cookbook-traces__v3_traces__mc-52372896.json")
  const rebuilt = shared("v3/v3-transactions-with-rebuilt-bocs.json").items as Array<any>
  const expectedTxs = Object.values(traces.traces[0].transactions) as Array<any>
  const ref = expectedTxs[0].block_ref
  const block: BlockIdExt = {
    workchain: ref.workchain,
    shard: BigInt.asIntN(64, BigInt(`0x${ref.shard}`)).toString(),
    seqno: ref.seqno,
    root_hash: "",
    file_hash: ""
  }
  const records = expectedTxs.map((e) => {
    const item = rebuilt.find((i) => i.tx_hash_b64 === e.hash && i.verified)
    return { ...decode(item.boc_b64, block, e.mc_block_seqno), trace_id: e.trace_id ?? null }
  })
  const states: AccountStateRecord[] = []
  const codeHashes: Record<string, string | null> = {}
  for (const e of expectedTxs) {
    for (const s of [e.account_state_before, e.account_state_after])
      if (s.balance !== null) states.push({ account: e.account, ...s })
    codeHashes[e.account] = e.account_state_after.code_hash
  }
  const mcSeqno = expectedTxs[0].mc_block_seqno as number
  const mc = { ...blockFromSummary(readTxsJson("mainnet__-1_8000000000000000_17734191__tongo-block-5").block, mcSeqno) }
  const store = new MemoryTxStore([
    {
      mc: { ...mc, id: { ...mc.id, seqno: mcSeqno } },
      shardBlocks: [],
      shardTops: [],
      transactions: records,
      accountStates: states,
      codeHashes
    }
  ])
  // The recording predates toncenter's decoded bodies, decoded_opcode, extra_flags, finality and interfaces: it is
  // served in the shape of its generation (the same renderers without exactly those keys).
  const app = appFor(store, { render: renderersFor("2025-09") })

  const byLt = (dir: 1 | -1) => (a: any, b: any) =>
    dir * Number(BigInt(a.lt) - BigInt(b.lt)) || (a.account < b.account ? -1 : 1)

  it("serves toncenter's transaction objects and address book byte for byte, newest first", async () => {
    const res = await app.inject(`/api/v3/transactionsByMasterchainBlock?seqno=${mcSeqno}`)
    expect(res.statusCode).toBe(200)
    const expected = goJson({ transactions: [...expectedTxs].sort(byLt(-1)), address_book: traces.address_book })
    expectSameBytes("v3-traces-52372896", res.body, expected)
  })

  it("pages with limit, offset and sort=asc over the same objects", async () => {
    const asc = [...expectedTxs].sort(byLt(1))
    const res = await app.inject(`/api/v3/masterchainBlockShardState?seqno=${mcSeqno}&sort=asc&limit=2&offset=3`)
    const body = JSON.parse(res.body)
    expect(goJson(body.transactions)).toBe(goJson(asc.slice(3, 5)))
    expect(Object.keys(body.address_book).length).toBeGreaterThanOrEqual(2)
  })
})

describe("committed goldens: tongo block 5 (masterchain 17734191) on every route", () => {
  const j = readTxsJson("mainnet__-1_8000000000000000_17734191__tongo-block-5")
  const mc = blockFromSummary(j.block, j.block.seqno)
  const txs = j.transactions.map((t) => txFromSummary(t, mc))
  const shardTops = shardTopsFromSummary(j.block)
  const app = appFor(new MemoryTxStore([{ mc, shardBlocks: [], shardTops, transactions: txs }]))
  const routes: Array<[string, string]> = [
    [
      "v2-getBlockTransactionsExt-17734191",
      `/api/v2/getBlockTransactionsExt?workchain=-1&shard=-9223372036854775808&seqno=17734191&count=4`
    ],
    ["v2-shards-17734191", "/api/v2/shards?seqno=17734191"],
    ["v3-transactionsByMasterchainBlock-17734191", "/api/v3/transactionsByMasterchainBlock?seqno=17734191"],
    ["v3-masterchainBlockShards-17734191", "/api/v3/masterchainBlockShards?seqno=17734191"]
  ]
  for (const [name, url] of routes) {
    it(name, async () => {
      const res = await app.inject(url)
      expect(res.statusCode).toBe(200)
      expectGoldenBody(name, res.body)
    })
  }
})
