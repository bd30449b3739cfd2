// Where a lone uncached request's wall time goes: the product's app (src/api/app.ts, response cache off) over native
// sessions on a store kept by `bench:ingest --store` (BENCH_STORE_DIR; a copy: the engine writes to it), listening on
// 127.0.0.1:BENCH_PORT (41210), asked BENCH_SINGLES (300) v2 or v3 pages (BENCH_ENDPOINT) of random masterchain blocks
// one after another, from this process, alternately by fetch and by node:http. Per request it stamps the HTTP hooks
// (request in, handler, answer sent, response finished) and each statement (submitted, returned: the table after its
// first FROM), and prints the median time of each step from the request's start, the median wall per client, the
// process's CPU per request (client included) and its split between the main thread, Node's other threads (libuv
// pool, V8) and the engine's. Numbers are printed, never asserted.
import { Agent, request } from "node:http"
import { loadavg } from "node:os"
import { buildApp } from "../src/api/app.js"
import type { ClickHouseHandle } from "../src/clickhouse/ClickHouse.js"
import { readClients } from "../src/store/readers.js"
import { ClickHouseTxStore, type ReadConnection } from "../src/store/Store.js"
import { threadStats } from "./lib/proc.js"
import { benchStore } from "./lib/store.js"

const { dir, stamp } = benchStore()
const port = Number(process.env.BENCH_PORT ?? 41210)
const singles = Number(process.env.BENCH_SINGLES ?? 300)
const endpoint = process.env.BENCH_ENDPOINT ?? "v3"
const median = (xs: ReadonlyArray<number>): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!

// CPU ms by thread class from /proc (clock ticks of 10 ms: meaningful summed over hundreds of requests)
const threadCpu = (): Record<"main" | "node" | "engine", number> => {
  const out = { main: 0, node: 0, engine: 0 }
  for (const [t, { comm, cpu }] of threadStats("self")) {
    out[t === String(process.pid) ? "main" : comm === "node" ? "node" : "engine"] += cpu * 1000
  }
  return out
}

let t0 = 0
let marks: Array<[string, number]> = []
const mark = (step: string): void => void marks.push([step, performance.now() - t0])
const stamped = (r: ReadConnection): ReadConnection => {
  const wrap =
    <A>(f: (sql: string) => Promise<A>) =>
    async (sql: string): Promise<A> => {
      const table = /FROM (\w+)/.exec(sql)?.[1] ?? "?"
      mark(`${table} submitted`)
      const a = await f(sql)
      mark(`${table} returned`)
      return a
    }
  return { jsonEachRow: wrap(r.jsonEachRow), text: wrap(r.text), bytes: wrap(r.bytes) }
}

const ch = { backend: "chdb", location: dir, database: process.env.CLICKHOUSE_DATABASE ?? "ton" } as ClickHouseHandle
const readers = readClients(ch, 4)
const app = buildApp({
  store: new ClickHouseTxStore(readers.clients.map(stamped)),
  config: { network: "mainnet", api: { keys: [], rateLimit: 0 }, logger: false, cacheBytes: 0 }
})
app.addHook("onRequest", async () => mark("http: request in"))
app.addHook("preHandler", async () => mark("http: handler"))
app.addHook("onSend", async () => mark("http: answer ready"))
app.addHook("onResponse", async () => mark("http: response written"))
await app.listen({ host: "127.0.0.1", port })
const base = `http://127.0.0.1:${port}`

