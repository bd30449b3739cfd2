/**
 * The OpenAPI document against real answers: every route's documented response schema (as served at
 * /api/openapi.json) is compiled with a JSON Schema validator and checked against what the app answers over the
 * bundled chain (every recorded real transaction, what the quick start ingests) and against toncenter's own recorded
 * v3 answers; error answers against their status's schema; documented parameter constraints against the handlers;
 * and the docs page's default request, as the page computes it, against an app holding the bundled chain.
 */
import fs from "node:fs"
import path from "node:path"
import { Ajv2020 } from "ajv/dist/2020.js"
import { describe, expect, it } from "vitest"
import { DEFAULT_REQUEST_JS } from "../../../src/api/openapi.js"
import { chainStats } from "../../../tools/fake/ChainData.js"
import { bundledChainWorld } from "./bundledChain.js"
import { REAL_FIXTURES } from "./records.js"
import { appFor } from "./world.js"

const ajv = new Ajv2020({ strict: false, allErrors: true })
const { chain, store } = bundledChainWorld()
const app = appFor(store)

type Doc = { paths: Record<string, Record<string, any>> }
const openapi = async (): Promise<Doc> => (await app.inject("/api/openapi.json")).json()

const validators = new Map<string, ReturnType<typeof ajv.compile>>()
const responseSchema = (doc: Doc, route: string, method: string, status: number) => {
  const responses = doc.paths[route]?.[method]?.responses ?? {}
  const entry = responses[String(status)] ?? responses[`${String(status)[0]}XX`]
  if (entry === undefined) throw new Error(`${method.toUpperCase()} ${route}: status ${status} is not documented`)
  return entry.content["application/json"].schema
}

/** Asserts that an answer conforms to the schema the document gives for its route and status. */
const conforms = (doc: Doc, route: string, method: string, res: { statusCode: number; body: string }) => {
  const key = `${method} ${route} ${res.statusCode}`
  let validate = validators.get(key)
  if (validate === undefined) {
    validate = ajv.compile(responseSchema(doc, route, method, res.statusCode))
    validators.set(key, validate)
  }
  const ok = validate(JSON.parse(res.body))
  expect(ok, `${key}: ${ajv.errorsText(validate.errors)} in ${res.body.slice(0, 300)}`).toBe(true)
}

const SEQNOS = Array.from({ length: chain.last - chain.first + 1 }, (_, i) => chain.first + i)

