import { describe, expect, it } from "vitest"
import { BIG_MC, appFor, bigBlockWorld } from "./world.js"

// Deterministic PRNG so a failure reproduces: mulberry32.
const rng = (seed: number) => () => {
  seed = (seed + 0x6d2b79f5) | 0
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296
}

/** Values no integer parameter accepts. */
const badInts = [
  "abc",
  "-",
  "+",
  "1.5",
  "1e3",
  "0x1f",
  "1_000",
  " 1",
  "1 ",
  "NaN",
  "Infinity",
  "-Infinity",
  "null",
  "true",
  "[]",
  "{}",
  "1;DROP TABLE transactions",
  "1' OR '1'='1",
  "1) UNION SELECT * FROM blocks --",
  "<script>alert(1)</script>",
  "%00",
  "１２３",
  "9".repeat(40),
  "-".repeat(5),
  "1,2",
  "\u0000",
  "${7*7}",
  "../../etc/passwd",
  "٣"
]
/** Values no hash parameter accepts. */
const badHashes = [
  "abc",
  "00",
  "0".repeat(63),
  "0".repeat(65),
  "z".repeat(64),
  "A".repeat(44),
  "=".repeat(44),
  "A".repeat(43) + "!",
  "' OR 1=1 --",
  "<img src=x>",
  "%2e%2e",
  "x".repeat(5000)
]

const enc = encodeURIComponent
const SHARD = "-9223372036854775808"

interface Case {
  readonly method: "GET" | "POST" | "PUT" | "DELETE" | "PATCH"
  readonly url: string
  readonly payload?: string
  readonly contentType?: string
}

const v2Cases = (r: () => number, seqno: number): Case[] => {
  const pick = <T>(xs: ReadonlyArray<T>): T => xs[Math.floor(r() * xs.length)]!
  const good: Record<string, string> = { workchain: "0", shard: SHARD, seqno: String(seqno) }
  const out: Case[] = []
  const url = (q: Record<string, string>) =>
    `/api/v2/getBlockTransactionsExt?${Object.entries(q)
      .map(([k, v]) => `${k}=${enc(v)}`)
      .join("&")}`
  for (let i = 0; i < 150; i++) {
    const q = { ...good }
    switch (i % 10) {
      case 0:
        q.workchain = pick(badInts)
        break
      case 1:
        q.shard = pick([...badInts, "0", "9223372036854775808", "-9223372036854775809"])
        break
      case 2:
        q.seqno = pick([...badInts, "-1", "4294967296"])
        break
      case 3:
        q.count = pick([...badInts, "0", "-5", "10001", "99999999999"])
        break
      case 4:
        q.after_lt = pick([...badInts, "-1", "9223372036854775808"])
        break
      case 5:
        q.after_hash = pick(badHashes)
        break
      case 6:
        q.root_hash = pick(badHashes)
        q.file_hash = pick(badHashes)
        break
      case 7:
        delete q[pick(["workchain", "shard", "seqno"])]
        break
      case 8:
        q.seqno = "1"
        q.workchain = pick(["5", "-2", "2147483647"])
        break // well-formed but absent: 404
      default:
        out.push({ method: "GET", url: `${url(q)}&seqno=${seqno}` })
        continue // repeated parameter
    }
    out.push({ method: "GET", url: url(q) })
  }
  for (const m of ["POST", "PUT", "DELETE", "PATCH"] as const) out.push({ method: m, url: url(good) })
  out.push({ method: "GET", url: "/api/v2/getBlockTransactionsExt" })
  out.push({ method: "GET", url: `/api/v2/shards?seqno=${enc(pick(badInts))}` })
  out.push({ method: "GET", url: "/api/v2/shards" })
  out.push({ method: "GET", url: "/api/v2/getBlockTransactionsEx" })
  out.push({ method: "GET", url: "/api/v2/" })
  out.push({ method: "GET", url: `/api/v2/getBlockTransactionsExt?${"a".repeat(3000)}=1` })
  return out
}

const rpcCases = (r: () => number, seqno: number): Case[] => {
  const pick = <T>(xs: ReadonlyArray<T>): T => xs[Math.floor(r() * xs.length)]!
  const bodies = [
    "",
    "{",
    "[]",
    "null",
    "42",
    '"x"',
    "{}",
    '{"method":1}',
    '{"method":null}',
    '{"method":"nope"}',
    '{"method":"shards","params":[]}',
    '{"method":"shards","params":"x"}',
    '{"method":"shards","params":{}}',
    '{"method":"shards","params":{"seqno":-1}}',
    '{"method":"shards","params":{"seqno":1.5}}',
    '{"method":"shards","params":{"seqno":{"$gt":0}}}',
    '{"method":"shards","params":{"seqno":99999999999999999999}}',
    '{"method":"shards","params":{"seqno":1}}',
    '{"method":"shards","params":{"seqno":1},"id":{"a":1}}',
    '{"method":"__proto__","params":{}}',
    '{"method":"constructor","params":{}}',
    '{"method":"toString"}',
    `{"method":"getBlockTransactionsExt","params":{"workchain":0,"shard":${SHARD},"seqno":${seqno},"count":0}}`,
    `{"method":"getBlockTransactionsExt","params":{"workchain":0,"shard":0,"seqno":${seqno}}}`,
    `{"method":"getBlockTransactionsExt","params":{"workchain":0,"shard":${SHARD},"seqno":${seqno},"after_hash":"zz"}}`,
    `{"method":"getBlockTransactionsExt","params":{"workchain":0,"shard":${SHARD},"seqno":${seqno},"evil":1}}`,
    `{"method":"getBlockTransactionsExt","params":{"workchain":"0; DROP","shard":${SHARD},"seqno":${seqno}}}`,
    `{"method":"shards","params":{"seqno":"1"},"pad":"${"x".repeat(70_000)}"}`
  ]
  const out: Case[] = bodies.map((payload) => ({
    method: "POST",
    url: "/api/v2/jsonRPC",
    payload,
    contentType: "application/json"
  }))
  for (let i = 0; i < 30; i++) {
    out.push({
      method: "POST",
      url: "/api/v2/jsonRPC",
      payload: `{"method":"shards","params":{"seqno":${JSON.stringify(pick(badInts))}},"id":${i}}`,
      contentType: "application/json"
    })
  }
  out.push({
    method: "POST",
    url: "/api/v2/jsonRPC",
    payload: "method=shards",
    contentType: "application/x-www-form-urlencoded"
  })
  out.push({ method: "POST", url: "/api/v2/jsonRPC", payload: "<xml/>", contentType: "text/xml" })
  return out
}

