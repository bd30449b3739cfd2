// Where a lone uncached v3 page's wall time goes through the product's runnable (the file `npm run api` starts of
// BENCH_PROJECT_DIR, default this checkout, built; API_CACHE_BYTES=0) over a copy of a store kept by
// `bench:ingest --store` (BENCH_STORE_DIR), one connection, BENCH_SINGLES (300) pages of random masterchain blocks
// (limit 40, newest first, with the address book) one after another, alternately from a raw keep-alive socket (the
// request's bytes written, the answer's Content-Length counted) and from fetch (as bench/api.ts's one-connection
// figure is taken). The runnable loads bench/lib/loneStamps.mjs (a bench-only preload: nothing in the product), which
// stamps the steps on the monotonic clock this process reads too. Prints per client the median of each step from
// the previous one and of the wall, the engine's own elapsed time per statement, and the runnable's CPU per request
// by thread class (main, Node's other threads, the engine's). Numbers are printed, never asserted.
//   BENCH_STORE_DIR=<copy> [BENCH_PROJECT_DIR=<tree>] [BENCH_SINGLES=300] [BENCH_PORT=41500]
//   [BENCH_API_NODE_ARGS="..."] [BENCH_API_ENV="K=V ..."] nice -n 5 npx tsx bench/loneBreakdown.ts
import { existsSync, readFileSync, rmSync } from "node:fs"
import { loadavg, tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { threadStats } from "./lib/proc.js"
import { apiEntry, benchApiNodeArgs, startApiRunnable } from "./lib/runnable.js"
import { socketClient } from "./lib/socketClient.js"
import { benchStore } from "./lib/store.js"

const { dir, stamp } = benchStore()
const project = resolve(process.env.BENCH_PROJECT_DIR ?? join(import.meta.dirname, ".."))
const port = Number(process.env.BENCH_PORT ?? 41500)
const singles = Number(process.env.BENCH_SINGLES ?? 300)
const stampsFile = join(tmpdir(), `lone-stamps-${process.pid}.jsonl`)
const now = (): number => Number(process.hrtime.bigint()) / 1e6
const median = (xs: ReadonlyArray<number>): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!
const extraEnv = Object.fromEntries(
  (process.env.BENCH_API_ENV ?? "")
    .split(" ")
    .filter((kv) => kv.includes("="))
    .map((kv) => [kv.slice(0, kv.indexOf("=")), kv.slice(kv.indexOf("=") + 1)])
)

const api = await startApiRunnable({
  project,
  dataDir: dir,
  port,
  nodeArgs: ["--import", join(import.meta.dirname, "lib", "loneStamps.mjs"), ...benchApiNodeArgs()],
  entry: apiEntry(project),
  env: { API_CACHE_BYTES: "0", LONE_STAMPS_FILE: stampsFile, ...extraEnv }
})
const base = `http://127.0.0.1:${port}`

let x = 7
const paths = Array.from({ length: singles }, () => {
  x = (x * 1103515245 + 12345) % 2 ** 31
  return `/api/v3/masterchainBlockShardState?seqno=${stamp.first + (x % (stamp.last - stamp.first + 1))}&limit=40`
})

const socket = await socketClient(port)
const clients: Record<string, (path: string) => Promise<number>> = {
  socket: socket.get,
  fetch: async (path) => {
    const res = await fetch(base + path)
    const body = await res.arrayBuffer()
    if (res.status !== 200) throw new Error(`${path}: ${res.status}`)
    return body.byteLength
  }
}

const byName = new Map<string, number>()
const threadCpu = (sign = 0): Record<"main" | "node" | "engine", number> => {
  const out = { main: 0, node: 0, engine: 0 }
  for (const [t, { comm, cpu }] of threadStats(api.pid)) {
    out[t === String(api.pid) ? "main" : comm === "node" ? "node" : "engine"] += cpu * 1000
    const name = t === String(api.pid) ? "main" : comm
    byName.set(name, (byName.get(name) ?? 0) + sign * cpu * 1000)
  }
  return out
}
const dump = async (): Promise<Array<Record<string, unknown>>> => {
  rmSync(stampsFile, { force: true })
  api.signal("SIGUSR2")
  for (let i = 0; i < 200 && !existsSync(stampsFile); i++) await new Promise((r) => setTimeout(r, 10))
  await new Promise((r) => setTimeout(r, 50))
  return readFileSync(stampsFile, "utf8")
    .split("\n")
    .filter((l) => l.length > 0)
    .map((l) => JSON.parse(l) as Record<string, unknown>)
}

for (const p of paths.slice(0, 20)) await clients.socket!(p)
await dump()
const load0 = loadavg()[0]!
const sent: Array<{ client: string; send: number; last: number }> = []
const names = Object.keys(clients)
const cpu0 = threadCpu(-1)
for (const [i, path] of paths.entries()) {
  for (let k = 0; k < names.length; k++) {
    const name = names[(i + k) % names.length]!
    const send = now()
    await clients[name]!(path)
    sent.push({ client: name, send, last: now() })
  }
}
const cpu1 = threadCpu(1)
const recs = await dump()
if (recs.length !== sent.length) throw new Error(`${recs.length} stamped requests for ${sent.length} sent`)

interface Stmt {
  table: string
  call: number
  returned: number
  answered: number
  elapsed: number
  sync?: boolean
}
for (const name of names) {
  const steps = new Map<string, Array<number>>()
  const add = (k: string, v: number): void => void steps.set(k, [...(steps.get(k) ?? []), v])
  let shape = ""
  sent.forEach((s, i) => {
    if (s.client !== name) return
    const r = recs[i] as { request: number; endCall: number; endReturned: number; finish: number; statements: Array<Stmt> }
    shape = r.statements.map((t) => t.table).join(", ")
    add("client send -> request event (kernel, Node's HTTP parser)", r.request - s.send)
    let prev = r.request
    r.statements.forEach((t, j) => {
      const n = `${j + 1} ${t.table}`
      add(`${j === 0 ? "request event" : "previous answer"} -> ${n} call (route/store JS)`, t.call - prev)
      if (t.sync === true) add(`${n}: on the main thread, call -> answer`, t.answered - t.call)
      else {
        add(`${n}: the binding's call held the thread`, t.returned - t.call)
        add(`${n}: return -> answer on the main thread`, t.answered - t.returned)
        add(`${n}:   of it the engine's own elapsed`, t.elapsed)
        add(`${n}:   call -> answer minus the engine's elapsed (hops)`, t.answered - t.call - t.elapsed)
      }
      prev = t.answered
    })
    add("last answer -> reply's end call (parse, book, assembly, hooks)", r.endCall - prev)
    add("reply's end call (socket write)", r.endReturned - r.endCall)
    add("end returned -> client's last byte", s.last - r.endReturned)
    add("wall (client send -> last byte)", s.last - s.send)
  })
  console.log(`client ${name}: ${singles} lone pages (statements: ${shape}), ms`)
  const mean = (xs: ReadonlyArray<number>): number => xs.reduce((a, b) => a + b, 0) / xs.length
  const p90 = (xs: ReadonlyArray<number>): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length * 0.9)]!
  console.log(`  ${"step".padEnd(68)} p50      mean     p90`)
  for (const [k, v] of steps) {
    console.log(`  ${k.padEnd(68)} ${median(v).toFixed(3).padStart(6)}  ${mean(v).toFixed(3).padStart(6)}  ${p90(v).toFixed(3).padStart(6)}`)
  }
}
const n = sent.length
console.log(
  `load ${load0.toFixed(2)} -> ${loadavg()[0]!.toFixed(2)}; runnable CPU per request: main ${((cpu1.main - cpu0.main) / n).toFixed(2)} ms, ` +
    `Node's others ${((cpu1.node - cpu0.node) / n).toFixed(2)} ms, engine ${((cpu1.engine - cpu0.engine) / n).toFixed(2)} ms`
)
console.log(
  `  by thread name, ms per request: ${[...byName]
    .filter(([, v]) => v > 0)
    .sort((a, b) => b[1] - a[1])
    .map(([k, v]) => `${k} ${(v / n).toFixed(2)}`)
    .join(", ")}`
)
socket.close()
await api.stop()
rmSync(stampsFile, { force: true })
