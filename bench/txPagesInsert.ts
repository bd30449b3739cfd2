// tx_pages rows (rendered from a generated 30-block chain by the producer's decoder and txPageRow) encoded and inserted
// into a fresh embedded ClickHouse as JSONCompactEachRow and as TabSeparated (what the sink sends), interleaved round
// by round in one process. Prints, per format, the medians over six rounds of encoding and insert CPU (process CPU,
// the engine's threads included) per row. Usage: npx tsx bench/txPagesInsert.ts. Numbers are printed, never asserted.
import { Either } from "effect"
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { makeClickHouseClient } from "../src/clickhouse/ClickHouse.js"
import { applyMigrations } from "../src/clickhouse/migrations.js"
import { pipelineDecode } from "../src/producer/assemble.js"
import { CompactRowEncoder, TsvRowEncoder } from "../src/sink/encode.js"
import { txPageRow } from "../src/store/pages.js"
import { installFastCellHash } from "../src/ton/fastHash.js"
import { benchChain } from "./lib/chain.js"

installFastCellHash()
const chain = benchChain(42, 30, 30)
const rows: Array<ReturnType<typeof txPageRow>> = []
for (const b of chain.blocks.values())
  for (const tx of b.txs) {
    const r = pipelineDecode(tx.boc, { block: b.record.id, mc_block_seqno: b.record.mc_block_seqno })
    if (Either.isRight(r)) rows.push(txPageRow({ ...r.right, trace_id: r.right.hash }))
  }
const ch = await makeClickHouseClient({
  url: undefined,
  user: "default",
  password: "",
  database: "b",
  dataDir: mkdtempSync(join(tmpdir(), "tsvb-"))
})
await applyMigrations(ch.client)
const cpu = () => {
  const u = process.cpuUsage()
  return (u.user + u.system) / 1e3
}
const res: Record<string, Array<[number, number]>> = { json: [], tsv: [] }
for (let round = 0; round < 6; round++) {
  for (const kind of round % 2 === 0 ? ["json", "tsv"] : ["tsv", "json"]) {
    const t0 = cpu()
    const enc = kind === "json" ? new CompactRowEncoder("tx_pages") : new TsvRowEncoder("tx_pages")
    for (const r of rows) enc.add(r)
    const { columns, body } = enc.finish()
    const t1 = cpu()
    await ch.insertEncoded({ table: "tx_pages", columns, format: enc.format, body })
    const t2 = cpu()
    res[kind]!.push([((t1 - t0) / rows.length) * 1000, ((t2 - t1) / rows.length) * 1000])
    if (round === 0) console.log(kind, "bytes/row", (body.length / rows.length).toFixed(0))
  }
}
const med = (a: Array<number>) => a.sort((x, y) => x - y)[Math.floor(a.length / 2)]!
for (const k of ["json", "tsv"])
  console.log(
    `${k}: ${rows.length} rows; encode ${med(res[k]!.map((x) => x[0])).toFixed(1)} us/row, insert (process CPU) ${med(res[k]!.map((x) => x[1])).toFixed(1)} us/row; runs ${res[k]!.map((x) => (x[0] + x[1]).toFixed(0)).join(" ")}`
  )
await ch.client.close()
process.exit(0)
