import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { describe, expect, it } from "vitest"
import { flattenBundle, flattenBundles, INSERT_ORDER, MC_KEYED_TABLES, UnstorableRecordError } from "../../../src/flatten/index.js"
import { StateHistory } from "../../../src/flatten/bundle.js"
import { embeddedStateJson } from "../../../src/store/pages.js"
import { realBundle, syntheticBundle } from "../store/records.js"

const golden = (name: string, actual: unknown) => {
  const path = `${import.meta.dirname}/golden/${name}.json`
  const actualPath = `${import.meta.dirname}/golden/${name}.actual.json`
  const text = `${JSON.stringify(actual, null, 2)}\n`
  if (!existsSync(path) || readFileSync(path, "utf8") !== text) {
    writeFileSync(actualPath, text)
    expect.fail(`${path} differs from the flattened rows; see ${actualPath}`)
  }
  rmSync(actualPath, { force: true })
}

describe("flattenBundle", () => {
  it("writes the completion marker strictly last and covers every table", () => {
    expect(INSERT_ORDER.at(-1)).toBe("mc_blocks_done")
    expect(new Set(INSERT_ORDER).size).toBe(INSERT_ORDER.length)
    expect([...INSERT_ORDER].sort()).toEqual(Object.keys(flattenBundle(syntheticBundle(100))).sort())
    for (const { table } of MC_KEYED_TABLES) expect(INSERT_ORDER).toContain(table)
  })

  it("writes the anchor table before every other masterchain-keyed table, and every bundle has anchor rows", () => {
    const [anchor, ...rest] = MC_KEYED_TABLES
    for (const { table } of rest) expect(INSERT_ORDER.indexOf(anchor!.table)).toBeLessThan(INSERT_ORDER.indexOf(table))
    const empty = { ...syntheticBundle(5), shard_blocks: [], shard_tops: [], transactions: [] }
    expect(flattenBundle(empty)[anchor!.table].length).toBeGreaterThan(0)
  })

  it("emits one row per transaction, per message side, per block, and one marker", () => {
    const b = syntheticBundle(100)
    const r = flattenBundle(b)
    expect(r.transactions).toHaveLength(b.transactions.length)
    const sides = b.transactions.reduce((n, t) => n + (t.in_msg === null ? 0 : 1) + t.out_msgs.length, 0)
    expect(r.messages).toHaveLength(sides)
    expect(r.blocks.map((x) => x.seqno)).toEqual([b.mc_block.id.seqno, ...b.shard_blocks.map((s) => s.id.seqno)])
    expect(r.mc_blocks_done).toEqual([{ mc_seqno: 100, block_count: 4, tx_count: b.transactions.length }])
  })

  it("maps committed blocks and shard tops, keeping the tops' order and the unchanged top", () => {
    const b = syntheticBundle(100)
    const rows = flattenBundle(b).mc_shard_blocks
    expect(rows).toHaveLength(1 + b.shard_blocks.length + 1)
    const tops = rows.filter((x) => x.shard_top_index !== null).sort((x, y) => x.shard_top_index! - y.shard_top_index!)
    expect(tops.map((x) => [x.shard, x.seqno])).toEqual(b.shard_tops.map((t) => [t.shard, t.seqno]))
    expect(tops.map((x) => x.committed)).toEqual([true, false, true])
    expect(rows.find((x) => x.workchain === -1)).toMatchObject({ committed: true, shard_top_index: null })
  })

  it("stores each body and init state once per batch", () => {
    const b = syntheticBundle(100)
    const r = flattenBundle(b)
    const hashes = r.message_contents.map((c) => c.hash)
    expect(new Set(hashes).size).toBe(hashes.length)
    const referenced = new Set(r.messages.flatMap((m) => (m.init_state_hash === null ? [m.body_hash] : [m.body_hash, m.init_state_hash])))
    expect(new Set(hashes)).toEqual(referenced)
  })

  it("keeps the known state when a hash-only row for the same hash arrives", () => {
    const b = syntheticBundle(100)
    const known = b.account_states.find((s) => s.balance !== null)!
    const bare = { ...known, balance: null, extra_currencies: null, account_status: null, data_hash: null, code_hash: null, frozen_hash: null }
    const rows = flattenBundle({ ...b, account_states: [known, bare] }).account_states
    expect(rows).toHaveLength(1)
    expect(rows[0]).toMatchObject({ hash: known.hash, balance: known.balance, known: 1 })
  })

  it("marks a state with any field known (what account_lookups_kv's view copies), a hash-only one not", () => {
    const b = syntheticBundle(100)
    const known = b.account_states.find((s) => s.balance !== null)!
    const bare = { ...known, balance: null, extra_currencies: null, account_status: null, data_hash: null, code_hash: null, frozen_hash: null }
    // a state with only a frozen hash is a state with a field: known
    const frozenOnly = { ...bare, hash: "F".repeat(43) + "=", frozen_hash: known.hash }
    for (const states of [[known, bare], [bare, known]]) {
      const rows = flattenBundle({ ...b, account_states: [...states, frozenOnly] })
      expect(rows.account_states.filter((r) => r.known === 1).map((r) => r.hash).sort()).toEqual([known.hash, frozenOnly.hash].sort())
    }
    expect(flattenBundle({ ...b, account_states: [bare] }).account_states[0]!.known).toBe(0)
    // across a batch too: a later bundle's hash-only row keeps the earlier known one
    const later = { ...syntheticBundle(101), account_states: [bare] }
    const batch = flattenBundles([{ ...b, account_states: [known] }, later])
    expect(batch.account_states.filter((r) => r.hash === known.hash)).toEqual([expect.objectContaining({ hash: known.hash, balance: known.balance, known: 1 })])
  })

  it("flattens a batch with a redelivered bundle exactly like the batch without it", () => {
    const a = syntheticBundle(100)
    const b = syntheticBundle(101)
    expect(flattenBundles([a, b, a])).toEqual(flattenBundles([a, b]))
    const both = flattenBundles([a, b])
    expect(both.transactions).toHaveLength(a.transactions.length + b.transactions.length)
    // The shared empty body of the two ext-in messages is written once for the whole batch.
    expect(both.message_contents.length).toBeLessThan(flattenBundle(a).message_contents.length * 2)
  })

  it("rejects a message whose value and extra currencies disagree on being null", () => {
    const b = syntheticBundle(100)
    const tx = b.transactions.find((t) => t.in_msg?.type === "int")!
    const broken = { ...tx, in_msg: { ...tx.in_msg!, value_extra_currencies: null } }
    expect(() => flattenBundle({ ...b, transactions: [broken] })).toThrow(UnstorableRecordError)
  })

  it("flattens the real mainnet sample into the committed rows", () => {
    golden("real-bundle.rows", flattenBundle(realBundle()))
  })

  it("with the key-value page rows on, keeps in tx_pages only the pieces of blocks without a v2 row, whole", () => {
    for (const b of [realBundle(), syntheticBundle(100)]) {
      const all = flattenBundle(b)
      const kv = flattenBundle(b, undefined, { pageKv: true })
      // every block fits its v2 row: no piece kept; every other table's rows unchanged
      expect(kv.tx_pages).toEqual([])
      expect({ ...kv, tx_pages: all.tx_pages }).toEqual(all)
    }
    // a transaction naming an account of another workchain: its block gets no v2 row, and all of its pieces stay
    const b = syntheticBundle(101)
    const i = b.transactions.findIndex((t) => t.block.workchain === 0)
    const odd = b.transactions[i]!
    const moved = { ...odd, account: `-1:${odd.account.slice(odd.account.indexOf(":") + 1)}` }
    const kv = flattenBundle({ ...b, transactions: b.transactions.map((t, k) => (k === i ? moved : t)) }, undefined, {
      pageKv: true
    })
    const sameBlock = (t: { block: { workchain: number; shard: string; seqno: number } }) =>
      t.block.workchain === odd.block.workchain &&
      t.block.shard === odd.block.shard &&
      t.block.seqno === odd.block.seqno
    expect(kv.tx_pages.map((p) => p.lt).sort()).toEqual(
      b.transactions
        .filter(sameBlock)
        .map((t) => t.lt)
        .sort()
    )
    expect(kv.tx_pages.length).toBeGreaterThan(0)
    expect(kv.v2_pages.length).toBe(kv.blocks.length - 1)
    expect(kv.v3_pages[0]!.lines.length).toBe(b.transactions.length)
    // flattenBundles passes the option on
    expect(flattenBundles([b], { pageKv: true }).tx_pages).toEqual([])
  })
})

