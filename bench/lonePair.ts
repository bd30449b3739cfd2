// Lone uncached v3 pages through several API runnables at once, request by request: one runnable per variant (its
// settings, its own copy of a store kept by `bench:ingest --store`), all started from the same build
// (the file `npm run api` starts of BENCH_PROJECT_DIR, default this checkout; API_CACHE_BYTES=0), and one client that asks
// each of them in turn for the same page (limit 40, newest first, with the address book, of a random masterchain
// block), never two at once, the variants' order rotating page by page, by fetch (as bench/api.ts's one-connection
// figure) and by a raw keep-alive socket. Since the variants answer the same pages side by side in the same seconds,
// a load that comes and goes weighs on all of them alike: what differs between them is the variants' own. Prints per
// variant and client the wall p50 and p90, the median of its difference from the first variant page by page, and
// each runnable's CPU per request over the timed pages (all its threads, less its CPU while idle, measured before). BENCH_WARM=1 (default): a pass over every
// block on four connections first, runnable by runnable, so the timed pages find the steady state of uniform random
// blocks. Numbers are printed, never asserted.
//   BENCH_VARIANTS="main:API_LONE_PAGE_ONE_STATEMENT=0,API_LONE_ON_MAIN_THREAD=0 both:API_LONE_PAGE_ONE_STATEMENT=1"
//   BENCH_STORE_DIRS=<copy 1>,<copy 2> [BENCH_PROJECT_DIR=<tree>] [BENCH_SINGLES=300] [BENCH_PORT=41500]
//   [BENCH_WARM=1] nice -n 5 npx tsx bench/lonePair.ts
import { readFileSync } from "node:fs"
import { loadavg } from "node:os"
import { join, resolve } from "node:path"
import { readStat } from "./lib/proc.js"
import { apiEntry, benchApiNodeArgs, startApiRunnable, type Runnable } from "./lib/runnable.js"
import { socketClient } from "./lib/socketClient.js"

const project = resolve(process.env.BENCH_PROJECT_DIR ?? join(import.meta.dirname, ".."))
const port0 = Number(process.env.BENCH_PORT ?? 41500)
const singles = Number(process.env.BENCH_SINGLES ?? 300)
const warm = (process.env.BENCH_WARM ?? "1") === "1"
const variants = (process.env.BENCH_VARIANTS ?? "")
  .split(" ")
  .filter((v) => v.length > 0)
  .map((v) => {
    const colon = v.indexOf(":")
    const name = colon < 0 ? v : v.slice(0, colon)
    const env = Object.fromEntries(
      (colon < 0 ? "" : v.slice(colon + 1))
        .split(",")
        .filter((kv) => kv.includes("="))
        .map((kv) => [kv.slice(0, kv.indexOf("=")), kv.slice(kv.indexOf("=") + 1)])
    )
    return { name, env }
  })
const dirs = (process.env.BENCH_STORE_DIRS ?? "").split(",").filter((d) => d.length > 0)
if (variants.length < 2) throw new Error("BENCH_VARIANTS: at least two, name:K=V,K=V separated by spaces")
if (dirs.length !== variants.length) throw new Error("BENCH_STORE_DIRS: one store copy per variant, comma-separated")
const stamp = JSON.parse(readFileSync(`${dirs[0]}/bench-store.json`, "utf8")) as { first: number; last: number }

const now = (): number => Number(process.hrtime.bigint()) / 1e6
const quantile = (xs: ReadonlyArray<number>, q: number): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length * q)]!
const cpuOf = (pid: number): number => readStat(`/proc/${pid}/stat`).cpu * 1000

let x = 7
const pageOf = (): string => {
  x = (x * 1103515245 + 12345) % 2 ** 31
  return `/api/v3/masterchainBlockShardState?seqno=${stamp.first + (x % (stamp.last - stamp.first + 1))}&limit=40`
}
const paths = Array.from({ length: singles }, pageOf)

const fetchBody = async (url: string): Promise<number> => {
  const res = await fetch(url)
  const body = await res.arrayBuffer()
  if (res.status !== 200) throw new Error(`${url}: ${res.status}`)
  return body.byteLength
}