const v3Cases = (r: () => number): Case[] => {
  const pick = <T>(xs: ReadonlyArray<T>): T => xs[Math.floor(r() * xs.length)]!
  const out: Case[] = []
  const paths = [
    "/api/v3/masterchainBlockShardState",
    "/api/v3/transactionsByMasterchainBlock",
    "/api/v3/masterchainBlockShards"
  ]
  for (let i = 0; i < 150; i++) {
    const path = paths[i % 3]!
    const q: Record<string, string> = { seqno: String(BIG_MC) }
    switch (i % 6) {
      case 0:
        q.seqno = pick([...badInts, "-1", "4294967296"])
        break
      case 1:
        q.limit = pick([...badInts, "1001", "99999999999999999999"])
        break
      case 2:
        q.offset = pick([...badInts, "1000001"])
        break
      case 3:
        if (path.endsWith("Shards")) q.limit = "5000"
        else q.sort = pick(["up", "ascending", "1", "' OR 1=1", "<b>"])
        break
      case 4:
        delete q.seqno
        break
      default:
        q.seqno = pick(["1", "2", "0", "2147483647"])
        break // well-formed, not ingested: 404
    }
    out.push({
      method: "GET",
      url: `${path}?${Object.entries(q)
        .map(([k, v]) => `${k}=${enc(v)}`)
        .join("&")}`
    })
  }
  for (const m of ["POST", "PUT", "DELETE", "PATCH"] as const)
    out.push({ method: m, url: `${paths[0]}?seqno=${BIG_MC}` })
  out.push({ method: "GET", url: "/api/v3/masterchainBlock" })
  out.push({ method: "GET", url: "/api/v3/" })
  out.push({ method: "GET", url: `/api/v3/masterchainBlockShardState?seqno=${BIG_MC}&seqno=${BIG_MC}` })
  return out
}

describe("malformed requests", () => {
  const { store, shardBlock } = bigBlockWorld()
  const app = appFor(store)

  const seen = new Set<number>()
  const check = async (c: Case, flavor: "v2" | "v3") => {
    const res = await app.inject({
      method: c.method,
      url: c.url,
      ...(c.payload !== undefined ? { payload: c.payload } : {}),
      ...(c.contentType !== undefined ? { headers: { "content-type": c.contentType } } : {})
    })
    const where = `${c.method} ${c.url.slice(0, 200)} ${c.payload?.slice(0, 200) ?? ""} -> ${res.statusCode} ${res.body.slice(0, 300)}`
    expect(res.statusCode, where).toBeGreaterThanOrEqual(400)
    expect(res.statusCode, where).toBeLessThan(500)
    seen.add(res.statusCode)
    const body = res.json()
    if (flavor === "v3") {
      expect(Object.keys(body), where).toEqual(["error"])
      expect(typeof body.error === "string" && body.error.length > 0, where).toBe(true)
    } else {
      expect(body.ok, where).toBe(false)
      expect(body.code, where).toBe(res.statusCode)
      expect(typeof body.error === "string" && body.error.length > 0, where).toBe(true)
      const keys = Object.keys(body).filter((k) => k !== "id" && k !== "jsonrpc")
      expect(keys, where).toEqual(["ok", "error", "code"])
    }
  }

  it("answers every malformed v2 request with a 4xx in ton-http-api's error shape", async () => {
    const cases = [...v2Cases(rng(1), shardBlock.id.seqno), ...rpcCases(rng(2), shardBlock.id.seqno)]
    expect(cases.length).toBeGreaterThan(200)
    seen.clear()
    for (const c of cases) await check(c, "v2")
    expect([...seen].sort()).toEqual([404, 405, 413, 415, 422])
  })

  it("answers every malformed v3 request with a 4xx in ton-index-go's error shape", async () => {
    const cases = v3Cases(rng(3))
    expect(cases.length).toBeGreaterThan(150)
    seen.clear()
    for (const c of cases) await check(c, "v3")
    expect([...seen].sort()).toEqual([404, 405, 422])
  })
})
