// A chain written by the generator, with the account states toncenter v3 reports, through the whole pipeline as the
// runnables read a node: the toncenter source with v3 enrichment asks the fake toncenter's accountStates for every
// bundle's accounts, producer -> Kafka -> consumer -> ClickHouse. The store then holds every generated state and each
// account's newest code, and the v3 answers carry them: states after transactions, and the address book's bounceable
// flags by the newest code (wallet codes and unknown code non-bounceable, contracts bounceable), exactly as the
// renderers answer over the same bundles decoded in memory.
import { mkdtempSync, rmSync } from "node:fs"
import os from "node:os"
import path from "node:path"
import type { FastifyInstance } from "fastify"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { buildApp, type ApiAppConfig } from "../../src/api/app.js"
import { Upstream } from "../../src/source/Upstream.js"
import { ClickHouseTxStore } from "../../src/store/Store.js"
import { assembleBundle, pipelineDecode } from "../../src/producer/assemble.js"
import { assignTraceIds } from "../../src/trace/traceIds.js"
import { MemoryTxStore } from "../../tools/fake/memoryStore.js"
import { toFriendly } from "../../src/ton/address.js"
import { WALLET_CODE_HASHES, isBounceableByCode } from "../../src/ton/v3.js"
import type { ChainData } from "../../tools/fake/ChainData.js"
import { startFakeToncenter, type FakeToncenter } from "../../tools/fake/server.js"
import { chainFromBundles } from "../../tools/gen/chain.js"
import { generate, readBundles } from "../../tools/gen/generate.js"
import type { GenBundle } from "../../tools/gen/types.js"
import { testClickHouse, testKafka, type TestClickHouse } from "../support/integration.js"
import { expectedFrom } from "../support/pipeline/chainUpstream.js"
import { ingestChain } from "../support/pipeline/ingest.js"
import { readStored } from "../support/pipeline/stored.js"

const apiConfig: ApiAppConfig = { network: "mainnet", api: { keys: [], rateLimit: 0 }, cacheBytes: 0 }
const clock = { nowMs: () => 1724745562699, random: () => 0.5 }

interface V3Page {
  readonly transactions: ReadonlyArray<{
    readonly account: string
    readonly account_state_after: {
      readonly hash: string
      readonly balance: string | null
      readonly code_hash: string | null
    } | null
  }>
  readonly address_book: Readonly<Record<string, { readonly user_friendly: string }>>
}