describe("answers over the bundled chain conform to the documented response schemas", () => {
  it("v3 transactions of every masterchain block, with and without the address book, both orders", async () => {
    const doc = await openapi()
    let txs = 0
    for (const route of ["/api/v3/masterchainBlockShardState", "/api/v3/transactionsByMasterchainBlock"]) {
      for (const seqno of SEQNOS) {
        for (const extra of ["", "&sort=asc", "&x_no_address_book=1", "&limit=3&offset=1"]) {
          const res = await app.inject(`${route}?seqno=${seqno}${extra}`)
          expect(res.statusCode).toBe(200)
          conforms(doc, route, "get", res)
          txs += res.json().transactions.length
        }
      }
    }
    expect(txs).toBeGreaterThan(500)
  })

  it("v2 transactions of every block, v2 shards and v3 blocks of every masterchain block, and JSON-RPC", async () => {
    const doc = await openapi()
    let txs = 0
    for (const seqno of SEQNOS) {
      const mc = chain.masterchain.get(seqno)!
      for (const b of [mc.block, ...mc.shardBlocks]) {
        const { workchain, shard, seqno: s } = b.record.id
        for (const count of [10000, 2]) {
          const res = await app.inject(
            `/api/v2/getBlockTransactionsExt?workchain=${workchain}&shard=${shard}&seqno=${s}&count=${count}`
          )
          expect(res.statusCode).toBe(200)
          conforms(doc, "/api/v2/getBlockTransactionsExt", "get", res)
          if (count === 10000) txs += res.json().result.transactions.length
        }
        const rpc = await app.inject({
          method: "POST",
          url: "/api/v2/jsonRPC",
          headers: { "content-type": "application/json" },
          payload: JSON.stringify({
            jsonrpc: "2.0",
            id: s,
            method: "getBlockTransactionsExt",
            params: { workchain, shard, seqno: s }
          })
        })
        expect(rpc.statusCode).toBe(200)
        conforms(doc, "/api/v2/jsonRPC", "post", rpc)
      }
      for (const [route, method] of [
        [`/api/v2/shards?seqno=${seqno}`, "/api/v2/shards"],
        [`/api/v3/masterchainBlockShards?seqno=${seqno}`, "/api/v3/masterchainBlockShards"]
      ] as const) {
        const res = await app.inject(route)
        expect(res.statusCode).toBe(200)
        conforms(doc, method, "get", res)
      }
      const rpc = await app.inject({
        method: "POST",
        url: "/api/v2/jsonRPC",
        headers: { "content-type": "application/json" },
        payload: JSON.stringify({ method: "shards", params: { seqno } })
      })
      conforms(doc, "/api/v2/jsonRPC", "post", rpc)
    }
    expect(txs).toBe(chainStats(chain).txs)
    expect(txs).toBeGreaterThan(500)
  })

  it("error answers of every route, in the shape their status documents", async () => {
    const doc = await openapi()
    const cases: Array<[string, string, string, string?]> = [
      ["get", "/api/v2/getBlockTransactionsExt", "?workchain=0&shard=1&seqno=5"],
      ["get", "/api/v2/getBlockTransactionsExt", "?workchain=x&shard=1&seqno=5"],
      ["get", "/api/v2/getBlockTransactionsExt", "?workchain=0&workchain=1&shard=1&seqno=5"],
      ["get", "/api/v2/shards", "?seqno=1"],
      ["get", "/api/v2/shards", "?seqno=-1"],
      ["post", "/api/v2/jsonRPC", "", '{"method":"shards","params":{"seqno":1},"id":3}'],
      ["post", "/api/v2/jsonRPC", "", '{"method":"nope"}'],
      ["post", "/api/v2/jsonRPC", "", "[]"],
      ["post", "/api/v2/jsonRPC", "", "{"],
      ["get", "/api/v3/masterchainBlockShardState", "?seqno=1"],
      ["get", "/api/v3/masterchainBlockShardState", "?seqno=1&sort=up"],
      ["get", "/api/v3/transactionsByMasterchainBlock", "?limit=5"],
      ["get", "/api/v3/masterchainBlockShards", "?seqno=1"],
      ["get", "/api/v3/masterchainBlockShards", "?seqno=1&limit=1001"]
    ]
    for (const [method, route, query, payload] of cases) {
      const res = await app.inject({
        method: method.toUpperCase() as "GET" | "POST",
        url: route + query,
        ...(payload === undefined ? {} : { payload, headers: { "content-type": "application/json" } })
      })
      expect(res.statusCode, `${route}${query} ${payload ?? ""}`).toBeGreaterThanOrEqual(400)
      expect(res.statusCode).toBeLessThan(500)
      conforms(doc, route, method, res)
    }
  })
})

describe("toncenter's own recorded v3 answers conform to the documented schemas", () => {
  const read = (rel: string): any => JSON.parse(fs.readFileSync(path.join(REAL_FIXTURES, rel), "utf8"))

  it("ton-index-go transactions (traces of mc 52372896 and a testnet transaction) fit the Transaction schema", async () => {
    const doc = await openapi()
    const body = responseSchema(doc, "/api/v3/transactionsByMasterchainBlock", "get", 200)
    const validate = ajv.compile(body.properties.transactions.items)
    const traces = read("v3/ton-org-docs__cookbook-traces__v3_traces__mc-52372896.json")
    const recorded = [
      ...Object.values(traces.traces[0].transactions),
      ...read("v3/axelar-amplifier__v3_transactions__testnet_lt-36582626000003__ext-out-msg.json").transactions
    ]
    expect(recorded.length).toBeGreaterThan(5)
    for (const tx of recorded) expect(validate(tx), ajv.errorsText(validate.errors)).toBe(true)
  })
})

