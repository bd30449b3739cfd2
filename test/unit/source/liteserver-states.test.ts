/**
 * Real shard blocks read through the liteserver source (the fake liteserver serving each real block file inside a
 * small built masterchain) and served by the API: the v3 block carries the header fields the block holds, every
 * transaction's account states are filled exactly where toncenter's indexer knows them (the state an account was
 * left in at the end of a block, and the state a block found it in where the update holds it; hash-only in between),
 * and the address book marks an account bounceable by toncenter's rule on the code it was left with. Reading the
 * states costs no request: the same bundles with states off take as many requests. The getAccountState fallback
 * asks once per account the messages mention that no block reported, and refuses another account's state.
 */
import { Address, beginCell, Cell, loadShardAccount, storeAccount } from "@ton/core"
import { Effect, Exit, Scope } from "effect"
import fs from "node:fs"
import path from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { assembleBundle, pipelineDecode } from "../../../src/producer/assemble.js"
import { counterparts } from "../../../src/source/liteserver/accountLookup.js"
import { parseDirect } from "../../../src/source/liteserver/addresses.js"
import { makeLiteserverUpstream } from "../../../src/source/liteserver/Liteserver.js"
import type { RawMasterchainBundle } from "../../../src/source/Upstream.js"
import { accountStateOf } from "../../../src/ton/accountState.js"
import { extractBlock } from "../../../src/ton/block.js"
import { isBounceableByCode } from "../../../src/ton/v3.js"
import { toFriendly } from "../../../src/ton/address.js"
import { MemoryTxStore } from "../../../tools/fake/memoryStore.js"
import { realShardBlockChain } from "../../../tools/fake/liteserver/realBlocks.js"
import { startFakeLiteserver } from "../../../tools/fake/liteserver/server.js"
import { appFor } from "../api/world.js"
import { ok, readRealJson, REAL } from "../ton/support.js"

const SHARD_BLOCKS = [
  "mainnet__0_8000000000000000_30816553__tongo-block-1.boc",
  "mainnet__0_8000000000000000_40484416__tongo-block-2.boc",
  "mainnet__0_8000000000000000_40484438__tongo-block-3.boc",
  "mainnet__0_a000000000000000_54302208__tongo-block-6.boc",
  "mainnet__0_a000000000000000_54302203__tongo-block-7.boc",
  "mainnet__0_8000000000000000_34703989__ton-core-block.b64.txt",
  "testnet__0_a000000000000000_36993301__ton4j-boc-10.hex.txt",
  "testnet__0_2000000000000000_37057705__ton4j-boc-15.hex.txt",
  "localnet__0_8000000000000000_212538__ton4j-boc-17.hex.txt"
]

const readFile = (name: string): Buffer => {
  const raw = fs.readFileSync(path.join(REAL, "blocks", name))
  if (name.endsWith(".hex.txt")) return Buffer.from(raw.toString("utf8").trim(), "hex")
  if (name.endsWith(".b64.txt")) return Buffer.from(raw.toString("utf8").trim(), "base64")
  return raw
}

const MC = 1_000_001

/** The bundle of MC read by a fresh liteserver upstream, with the requests it took. */
const read = async (chainFile: Buffer, name: string, accountStates: "block" | "off") => {
  const lite = realShardBlockChain(chainFile, MC, name)
  const ls = await startFakeLiteserver({ chain: lite })
  const scope = await Effect.runPromise(Scope.make())
  try {
    const up = await Effect.runPromise(
      Scope.extend(
        makeLiteserverUpstream({ servers: parseDirect(ls.config)!, timeoutMs: 5_000, retries: 2, accountStates }),
        scope
      )
    )
    await Effect.runPromise(up.head)
    const before = up.requests()
    const bundle: RawMasterchainBundle = await Effect.runPromise(up.bundle(MC))
    return { bundle, requests: up.requests() - before, network: lite.chain.network }
  } finally {
    await Effect.runPromise(Scope.close(scope, Exit.void))
    await ls.stop()
  }
}

const totals = { book: 0, bounceable: 0, bounceableWithout: 0, txs: 0, afterKnown: 0, beforeKnown: 0 }