describe("pipeline: a generated chain's account states through the toncenter source into the store and v3", () => {
  const tmp = mkdtempSync(path.join(os.tmpdir(), "gen-states-"))
  const tk = testKafka("pipeline-gen-states")
  const bundles: Array<GenBundle> = []
  let chain: ChainData
  let toncenter: FakeToncenter
  let ch: TestClickHouse
  let app: FastifyInstance

  beforeAll(async () => {
    const { dir } = await generate({
      seed: "states",
      txs: 3000,
      baseTxs: 800,
      worlds: 2,
      users: 60,
      lanes: 2,
      txPerMc: 40,
      cacheDir: tmp,
      threads: false
    })
    for await (const b of readBundles(dir)) bundles.push(b)
    chain = chainFromBundles(bundles, "gen-states")
    toncenter = await startFakeToncenter({ chain })
    ch = await testClickHouse("pipeline_gen_states")
    const source = Upstream.layerFrom({
      url: toncenter.url,
      v3Url: toncenter.url,
      rps: 0,
      concurrency: 8,
      retries: 2,
      timeoutMs: 10_000
    })
    const summary = await ingestChain({ tk, ch, chain, name: "states", source })
    expect(summary).toMatchObject({ first: chain.first, last: chain.last, deadLetters: 0 })
    app = buildApp({ store: new ClickHouseTxStore(ch.client), config: apiConfig, clock })
  }, 600_000)

  afterAll(async () => {
    await app?.close()
    await toncenter?.stop()
    await ch?.close()
    rmSync(tmp, { recursive: true, force: true })
  })

  const query = async <T>(q: string): Promise<Array<T>> =>
    (await ch.client.query({ query: q, format: "JSONEachRow" })).json<T>()

  /** Each account's code as of the chain's last block that reported it. */
  const newestCode = (): Map<string, string | null> => {
    const out = new Map<string, string | null>()
    for (const b of bundles) for (const [a, c] of Object.entries(b.code_hashes)) out.set(a, c)
    return out
  }

  it("stores every generated state and each account's newest code", async () => {
    const stored = await readStored(ch.client)
    expect(stored.txHashes).toEqual(expectedFrom(chain).txHashes)
    const states = new Map(bundles.flatMap((b) => b.account_states.map((s) => [s.hash, s] as const)))
    expect(states.size).toBeGreaterThan(1000)
    const known = await query<{ hash: string; account: string; account_status: string; code_hash: string | null }>(
      "SELECT hash, account, account_status, code_hash FROM account_states FINAL WHERE known = 1"
    )
    expect(known.length).toBe(states.size)
    for (const row of known) {
      const s = states.get(row.hash)!
      expect([row.account, row.account_status, row.code_hash]).toEqual([s.account, s.account_status, s.code_hash])
    }
    const codes = newestCode()
    const latest = await query<{ account: string; code_hash: string | null }>(
      "SELECT account, argMax(code_hash, mc_seqno) AS code_hash FROM latest_account_code GROUP BY account"
    )
    expect(latest.length).toBe(codes.size)
    for (const row of latest) expect(row.code_hash, row.account).toBe(codes.get(row.account))
  })

  it("answers v3 with the states after transactions and bounceable flags by the newest code", async () => {
    const codes = newestCode()
    const states = new Map(bundles.flatMap((b) => b.account_states.map((s) => [s.hash, s] as const)))
    let afterStates = 0
    const seen = { wallet: 0, contract: 0 }
    for (let s = chain.first; s <= chain.last; s++) {
      const res = await app.inject(`/api/v3/transactionsByMasterchainBlock?seqno=${s}&limit=1000`)
      expect(res.statusCode).toBe(200)
      const page = res.json<V3Page>()
      for (const t of page.transactions) {
        const state = t.account_state_after === null ? undefined : states.get(t.account_state_after.hash)
        if (state !== undefined) {
          expect(t.account_state_after!.balance).toBe(state.balance)
          expect(t.account_state_after!.code_hash).toBe(state.code_hash)
          afterStates += 1
        }
        const code = codes.get(t.account) ?? null
        const bounceable = isBounceableByCode(code)
        expect(page.address_book[t.account]!.user_friendly, t.account).toBe(
          toFriendly(t.account, { bounceable, testnet: false })
        )
        if (code !== null && WALLET_CODE_HASHES.has(code)) seen.wallet += 1
        if (bounceable) seen.contract += 1
      }
    }
    expect(afterStates).toBeGreaterThan(1000)
    expect(seen.wallet).toBeGreaterThan(0)
    expect(seen.contract).toBeGreaterThan(0)
  })

  it("answers the v3 routes for every block exactly as the renderers do over the same bundles in memory", async () => {
    const decoded = bundles
      .filter((b) => b.mc_seqno >= chain.first)
      .map((b) => assembleBundle(b, chain.network, pipelineDecode).bundle)
    const traced = assignTraceIds(
      decoded.map((b) => b.transactions),
      { get: () => undefined },
      "own-hash"
    )
    const memory = buildApp({
      store: new MemoryTxStore(
        decoded.map((b, k) => ({
          mc: b.mc_block,
          shardBlocks: b.shard_blocks,
          shardTops: b.shard_tops,
          transactions: traced[k]!,
          accountStates: b.account_states,
          codeHashes: b.code_hashes
        }))
      ),
      config: apiConfig,
      clock
    })
    try {
      let withStates = 0
      for (let s = chain.first; s <= chain.last; s++) {
        for (const q of ["", "&limit=1000&sort=asc", "&limit=7&offset=3&sort=desc"]) {
          for (const route of ["masterchainBlockShardState", "transactionsByMasterchainBlock"]) {
            const url = `/api/v3/${route}?seqno=${s}${q}`
            const [x, y] = await Promise.all([app.inject(url), memory.inject(url)])
            expect(x.statusCode, url).toBe(200)
            expect(x.body, url).toBe(y.body)
            // a known state renders its balance; an unknown one only its hash
            if (/"account_state_after":\{"hash":"[^"]+","balance":"/.test(x.body)) withStates += 1
          }
        }
      }
      expect(withStates).toBeGreaterThan(chain.last - chain.first)
    } finally {
      await memory.close()
    }
  })
})
