// Whether a v3 page read from fixed slices of its block's lines costs the engine less than the whole `v3_pages` row:
// scratch tables `v3_slices_<S>` (EmbeddedRocksDB, key `mc * 65536 + slice`, S lines each in descending page order, as
// Array(String)) and `v3_text_slices_16` (the same slices of 16 as one newline-joined String) are filled from `v3_pages`
// by INSERT ... SELECT, written and compacted as the page tables are (sql/0133), then a descending page (limit 40,
// offset 0 and a random offset) is read lone and 16 pages to a statement, the ways alternating, against the whole-row
// statement the store runs, the same lookup of keys that hold no row (the statement's fixed cost) and the whole row
// read with nothing of it sent (what reading the row costs). Over a COPY of a store kept by `bench:ingest --store`
// (BENCH_STORE_DIR; the scratch tables are left in it), in this process, a session with the API's settings. Prints the
// median wall time per statement and this whole process's CPU per page (engine threads included); never asserted.
import { Session } from "chdb"
import { loadavg } from "node:os"
import { sessionSetup } from "../src/store/readers.js"
import { benchStore } from "./lib/store.js"

const { dir, database, stamp } = benchStore()
const rounds = Number(process.env.BENCH_ROUNDS ?? 200)
const sizes = (process.env.BENCH_SLICES ?? "8,16,32").split(",").map(Number)
const median = (xs: Array<number>): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!

const session = new Session(dir)
for (const statement of sessionSetup(database)) session.query(statement)
const run = async (sql: string): Promise<Uint8Array> =>
  (await session.queryAsync(sql, { format: "TabSeparatedRaw" })).bytes()
const scalar = async (sql: string): Promise<string> =>
  Buffer.from(await run(sql))
    .toString("utf8")
    .trim()

for (const S of sizes) {
  const table = `v3_slices_${S}`
  if ((await scalar(`EXISTS TABLE ${table}`)) === "1") continue
  const t0 = performance.now()
  await run(`CREATE TABLE ${table} (key UInt64, lines Array(String)) ENGINE = EmbeddedRocksDB PRIMARY KEY key`)
  await run(`ALTER TABLE ${table} MODIFY SETTING optimize_for_bulk_insert = 0`)
  // in batches of blocks, as the consumer and the fill write them
  for (let from = stamp.first; from <= stamp.last; from += 100) {
    await run(
      `INSERT INTO ${table} SELECT toUInt64(mc_block_seqno) * 65536 + k, arraySlice(lines, k * ${S} + 1, ${S})
       FROM v3_pages ARRAY JOIN range(toUInt32(greatest(1, intDiv(length(lines) + ${S - 1}, ${S})))) AS k
       WHERE mc_block_seqno BETWEEN ${from} AND ${Math.min(stamp.last, from + 99)}`
    )
  }
  await run(`OPTIMIZE TABLE ${table}`).catch((e) =>
    console.log(`OPTIMIZE ${table}: ${(e as Error).message.slice(0, 120)}`)
  )
  console.log(
    `${table}: ${await scalar(`SELECT count() FROM ${table}`)} rows, filled in ${((performance.now() - t0) / 1000).toFixed(1)} s`
  )
}
// slices of 16 as one String each (the lines joined by newlines): nothing to deserialize per line
if ((await scalar(`EXISTS TABLE v3_text_slices_16`)) !== "1") {
  await run(
    `CREATE TABLE v3_text_slices_16 (key UInt64, n UInt8, text String) ENGINE = EmbeddedRocksDB PRIMARY KEY key`
  )
  await run(`ALTER TABLE v3_text_slices_16 MODIFY SETTING optimize_for_bulk_insert = 0`)
  for (let from = stamp.first; from <= stamp.last; from += 100) {
    await run(
      `INSERT INTO v3_text_slices_16 SELECT key, length(lines), arrayStringConcat(lines, '\\n') FROM v3_slices_16
       WHERE intDiv(key, 65536) BETWEEN ${from} AND ${Math.min(stamp.last, from + 99)}`
    )
  }
  await run(`OPTIMIZE TABLE v3_text_slices_16`)
}
console.log(
  `v3_pages lines per block: ${await scalar(`SELECT concat(toString(min(length(lines))), ' min, ', toString(round(avg(length(lines)), 1)), ' avg, ', toString(max(length(lines))), ' max, ', toString(round(avg(arraySum(arrayMap(l -> length(l), lines))))), ' bytes avg') FROM v3_pages`)}`
)

let x = 12345
const random = (m: number): number => {
  x = (x * 1103515245 + 12345) % 2 ** 31
  return x % m
}
const block = (): number => stamp.first + random(stamp.last - stamp.first + 1)

interface Ask {
  readonly seqno: number
  readonly offset: number
}
const LIMIT = 40