let x = 7
const mcs = Array.from({ length: singles }, () => {
  x = (x * 1103515245 + 12345) % 2 ** 31
  return stamp.first + (x % (stamp.last - stamp.first + 1))
})
const paths: Array<string> = []
for (const seqno of mcs) {
  if (endpoint === "v3") {
    paths.push(`/api/v3/masterchainBlockShardState?seqno=${seqno}&limit=40`)
    continue
  }
  // v2: one basechain block with transactions of each masterchain block, as bench/api.ts picks it
  const res = await fetch(`${base}/api/v3/masterchainBlockShards?seqno=${seqno}`)
  const { blocks } = (await res.json()) as {
    blocks: Array<{ workchain: number; shard: string; seqno: number; tx_count: number }>
  }
  const pick = blocks.filter((b) => b.workchain === 0 && b.tx_count > 0)
  const b = pick[seqno % Math.max(1, pick.length)]
  if (b === undefined) continue
  const shard = BigInt.asIntN(64, BigInt(`0x${b.shard}`)).toString()
  paths.push(`/api/v2/getBlockTransactionsExt?workchain=0&shard=${shard}&seqno=${b.seqno}&count=40`)
}

const agent = new Agent({ keepAlive: true, maxSockets: 1 })
const clients: Record<string, (path: string) => Promise<number>> = {
  fetch: async (path) => {
    const res = await fetch(base + path)
    const body = await res.arrayBuffer()
    if (res.status !== 200) throw new Error(`${path}: ${res.status}`)
    return body.byteLength
  },
  "node:http": (path) =>
    new Promise((ok, fail) => {
      const req = request(base + path, { agent }, (res) => {
        let n = 0
        res.on("data", (d: Buffer) => (n += d.length))
        res.on("end", () => (res.statusCode === 200 ? ok(n) : fail(new Error(`${path}: ${res.statusCode}`))))
      })
      req.on("error", fail)
      req.end()
    })
}
// JIT, the marker's bitmap and the first statements of each kind
for (const p of paths.slice(0, 20)) await clients["node:http"]!(p)

const names = Object.keys(clients)
const runs = new Map(
  names.map((n) => [n, { wall: [] as Array<number>, steps: new Map<string, Array<number>>(), cpu: 0, body: 0 }])
)
const th0 = threadCpu()
for (const [i, path] of paths.entries()) {
  for (let k = 0; k < names.length; k++) {
    const name = names[(i + k) % names.length]!
    const run = runs.get(name)!
    marks = []
    const c0 = process.cpuUsage()
    t0 = performance.now()
    run.body += await clients[name]!(path)
    const wall = performance.now() - t0
    const c = process.cpuUsage(c0)
    run.cpu += (c.user + c.system) / 1000
    run.wall.push(wall)
    const seen = new Map<string, number>()
    for (const [step, at] of [...marks, ["client: body read", wall] as [string, number]]) {
      const n = (seen.get(step) ?? 0) + 1
      seen.set(step, n)
      const key = n === 1 ? step : `${step} (${n})`
      runs.get(name)!.steps.set(key, [...(run.steps.get(key) ?? []), at])
    }
  }
}
const th1 = threadCpu()
const requests = paths.length * names.length
console.log(
  `lone ${endpoint} requests: ${paths.length} per client, load ${loadavg()
    .map((l) => l.toFixed(2))
    .join(" ")}; ` +
    `CPU per request by thread (both clients): main ${((th1.main - th0.main) / requests).toFixed(2)} ms, ` +
    `Node's others ${((th1.node - th0.node) / requests).toFixed(2)} ms, engine ${((th1.engine - th0.engine) / requests).toFixed(2)} ms`
)
for (const [name, run] of runs) {
  console.log(
    `client ${name}: wall p50 ${median(run.wall).toFixed(2)} ms, process CPU ${(run.cpu / paths.length).toFixed(2)} ms ` +
      `per request, mean body ${(run.body / paths.length / 1024).toFixed(0)} KiB`
  )
  const steps = [...run.steps]
    .map(([step, ats]) => [step, median(ats), ats.length] as const)
    .sort((a, b) => a[1] - b[1])
  for (const [step, at, n] of steps) console.log(`  ${step.padEnd(34)} p50 at ${at.toFixed(2)} ms  (${n} requests)`)
}
await app.close()
await readers.close()
