import { describe, expect, it } from "vitest"
import { clusterStatements, type LocalTables } from "../../../src/clickhouse/cluster.js"
import { readMigrations } from "../../../src/clickhouse/migrations.js"

const target = { cluster: "ton_cluster", database: "ton" }

/** Every statement of sql/ in its cluster form, per source statement, in order (as the migration runner does). */
const rewriteAll = () => {
  const locals: LocalTables = new Set()
  return readMigrations().flatMap((m) =>
    m.statements.map((statement) => ({ file: m.name, statement, forms: clusterStatements(statement, target, locals) }))
  )
}

/** The statement on one line, its comment lines dropped. */
const oneLine = (s: string) =>
  s
    .split("\n")
    .filter((l) => !l.trim().startsWith("--"))
    .join(" ")
    .replace(/\s+/g, " ")
    .trim()

describe("migrations on a cluster (CLICKHOUSE_CLUSTER)", () => {
  const all = rewriteAll()
  const find = (prefix: string) => all.find((r) => oneLine(r.statement).startsWith(prefix))!

  it("turns a MergeTree table into a replicated local table and a distributed table over it", () => {
    const done = find("CREATE TABLE IF NOT EXISTS mc_blocks_done")
    expect(done.forms).toHaveLength(2)
    expect(oneLine(done.forms[0]!)).toContain("CREATE TABLE IF NOT EXISTS mc_blocks_done_local ON CLUSTER ton_cluster (")
    expect(oneLine(done.forms[0]!)).toContain(
      "ENGINE = ReplicatedReplacingMergeTree('/clickhouse/tables/{shard}/ton/mc_blocks_done_local', '{replica}') ORDER BY mc_seqno"
    )
    expect(oneLine(done.forms[1]!)).toBe(
      "CREATE TABLE IF NOT EXISTS mc_blocks_done ON CLUSTER ton_cluster AS mc_blocks_done_local " +
        "ENGINE = Distributed(ton_cluster, ton, mc_blocks_done_local, cityHash64(mc_seqno))"
    )
  })

  it("keeps engine arguments after the replication path, and shards by the first sorting column", () => {
    const states = find("CREATE TABLE IF NOT EXISTS account_states")
    expect(oneLine(states.forms[0]!)).toContain(
      "ENGINE = ReplicatedReplacingMergeTree('/clickhouse/tables/{shard}/ton/account_states_local', '{replica}', known)"
    )
    const sortedBy = /ORDER BY \(?\s*([A-Za-z_]+)/.exec(states.statement)![1]
    expect(states.forms[1]).toContain(`cityHash64(${sortedBy})`)
    const agg = find("CREATE TABLE IF NOT EXISTS analytics_tx_mc")
    expect(oneLine(agg.forms[0]!)).toContain("ENGINE = ReplicatedAggregatingMergeTree('/clickhouse/tables/{shard}/ton/analytics_tx_mc_local', '{replica}')")
  })

  it("points materialized views at the local tables on both ends", () => {
    const mv = find("CREATE MATERIALIZED VIEW IF NOT EXISTS analytics_tx_mc_mv")
    expect(mv.forms).toHaveLength(1)
    const sql = oneLine(mv.forms[0]!)
    expect(sql).toContain("analytics_tx_mc_mv ON CLUSTER ton_cluster TO analytics_tx_mc_local AS")
    expect(sql).toContain("FROM transactions_local AS t")
    expect(sql).not.toMatch(/FROM transactions\b(?!_local)/)
  })

  it("adds indexes on the local tables and runs views, ALTERs and DROPs on the whole cluster", () => {
    const index = find("ALTER TABLE blocks ADD INDEX")
    expect(index.forms.map(oneLine)).toEqual([
      oneLine(index.statement).replace("ALTER TABLE blocks", "ALTER TABLE blocks_local ON CLUSTER ton_cluster")
    ])
    const view = find("CREATE VIEW IF NOT EXISTS analytics_hourly")
    expect(oneLine(view.forms[0]!)).toMatch(/^CREATE VIEW IF NOT EXISTS analytics_hourly ON CLUSTER ton_cluster AS/)
    // Views read the distributed tables: their table names stay.
    expect(view.forms[0]).not.toContain("_local")
  })

  // Key-value tables (EmbeddedRocksDB, sql/0131, sql/0132) are per node: created on every node, neither replicated nor
  // distributed, and unused on a cluster (the read path takes tx_pages there).
  it("leaves no DDL statement off the cluster, and every MergeTree engine replicated", () => {
    for (const r of all) {
      for (const form of r.forms) {
        const sql = oneLine(form)
        if (/^(CREATE|ALTER|DROP)\b/.test(sql)) expect(sql, `${r.file}: ${sql.slice(0, 80)}`).toContain("ON CLUSTER ton_cluster")
        const engine = /ENGINE = (\w+)/.exec(sql)?.[1]
        // key-value page tables (EmbeddedRocksDB) stay per node: nothing reads or writes them on a cluster
        if (engine !== undefined) expect(engine, r.file).toMatch(/^(Replicated\w*MergeTree|Distributed|EmbeddedRocksDB)$/)
      }
    }
    const created = all.filter(
      (r) => /^CREATE TABLE/.test(oneLine(r.statement)) && !/ENGINE = EmbeddedRocksDB/.test(oneLine(r.statement))
    ).length
    expect(all.flatMap((r) => r.forms).filter((f) => f.includes("ENGINE = Distributed"))).toHaveLength(created)
  })

  it("column changes reach both tables of a pair; a cluster-less run changes nothing", () => {
    const locals: LocalTables = new Set(["blocks"])
    expect(clusterStatements("ALTER TABLE blocks ADD COLUMN x UInt8", target, locals)).toEqual([
      "ALTER TABLE blocks_local ON CLUSTER ton_cluster ADD COLUMN x UInt8",
      "ALTER TABLE blocks ON CLUSTER ton_cluster ADD COLUMN x UInt8"
    ])
    expect(clusterStatements("DROP TABLE IF EXISTS blocks", target, locals)).toEqual([
      "DROP TABLE IF EXISTS blocks ON CLUSTER ton_cluster",
      "DROP TABLE IF EXISTS blocks_local ON CLUSTER ton_cluster"
    ])
    expect(clusterStatements("INSERT INTO tx_pages SELECT 1", target, locals)).toEqual(["INSERT INTO tx_pages SELECT 1"])
    expect(() => clusterStatements("SELECT 1", { cluster: "bad name", database: "ton" }, locals)).toThrow(/identifiers/)
  })
})