describe("the documented parameters", () => {
  it("state the types, ranges, patterns and enums the handlers enforce", async () => {
    const doc = await openapi()
    const params = (route: string) => Object.fromEntries(doc.paths[route]!.get.parameters.map((p: any) => [p.name, p]))
    const v2 = params("/api/v2/getBlockTransactionsExt")
    expect(v2.seqno.schema).toMatchObject({
      type: "integer",
      minimum: 0,
      maximum: 2147483647
    })
    expect(v2.workchain.schema).toMatchObject({
      type: "integer",
      minimum: -2147483648,
      maximum: 2147483647
    })
    expect(v2.count.schema).toMatchObject({
      type: "integer",
      minimum: 1,
      maximum: 10000
    })
    expect(v2.root_hash.schema.pattern).toBeDefined()
    const v3 = params("/api/v3/masterchainBlockShardState")
    expect(v3.sort.schema.anyOf[0].enum).toEqual(["asc", "desc"])
    expect(v3.limit.schema).toMatchObject({ type: "integer", maximum: 1000 })
    // every bound documented is the handler's: one past it is refused, the bound itself is not
    const at = async (url: string) => (await app.inject(url)).statusCode
    expect(await at(`/api/v3/masterchainBlockShardState?seqno=${chain.first}&limit=1000`)).toBe(200)
    expect(await at(`/api/v3/masterchainBlockShardState?seqno=${chain.first}&limit=1001`)).toBe(422)
    expect(await at(`/api/v3/masterchainBlockShardState?seqno=${chain.first}&sort=sideways`)).toBe(422)
    expect(await at("/api/v2/shards?seqno=2147483648")).toBe(422)
    for (const route of Object.keys(doc.paths)) {
      for (const op of Object.values(doc.paths[route]!)) {
        for (const p of op.parameters) {
          expect(p.schema.type ?? p.schema.anyOf?.[0].type, `${route} ${p.name}`).toBeDefined()
        }
      }
    }
  })
})

describe("the docs page's default requests", () => {
  const defaultRequest = new Function(`${DEFAULT_REQUEST_JS}\nreturn defaultRequest`)() as (op: unknown) => {
    query: Record<string, string>
    body: string | undefined
  }

  it("answer 200, with transactions, against an app holding the bundled chain", async () => {
    const doc = await openapi()
    const sent: string[] = []
    for (const [route, ops] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(ops)) {
        const { query, body } = defaultRequest(op)
        const q = new URLSearchParams(query).toString()
        const url = route + (q === "" ? "" : `?${q}`)
        const res = await app.inject({
          method: method.toUpperCase() as "GET" | "POST",
          url,
          ...(body === undefined
            ? {}
            : {
                payload: body,
                headers: { "content-type": "application/json" }
              })
        })
        expect(res.statusCode, `${method} ${url} ${body ?? ""} -> ${res.body.slice(0, 200)}`).toBe(200)
        const json = res.json()
        if (route.startsWith("/api/v3/") && route !== "/api/v3/masterchainBlockShards") {
          expect(json.transactions.length).toBeGreaterThan(0)
        }
        if (route === "/api/v2/getBlockTransactionsExt") expect(json.result.transactions.length).toBeGreaterThan(0)
        sent.push(`${method} ${url}`)
      }
    }
    expect(sent).toHaveLength(6)
    // the examples come from the store: the newest masterchain block holding transactions, not a fixed number
    const withTxs = SEQNOS.filter((s) => {
      const mc = chain.masterchain.get(s)!
      return [mc.block, ...mc.shardBlocks].some((b) => b.txs.length > 0)
    })
    expect(sent).toContain(`get /api/v3/masterchainBlockShardState?seqno=${Math.max(...withTxs)}`)
  })

  it("are empty, not wrong, while the store holds nothing", async () => {
    const empty = appFor(new (await import("../../../tools/fake/memoryStore.js")).MemoryTxStore())
    const doc = (await empty.inject("/api/openapi.json")).json() as Doc
    const op = doc.paths["/api/v3/masterchainBlockShardState"]!.get
    expect(defaultRequest(op).query).toEqual({})
  })
})
