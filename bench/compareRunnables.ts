// Two API runnables answer the same v3 pages byte for byte: the product's runnable of BENCH_PROJECT_A over
// BENCH_STORE_A and of BENCH_PROJECT_B over BENCH_STORE_B (e.g. main over a store as main leaves it, a branch over
// its migrated copy), cache off, BENCH_PAGES (1,000) requests of random masterchain blocks of the stores with random
// shapes (limit, offset, sort, with and without the address book; both v3 page endpoints) over BENCH_MC_FIRST..
// BENCH_MC_LAST (the 1M store's by default; one past the last: unknown), sent to both, bodies and statuses compared.
// Prints how many differ (and the first few). Ports BENCH_PORT and BENCH_PORT + 1. Never asserts.
import { apiEntry, benchApiNodeArgs, startApiRunnable } from "./lib/runnable.js"

const env = (k: string): string => {
  const v = process.env[k]
  if (v === undefined) throw new Error(`${k} is required`)
  return v
}
const port = Number(process.env.BENCH_PORT ?? 41390)
const count = Number(process.env.BENCH_PAGES ?? 1000)
const start = (project: string, dataDir: string, p: number) =>
  startApiRunnable({
    project,
    dataDir,
    port: p,
    nodeArgs: benchApiNodeArgs(),
    entry: apiEntry(project),
    env: { API_CACHE_BYTES: "0" }
  })

const a = await start(env("BENCH_PROJECT_A"), env("BENCH_STORE_A"), port)
const b = await start(env("BENCH_PROJECT_B"), env("BENCH_STORE_B"), port + 1)
try {
  const lo = Number(process.env.BENCH_MC_FIRST ?? 50000001)
  const hi = Number(process.env.BENCH_MC_LAST ?? 50009714)
  let x = 7
  const rand = (n: number): number => {
    x ^= x << 13
    x ^= x >>> 17
    x ^= x << 5
    return (x >>> 0) % n
  }
  let differ = 0
  let bytes = 0
  for (let i = 0; i < count; i++) {
    const seqno = lo + rand(hi - lo + 2)
    const path = rand(2) === 0 ? "masterchainBlockShardState" : "transactionsByMasterchainBlock"
    const limit = [1, 10, 40, 256][rand(4)]
    const offset = [0, 0, 3, 17, 60][rand(5)]
    const sort = rand(2) === 0 ? "asc" : "desc"
    const book = rand(3) === 0 ? "&x_no_address_book=true" : ""
    const url = `/api/v3/${path}?seqno=${seqno}&limit=${limit}&offset=${offset}&sort=${sort}${book}`
    const [ra, rb] = await Promise.all([
      fetch(`http://127.0.0.1:${port}${url}`),
      fetch(`http://127.0.0.1:${port + 1}${url}`)
    ])
    const [ta, tb] = [Buffer.from(await ra.arrayBuffer()), Buffer.from(await rb.arrayBuffer())]
    bytes += ta.length
    if (ra.status !== rb.status || !ta.equals(tb)) {
      differ++
      if (differ <= 5) console.log(`differs: ${url} (${ra.status} ${ta.length} B, ${rb.status} ${tb.length} B)`)
    }
  }
  console.log(`${count} requests over mc ${lo}..${hi}: ${differ} differ, ${(bytes / 1e6).toFixed(1)} MB compared`)
} finally {
  await a.stop()
  await b.stop()
}
