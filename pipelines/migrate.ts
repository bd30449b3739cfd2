// Applies the pending sql/NNNN_*.sql migrations to CLICKHOUSE_DATABASE and exits.
// Safe to run any number of times: applied files are skipped, a changed applied file stops with its name.
import { Console, Effect } from "effect"
import { ClickHouse } from "../src/clickhouse/ClickHouse.js"
import { migrate } from "../src/clickhouse/migrations.js"
import { runMain } from "../src/infra/runMain.js"
import { backfillTxPages } from "../src/store/backfillPages.js"

const program = Effect.gen(function* () {
  const ch = yield* ClickHouse
  const report = yield* migrate()
  yield* Console.log(
    `migrations on ${ch.backend} ${ch.location} database ${ch.database}: ` +
      `${report.applied.length} applied${report.applied.length > 0 ? ` (${report.applied.join(", ")})` : ""}, ` +
      `${report.skipped.length} already applied`
  )
  // Stores from before the page table (sql/0100) get their pieces now; a no-op once every done block has them.
  const filled = yield* Effect.promise(() => backfillTxPages(ch.client))
  if (filled.length > 0) yield* Console.log(`tx_pages: filled ${filled.length} masterchain blocks`)
})

runMain(program.pipe(Effect.provide(ClickHouse.layer)))