const apis: Array<Runnable> = []
try {
  for (const [i, v] of variants.entries())
    apis.push(
      await startApiRunnable({
        project,
        dataDir: dirs[i]!,
        port: port0 + 2 * i,
        nodeArgs: benchApiNodeArgs(),
        entry: apiEntry(project),
        env: { API_CACHE_BYTES: "0", ...v.env }
      })
    )
  const bases = variants.map((_, i) => `http://127.0.0.1:${port0 + 2 * i}`)
  if (warm) {
    const all = Array.from({ length: stamp.last - stamp.first + 1 }, (_, i) => stamp.first + i)
    for (const base of bases) {
      let next = 0
      const worker = async (): Promise<void> => {
        while (next < all.length) await fetchBody(`${base}/api/v3/masterchainBlockShardState?seqno=${all[next++]!}&limit=40`)
      }
      await Promise.all([worker(), worker(), worker(), worker()])
    }
  }
  const sockets = await Promise.all(variants.map((_, i) => socketClient(port0 + 2 * i)))
  // the same bytes from every variant (a page's body by fetch and by socket, the first few pages)
  for (const p of paths.slice(0, 10)) {
    const sizes = await Promise.all(bases.map((b) => fetchBody(b + p)))
    if (sizes.some((s) => s !== sizes[0])) throw new Error(`${p}: bodies of ${sizes.join(", ")} bytes`)
  }
  // each runnable's CPU while idle (the engine's background work), over 5 s after a pause, taken off its figure below
  await new Promise((r) => setTimeout(r, 2000))
  const idle0 = apis.map((a) => cpuOf(a.pid))
  await new Promise((r) => setTimeout(r, 5000))
  const idleRate = apis.map((a, i) => (cpuOf(a.pid) - idle0[i]!) / 5000)
  const load0 = loadavg()[0]!
  const t0 = Date.now()
  const wall = variants.map(() => ({ fetch: [] as Array<number>, socket: [] as Array<number> }))
  const cpu0 = apis.map((a) => cpuOf(a.pid))
  for (const [i, path] of paths.entries()) {
    for (let k = 0; k < variants.length; k++) {
      const v = (i + k) % variants.length
      // the two clients alternate which goes first, page by page
      for (const client of i % 2 === 0 ? (["fetch", "socket"] as const) : (["socket", "fetch"] as const)) {
        const t = now()
        if (client === "fetch") await fetchBody(bases[v]! + path)
        else await sockets[v]!.get(path)
        wall[v]![client].push(now() - t)
      }
    }
  }
  const cpu1 = apis.map((a) => cpuOf(a.pid))
  const ms = Date.now() - t0
  const seconds = ms / 1000
  console.log(
    `lonePair: ${singles} pages x ${variants.length} variants x 2 clients in ${seconds.toFixed(0)} s, ` +
      `load ${load0.toFixed(2)} -> ${loadavg()[0]!.toFixed(2)}, blocks ${stamp.first}-${stamp.last}, project ${project}`
  )
  for (const [v, variant] of variants.entries()) {
    const w = wall[v]!
    const diff = (c: "fetch" | "socket"): number => quantile(w[c].map((t, i) => t - wall[0]![c][i]!), 0.5)
    console.log(
      `  ${variant.name.padEnd(10)} fetch p50 ${quantile(w.fetch, 0.5).toFixed(2)} p90 ${quantile(w.fetch, 0.9).toFixed(2)} ms` +
        (v === 0 ? "" : ` (page by page ${diff("fetch") >= 0 ? "+" : ""}${diff("fetch").toFixed(2)})`) +
        `  socket p50 ${quantile(w.socket, 0.5).toFixed(2)} p90 ${quantile(w.socket, 0.9).toFixed(2)} ms` +
        (v === 0 ? "" : ` (page by page ${diff("socket") >= 0 ? "+" : ""}${diff("socket").toFixed(2)})`) +
        `  CPU per request ${((cpu1[v]! - cpu0[v]! - idleRate[v]! * ms) / (2 * singles)).toFixed(2)} ms ` +
        `(idle ${(idleRate[v]! * 1000).toFixed(0)} ms/s taken off)  ${JSON.stringify(variant.env)}`
    )
  }
  for (const s of sockets) s.close()
} finally {
  for (const a of apis) await a.stop()
}
