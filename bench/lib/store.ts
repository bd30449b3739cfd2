// The store a read benchmark works on: a copy of one kept by `bench:ingest --store` (BENCH_STORE_DIR; the engine
// writes to it), its database, and the masterchain range `bench-store.json` records.
import { readFileSync } from "node:fs"

export interface BenchStore {
  readonly dir: string
  readonly database: string
  readonly stamp: { readonly first: number; readonly last: number }
}

export const benchStore = (): BenchStore => {
  const dir = process.env.BENCH_STORE_DIR
  if (dir === undefined)
    throw new Error("BENCH_STORE_DIR: a copy of a store kept by `npm run bench:ingest -- --store DIR`")
  const database = process.env.CLICKHOUSE_DATABASE ?? "ton"
  const stamp = JSON.parse(readFileSync(`${dir}/bench-store.json`, "utf8")) as { first: number; last: number }
  return { dir, database, stamp }
}