describe("real shard blocks through the liteserver source, served as v3", { timeout: 240_000 }, () => {
  afterAll(() => {
    console.log(
      `real blocks via liteserver: ${totals.txs} transactions, ${totals.afterKnown} after / ${totals.beforeKnown} before ` +
        `states with fields; address book ${totals.bounceable} of ${totals.book} bounceable ` +
        `(${totals.bounceableWithout} without states); 0 extra requests per masterchain block for states`
    )
  })

  for (const name of SHARD_BLOCKS) {
    it(`${name}`, async () => {
      const file = readFile(name)
      const x = ok(extractBlock(file))
      const h = x.header
      const withStates = await read(file, name, "block")
      const without = await read(file, name, "off")
      // the states come from the blocks already fetched
      expect(withStates.requests).toBe(without.requests)
      expect({ ...withStates.bundle, account_states: [], code_hashes: {} }).toEqual(without.bundle)
      expect(without.bundle.account_states).toEqual([])

      const { bundle } = assembleBundle(withStates.bundle, withStates.network, pipelineDecode)
      const testnet = withStates.network !== "mainnet"
      const app = appFor(
        new MemoryTxStore([
          {
            mc: bundle.mc_block,
            shardBlocks: bundle.shard_blocks,
            shardTops: bundle.shard_tops,
            transactions: bundle.transactions,
            accountStates: bundle.account_states,
            codeHashes: bundle.code_hashes
          }
        ]),
        { config: { network: testnet ? "testnet" : "mainnet" } }
      )

      // v3 blocks: the real block's header fields as the block holds them
      const blocks = (await app.inject({ url: `/api/v3/masterchainBlockShards?seqno=${MC}` })).json().blocks
      const shard = blocks.find((b: any) => b.workchain === 0)
      expect(shard).toMatchObject({
        seqno: h.seqno,
        root_hash: h.root_hash,
        rand_seed: h.rand_seed,
        created_by: h.created_by,
        master_ref_seqno: h.master_ref!.seqno,
        vert_seqno_incr: h.vert_seqno_incr
      })
      const mc = blocks.find((b: any) => b.workchain === -1)
      expect(mc.master_ref_seqno).toBeNull()
      expect(mc.rand_seed).toMatch(/^[A-Za-z0-9+/]{43}=$/)

      // v3 transactions: states with fields exactly at a block's ends
      const body = (await app.inject({ url: `/api/v3/transactionsByMasterchainBlock?seqno=${MC}&limit=1000` })).json()
      const txs: Array<any> = body.transactions
      expect(txs.length).toBe(x.transactions.length)
      const byAccount = new Map<string, Array<any>>()
      for (const t of [...txs].sort((a, b) => (BigInt(a.lt) < BigInt(b.lt) ? -1 : 1))) {
        byAccount.set(t.account, [...(byAccount.get(t.account) ?? []), t])
      }
      const heldBefore = new Set(x.states.before.map((s) => s.hash))
      for (const list of byAccount.values()) {
        list.forEach((t, i) => {
          const last = i === list.length - 1
          expect(t.account_state_after.account_status !== null).toBe(last)
          if (last) {
            expect(t.account_state_after.account_status).toBe(t.end_status)
            expect(t.account_state_after.balance).toMatch(/^\d+$/)
            expect(t.account_state_after.extra_currencies).not.toBeNull()
            expect(t.account_state_after.code_hash !== null).toBe(t.end_status === "active")
          } else {
            expect(t.account_state_after).toEqual({
              hash: t.account_state_after.hash,
              balance: null,
              extra_currencies: null,
              account_status: null,
              frozen_hash: null,
              data_hash: null,
              code_hash: null
            })
          }
          const knownBefore = i === 0 && heldBefore.has(t.account_state_before.hash)
          expect(t.account_state_before.account_status !== null).toBe(knownBefore)
          if (knownBefore) expect(t.account_state_before.account_status).toBe(t.orig_status)
        })
        totals.afterKnown += 1
        totals.beforeKnown += heldBefore.has(list[0].account_state_before.hash) ? 1 : 0
      }
      totals.txs += txs.length

      // address book: bounceable by toncenter's rule on the code each account was left with
      const codeOf = new Map<string, string | null>()
      for (const list of byAccount.values()) {
        const after = list[list.length - 1].account_state_after
        codeOf.set(list[0].account, after.code_hash)
      }
      const book: Record<string, { user_friendly: string }> = body.address_book
      for (const [raw, entry] of Object.entries(book)) {
        const bounceable = isBounceableByCode(codeOf.get(raw))
        expect(entry.user_friendly).toBe(toFriendly(raw, { bounceable, testnet }))
        totals.book += 1
        if (bounceable) totals.bounceable += 1
      }
      const plain = appFor(
        new MemoryTxStore([
          { mc: bundle.mc_block, shardBlocks: bundle.shard_blocks, shardTops: bundle.shard_tops, transactions: bundle.transactions }
        ]),
        { config: { network: testnet ? "testnet" : "mainnet" } }
      )
      const plainBook = (await plain.inject({ url: `/api/v3/transactionsByMasterchainBlock?seqno=${MC}&limit=1000` })).json()
        .address_book as Record<string, { user_friendly: string }>
      totals.bounceableWithout += Object.entries(plainBook).filter(
        ([raw, e]) => e.user_friendly === toFriendly(raw, { bounceable: true, testnet })
      ).length
    })
  }
})

