// Applies the pending sql/NNNN_*.sql migrations to CLICKHOUSE_DATABASE and exits.
// Safe to run any number of times: applied files are skipped, a changed applied file stops with its name.
import { Console, Effect } from "effect"
import { ClickHouse } from "../src/clickhouse/ClickHouse.js"
import { migrate } from "../src/clickhouse/migrations.js"
import { runMain } from "../src/infra/runMain.js"
import { backfillTxPages } from "../src/store/backfillPages.js"
import { backfillV3Pages } from "../src/store/backfillV3Pages.js"
import { embedV3States } from "../src/store/embedV3States.js"
import { backfillV2Pages } from "../src/store/backfillV2Pages.js"
import { backfillMcShards } from "../src/store/backfillMcShards.js"
import { fillAccountLookupsKv } from "../src/store/accountLookupsKv.js"
import { redecodeBodies } from "../src/store/redecode.js"
import { installFastCellHash } from "../src/ton/fastHash.js"

const program = Effect.gen(function* () {
  const ch = yield* ClickHouse
  const report = yield* migrate()
  yield* Console.log(
    `migrations on ${ch.backend} ${ch.location} database ${ch.database}: ` +
      `${report.applied.length} applied${report.applied.length > 0 ? ` (${report.applied.join(", ")})` : ""}, ` +
      `${report.skipped.length} already applied`
  )
  // Re-decoding parses every stored body: the faster cell code the consumer uses too (same cells, same hashes).
  yield* Effect.sync(installFastCellHash)
  // Decoded columns written by an older body decoder are brought to this build's (and their blocks' pages rendered
  // again); one query when the store is current.
  const redecoded = yield* Effect.promise(() =>
    redecodeBodies(ch.client, {
      ...(ch.cluster ? { cluster: ch.cluster } : {}),
      onProgress: (line) => console.log(line)
    })
  )
  if (redecoded.outcome === "newer") {
    yield* Console.log(
      `redecode: the store holds decoder version ${redecoded.from}, newer than this build's: left as is`
    )
  }
  // Done blocks without pages (stored before the page table, sql/0100, or dropped by a migration) get them now: on a
  // cluster into `tx_pages` (a no-op once every done block has pieces); on a single node straight into the key-value
  // rows, `tx_pages` only for what those cannot serve (a walk past its recorded progress, sql/0137).
  const filled = yield* Effect.promise(() =>
    backfillTxPages(ch.client, ch.cluster === undefined ? { pageKv: true } : {})
  )
  if (filled.length > 0) yield* Console.log(`pages: rendered ${filled.length} masterchain blocks`)
  // The one key-value table a v3 page's lookups read (sql/0142): the known account states and each account's newest
  // done code hash; off on a cluster (per-node table).
  if (ch.cluster === undefined) {
    const copied = yield* Effect.promise(() => fillAccountLookupsKv(ch.client))
    if (copied !== null) {
      yield* Console.log(
        `account_lookups_kv: copied ${copied.states} account states and ${copied.accounts} accounts' code hashes`
      )
    }
  }
  // Every done block's key-value v3 page row (sql/0131), from stored pieces (stores written before it); off on a
  // cluster (per-node table).
  if (ch.cluster === undefined) {
    const rows = yield* Effect.promise(() =>
      backfillV3Pages(ch.client, {
        onProgress: (p) => console.log(`v3_pages: ${p.rows} rows written, done blocks through mc ${p.through}`)
      })
    )
    if (rows > 0) yield* Console.log(`v3_pages: filled ${rows} masterchain block rows`)
  }
  // The known account states embedded into the v3 page rows written before the consumer embedded them (sql/0151),
  // from `account_lookups_kv`; off on a cluster (per-node table).
  if (ch.cluster === undefined) {
    const rows = yield* Effect.promise(() =>
      embedV3States(ch.client, {
        onProgress: (p) => console.log(`v3_pages states: ${p.rows} rows rewritten, done blocks through mc ${p.through}`)
      })
    )
    if (rows > 0) yield* Console.log(`v3_pages: embedded the known states of ${rows} masterchain block rows`)
  }
  // Every done block's key-value v2 page row (sql/0132), from stored pieces; off on a cluster (per-node table).
  if (ch.cluster === undefined) {
    const rows = yield* Effect.promise(() =>
      backfillV2Pages(ch.client, {
        onProgress: (p) => console.log(`v2_pages: ${p.rows} rows written, done blocks through mc ${p.through}`)
      })
    )
    if (rows > 0) yield* Console.log(`v2_pages: filled ${rows} block rows`)
  }
  // Every done masterchain block's key-value row of its blocks and shard tops (sql/0150), from `blocks` and
  // `mc_shard_blocks`; off on a cluster (per-node table).
  if (ch.cluster === undefined) {
    const rows = yield* Effect.promise(() =>
      backfillMcShards(ch.client, {
        onProgress: (p) => console.log(`mc_shards_kv: ${p.rows} rows written, done blocks through mc ${p.through}`)
      })
    )
    if (rows > 0) yield* Console.log(`mc_shards_kv: filled ${rows} masterchain block rows`)
  }
})

runMain(program.pipe(Effect.provide(ClickHouse.layer)))
