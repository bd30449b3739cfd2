// The hand-written readers of toncenter's answers against their schemas, the reference: over recorded real answers,
// a generated chain's answers from the fake toncenter and every damage of them (a field removed, null, or of another
// type, at any depth), a reader either declines (and the schema decides) or gives exactly what the schema decodes,
// the same fields in the same order. Every undamaged answer is taken by its reader, not left to the schema.
import { readdirSync, readFileSync } from "node:fs"
import path from "node:path"
import { Either, Schema } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import {
  BlockHeaderJson,
  BlockTransactionsExtJson,
  Envelope,
  readAccountStates,
  readBlockHeader,
  readBlockTransactionsExt,
  readEnvelope,
  readShards,
  ShardsJson,
  V3AccountStatesJson
} from "../../../src/source/schemas.js"
import { fixturesDir } from "../../../tools/fake/fixtures.js"
import { type FakeToncenter, startFakeToncenter } from "../../../tools/fake/server.js"

interface Pair {
  readonly name: string
  readonly schema: Schema.Schema<any, any>
  readonly read: (u: unknown) => unknown
}
const pairs = {
  envelope: { name: "envelope", schema: Envelope, read: (u) => Either.getOrUndefined(readEnvelope(u) ?? Either.left(0)) },
  header: { name: "getBlockHeader", schema: BlockHeaderJson, read: readBlockHeader },
  transactions: { name: "getBlockTransactionsExt", schema: BlockTransactionsExtJson, read: readBlockTransactionsExt },
  shards: { name: "shards", schema: ShardsJson, read: readShards },
  states: { name: "accountStates", schema: V3AccountStatesJson, read: readAccountStates }
} satisfies Record<string, Pair>

/** Every value the answer could be damaged into: each field (at any depth) removed, null, or of another type. */
function* damaged(u: unknown): Generator<unknown> {
  const others = [null, 0, 1.5, -7, "x", "12", "", true, false, [], {}]
  if (Array.isArray(u)) {
    // the first and the last element stand for the rest
    const at = [...new Set([0, u.length - 1])].filter((i) => i >= 0)
    for (const i of at) {
      for (const d of damaged(u[i])) yield u.map((x, j) => (j === i ? d : x))
      yield u.filter((_, j) => j !== i)
    }
    return
  }
  if (typeof u !== "object" || u === null) return yield* others.filter((o) => o !== u)
  const o = u as Record<string, unknown>
  for (const k of Object.keys(o)) {
    const { [k]: _gone, ...rest } = o
    yield rest
    for (const d of damaged(o[k])) yield { ...o, [k]: d }
  }
  yield { ...o, unknown_field: 1 }
}

const agrees = (pair: Pair, u: unknown): "read" | "declined" => {
  const got = pair.read(u)
  const want = Schema.decodeUnknownEither(pair.schema)(u)
  if (got === undefined) return "declined"
  expect(Either.isRight(want), `${pair.name} accepted what its schema rejects: ${JSON.stringify(u).slice(0, 300)}`).toBe(true)
  if (Either.isRight(want)) {
    expect(got).toStrictEqual(want.right)
    expect(JSON.stringify(got)).toBe(JSON.stringify(want.right))
  }
  return "read"
}

/** The answer is read as is, and every damage of it is read alike or left to the schema; returns the count read. */
const checkAll = (pair: Pair, answer: unknown) => {
  expect(agrees(pair, answer), `${pair.name} declined an undamaged answer`).toBe("read")
  let read = 0
  let declined = 0
  for (const d of damaged(answer)) (agrees(pair, d) === "read" ? read++ : declined++)
  return { read, declined }
}

describe("toncenter answer readers against their schemas", { timeout: 180_000 }, () => {
  it("recorded real v2 answers and their envelopes", () => {
    const dir = path.join(fixturesDir(), "v2")
    const seen = new Set<string>()
    for (const file of readdirSync(dir).filter((f) => f.endsWith(".json"))) {
      const body: unknown = JSON.parse(readFileSync(path.join(dir, file), "utf8"))
      // some recordings are bare objects, not envelopes: those the schema takes, the reader must take too
      const verdict = agrees(pairs.envelope, body)
      if (Either.isRight(Schema.decodeUnknownEither(Envelope)(body))) expect(verdict, file).toBe("read")
      const result = (body as { result?: unknown }).result
      const pair = /getBlockHeader/.test(file)
        ? pairs.header
        : /getBlockTransactionsExt/.test(file)
          ? pairs.transactions
          : /_shards_/.test(file)
            ? pairs.shards
            : undefined
      if (pair === undefined) continue
      seen.add(pair.name)
      const { read, declined } = checkAll(pair, result)
      expect(read + declined).toBeGreaterThan(10)
    }
    expect([...seen].sort()).toEqual(["getBlockHeader", "getBlockTransactionsExt", "shards"])
    for (const d of damaged({ ok: false, error: "LITE_SERVER_NOTREADY", code: 500 })) agrees(pairs.envelope, d)
  })

  describe("a generated chain's answers", () => {
    let fake: FakeToncenter
    beforeAll(async () => {
      fake = await startFakeToncenter({
        chain: { kind: "generated", seed: 6, mcBlocks: 4, txPerBlock: 4, maxShards: 2, splitChance: 0.5, fixtures: false }
      })
    }, 300_000)
    afterAll(() => fake.stop())

    const get = async (p: string) => (await (await fetch(`${fake.url}${p}`)).json()) as { result?: unknown }

    it("headers, transaction pages, shard tops and account states", async () => {
      let counted = { read: 0, declined: 0 }
      const add = (c: { read: number; declined: number }) => {
        counted = { read: counted.read + c.read, declined: counted.declined + c.declined }
      }
      const accounts = new Set<string>()
      for (let s = fake.chain.first; s <= fake.chain.last; s++) {
        const mc = fake.chain.masterchain.get(s)!
        add(checkAll(pairs.shards, (await get(`/api/v2/shards?seqno=${s}`)).result))
        for (const b of [mc.block, ...mc.shardBlocks]) {
          const { workchain, shard, seqno, root_hash, file_hash } = b.record.id
          const q = `workchain=${workchain}&shard=${shard}&seqno=${seqno}&root_hash=${encodeURIComponent(root_hash)}&file_hash=${encodeURIComponent(file_hash)}`
          const header = await get(`/api/v2/getBlockHeader?${q}`)
          expect(agrees(pairs.envelope, header)).toBe("read")
          add(checkAll(pairs.header, header.result))
          const page = await get(`/api/v2/getBlockTransactionsExt?${q}&count=1024`)
          add(checkAll(pairs.transactions, page.result))
          for (const t of b.txs) accounts.add(t.account)
        }
      }
      const asked = [...accounts].slice(0, 20)
      expect(asked.length).toBeGreaterThan(1)
      const states = await get(`/api/v3/accountStates?${asked.map((a) => `address=${encodeURIComponent(a)}`).join("&")}`)
      add(checkAll(pairs.states, states))
      // both sides of the comparison were exercised: damage the readers take and damage they leave to the schema
      expect(counted.read).toBeGreaterThan(100)
      expect(counted.declined).toBeGreaterThan(100)
    })
  })
})