const wholeRow = (asks: ReadonlyArray<Ask>): string => {
  const offsets = new Set(asks.map((a) => a.offset))
  const keys = `[${asks.map((a) => a.seqno).join(",")}]`
  const offset =
    offsets.size === 1
      ? String(asks[0]!.offset)
      : `transform(mc_block_seqno, CAST(${keys} AS Array(UInt32)), CAST([${asks.map((a) => a.offset).join(",")}] AS Array(UInt64)), toUInt64(0))`
  return `SELECT mc_block_seqno, length(arraySlice(lines, ${offset} + 1, ${LIMIT}) AS page), arrayStringConcat(page, '\\n')
    FROM v3_pages WHERE mc_block_seqno IN ${keys} SETTINGS enable_analyzer = 0 FORMAT TabSeparatedRaw`
}

// the slices a page's lines fall in, whole (the reader cuts the page's lines from them)
const sliced =
  (S: number) =>
  (asks: ReadonlyArray<Ask>): string => {
    const keys: Array<string> = []
    for (const a of asks) {
      for (let k = Math.floor(a.offset / S); k <= Math.floor((a.offset + LIMIT - 1) / S); k++)
        keys.push(String(a.seqno * 65536 + k))
    }
    return `SELECT key, length(lines), arrayStringConcat(lines, '\\n') FROM v3_slices_${S} WHERE key IN [${keys.join(",")}]
      SETTINGS enable_analyzer = 0 FORMAT TabSeparatedRaw`
  }

const textSliced = (asks: ReadonlyArray<Ask>): string => {
  const keys: Array<string> = []
  for (const a of asks) {
    for (let k = Math.floor(a.offset / 16); k <= Math.floor((a.offset + LIMIT - 1) / 16); k++)
      keys.push(String(a.seqno * 65536 + k))
  }
  return `SELECT key, n, text FROM v3_text_slices_16 WHERE key IN [${keys.join(",")}]
    SETTINGS enable_analyzer = 0 FORMAT TabSeparatedRaw`
}
// the statement's fixed cost: the same lookup of a key that holds no row
const noRow = (asks: ReadonlyArray<Ask>): string =>
  `SELECT mc_block_seqno, length(lines), arrayStringConcat(lines, '\\n') FROM v3_pages WHERE mc_block_seqno IN [${asks.map((_, i) => i).join(",")}]
    SETTINGS enable_analyzer = 0 FORMAT TabSeparatedRaw`
const ways: Record<string, (asks: ReadonlyArray<Ask>) => string> = { "whole row": wholeRow }
for (const S of sizes) ways[`slices of ${S}`] = sliced(S)
ways["text of 16"] = textSliced
ways["no row"] = noRow
// the whole row read and deserialized, nothing of it sent: what reading the row costs apart from the page's output
ways["row, count"] = (asks) =>
  `SELECT mc_block_seqno, length(lines) FROM v3_pages WHERE mc_block_seqno IN [${asks.map((a) => a.seqno).join(",")}]
    SETTINGS enable_analyzer = 0 FORMAT TabSeparatedRaw`
const names = Object.keys(ways)

for (const [label, group, offsetOf] of [
  ["lone page, offset 0", 1, () => 0],
  ["lone page, random offset 0..59", 1, () => random(60)],
  ["16 pages per statement, offset 0", 16, () => 0],
  ["16 pages per statement, random offsets 0..59", 16, () => random(60)]
] as const) {
  const wall: Record<string, Array<number>> = Object.fromEntries(names.map((n) => [n, []]))
  const cpu: Record<string, number> = Object.fromEntries(names.map((n) => [n, 0]))
  const bytes: Record<string, number> = Object.fromEntries(names.map((n) => [n, 0]))
  const n = group === 1 ? rounds : Math.max(20, Math.floor(rounds / 8))
  for (let r = 0; r < n; r++) {
    const asks = Array.from({ length: group }, () => ({ seqno: block(), offset: offsetOf() }))
    const order = r % 2 === 0 ? names : [...names].reverse()
    for (const name of order) {
      const sql = ways[name]!(asks)
      const c0 = process.cpuUsage()
      const t0 = performance.now()
      const out = await run(sql)
      wall[name]!.push(performance.now() - t0)
      const c = process.cpuUsage(c0)
      cpu[name]! += (c.user + c.system) / 1000
      bytes[name]! += out.length
    }
  }
  console.log(`${label}: ${n} statements each, load ${loadavg()[0]!.toFixed(1)}`)
  for (const name of names) {
    console.log(
      `  ${name.padEnd(12)} wall p50 ${median(wall[name]!).toFixed(2)} ms per statement  cpu ${(cpu[name]! / (n * group)).toFixed(3)} ms per page  ${Math.round(bytes[name]! / (n * group))} B out per page`
    )
  }
}
session.close()