describe("v3_pages rows with the known states embedded", () => {
  const fields = (row: { lines: Array<string> }) => row.lines.flatMap((l) => l.split("\t").slice(0, 2))
  const hashOf = (f: string) => (f.startsWith("{") ? (JSON.parse(f) as { hash: string }).hash : f)

  it("embed each known state of the bundle as the read path renders it, and keep the hash of a hash-only one", () => {
    const b = syntheticBundle(300)
    const [row] = flattenBundle(b).v3_pages
    const known = new Map(b.account_states.filter((s) => s.balance !== null).map((s) => [s.hash, s]))
    const all = fields(row!)
    expect(all.filter((f) => f.startsWith("{"))).toHaveLength(b.transactions.length)
    for (const f of all) {
      const s = known.get(hashOf(f))
      expect(f).toBe(s === undefined ? hashOf(f) : embeddedStateJson(s))
    }
  })

  it("embed a state an earlier bundle brought when it is kept, and keep at most the bound", () => {
    const first = syntheticBundle(301)
    const earlier = first.account_states.filter((s) => s.balance !== null)
    const second = syntheticBundle(302)
    const transactions = second.transactions.map((t, i) =>
      i < 3 ? { ...t, account_state_hash_before: earlier[i]!.hash } : t
    )
    const later = { ...second, transactions }
    const embeddedOf = (history?: StateHistory) => {
      const rows = flattenBundles([first, later], history === undefined ? {} : { earlierStates: history })
      const row = rows.v3_pages.find((r) => r.mc_block_seqno === 302)!
      return earlier.slice(0, 3).map((s) => fields(row).includes(embeddedStateJson(s)))
    }
    expect(embeddedOf()).toEqual([false, false, false])
    expect(embeddedOf(new StateHistory(1000))).toEqual([true, true, true])
    // kept only the newest one: the bundle's own later states pushed the others out
    const one = new StateHistory(1)
    expect(embeddedOf(one)).toEqual([false, false, false])
    expect(one.size).toBe(1)
  })
})