describe("the getAccountState fallback for accounts the messages mention", { timeout: 240_000 }, () => {
  const NAME = "mainnet__0_a000000000000000_54302208__tongo-block-6.boc"
  const file = readFile(NAME)
  const x = ok(extractBlock(file))
  const changed = new Set(x.transactions.map((t) => t.account))
  const mentioned = [
    ...counterparts(
      x.transactions.map((t) => ({ ...t, block: { workchain: 0, shard: x.header.shard, seqno: x.header.seqno, root_hash: "", file_hash: "" } })),
      MC
    )
  ].filter((a) => !changed.has(a))
  // a real Account cell (tonutils-go's replay fixture), moved to the first mentioned address
  const shardAccount = Cell.fromBase64(
    readRealJson("tx-bocs/tonutils-go__transaction_replay_regression__mainnet-2txs-with-shard-accounts.json").accounts[0]
      .to_shard_account_boc_base64
  )
  const original = loadShardAccount(shardAccount.beginParse()).account!
  const movedTo = (raw: string) => beginCell().storeBit(true).store(storeAccount({ ...original, addr: Address.parse(raw) })).endCell()
  const codeHash = accountStateOf(shardAccount.refs[0]!, "0:X")!.code_hash

  const withAccounts = async (accounts: ReadonlyMap<string, Cell>) => {
    const ls = await startFakeLiteserver({ chain: realShardBlockChain(file, MC, NAME), accounts })
    const scope = await Effect.runPromise(Scope.make())
    const up = await Effect.runPromise(
      Scope.extend(
        makeLiteserverUpstream({
          servers: parseDirect(ls.config)!,
          timeoutMs: 5_000,
          retries: 1,
          retryBaseMs: 10,
          retryMaxMs: 20,
          accountStates: "block+lookup"
        }),
        scope
      )
    )
    await Effect.runPromise(up.head)
    return {
      up,
      stop: async () => {
        await Effect.runPromise(Scope.close(scope, Exit.void))
        await ls.stop()
      }
    }
  }

  it("asks each mentioned account once, at the masterchain block, and reports its code hash", async () => {
    expect(mentioned.length).toBeGreaterThan(1)
    expect(codeHash).not.toBeNull()
    const s = await withAccounts(new Map([[mentioned[0]!, movedTo(mentioned[0]!)]]))
    try {
      const before = s.up.requests()
      const bundle = await Effect.runPromise(s.up.bundle(MC))
      const requests = s.up.requests() - before
      console.log(
        `${NAME}: ${requests} liteserver requests for the masterchain block, ${s.up.accountLookups()} of them getAccountState ` +
          `(${mentioned.length} accounts mentioned but not changed)`
      )
      expect(s.up.accountLookups()).toBe(mentioned.length)
      expect(bundle.code_hashes[mentioned[0]!]).toBe(codeHash)
      for (const a of mentioned.slice(1)) expect(bundle.code_hashes[a]).toBeNull()
      expect(bundle.account_states.filter((st) => st.account === mentioned[0])).toHaveLength(1)
      // the block's own accounts keep their block states
      for (const a of changed) expect(bundle.code_hashes[a]).toBe(x.states.after.find((st) => st.account === a)!.code_hash)
      // known accounts are not asked again; the bundle's blocks are (the reader handed their bytes on with the first)
      const again = s.up.requests()
      await Effect.runPromise(s.up.bundle(MC))
      expect(s.up.requests() - again).toBe(1 + bundle.shard_blocks.length)
      expect(s.up.accountLookups()).toBe(mentioned.length)
    } finally {
      await s.stop()
    }
  })

  it("refuses a state that is another account's", async () => {
    const s = await withAccounts(new Map([[mentioned[0]!, shardAccount.refs[0]!]]))
    try {
      const r = await Effect.runPromise(Effect.either(s.up.bundle(MC)))
      expect(r._tag === "Left" && r.left.reason).toBe("malformed")
    } finally {
      await s.stop()
    }
  })
})
