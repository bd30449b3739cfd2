// Forward-only schema migrations: sql/NNNN_verb_object.sql applied in file-name order, each recorded in
// `schema_migrations` with the sha256 of its text. Invariant: a file runs at most once per database, and a file
// whose text changed after it ran stops every later start with an error naming it (a change of a table is a new
// file, never an edit).
import type { ClickHouseClient } from "@clickhouse/client"
import { Context, Effect, Layer } from "effect"
import { createHash } from "node:crypto"
import { readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { repoRoot } from "../infra/paths.js"
import { ClickHouse, ClickHouseError } from "./ClickHouse.js"
import { clusterStatements, type ClusterTarget } from "./cluster.js"

/** The repository's sql/ directory, found from this file so any working directory works. */
export const defaultMigrationsDir = join(repoRoot, "sql")

const FILE_NAME = /^(\d{4})_[a-z0-9_]+\.sql$/

export interface Migration {
  readonly name: string
  readonly checksum: string
  readonly statements: ReadonlyArray<string>
}

export interface MigrationReport {
  readonly applied: ReadonlyArray<string>
  readonly skipped: ReadonlyArray<string>
}

/** Statements end with `;` at the end of a line; lines that are only comments do not make a statement. */
export const splitStatements = (sqlText: string): ReadonlyArray<string> =>
  sqlText
    .replace(/\r\n/g, "\n")
    .split(/;[ \t]*(?:\n|$)/)
    .map((s) => s.trim())
    .filter((s) => s.split("\n").some((line) => line.trim() !== "" && !line.trim().startsWith("--")))

export const readMigrations = (dir: string = defaultMigrationsDir): ReadonlyArray<Migration> => {
  const names = readdirSync(dir)
    .filter((n) => n.endsWith(".sql"))
    .sort()
  const bad = names.find((n) => !FILE_NAME.test(n))
  if (bad !== undefined) {
    throw new ClickHouseError({
      reason: "MigrationFailed",
      message: `${join(dir, bad)}: migration files are named NNNN_verb_object.sql (lowercase)`
    })
  }
  const seen = new Map<string, string>()
  for (const n of names) {
    const num = n.slice(0, 4)
    const other = seen.get(num)
    if (other !== undefined) {
      throw new ClickHouseError({ reason: "MigrationFailed", message: `${other} and ${n} share the number ${num}` })
    }
    seen.set(num, n)
  }
  return names.map((name) => {
    const text = readFileSync(join(dir, name), "utf8").replace(/\r\n/g, "\n")
    return { name, checksum: createHash("sha256").update(text).digest("hex"), statements: splitStatements(text) }
  })
}

const fail = (message: string, cause?: unknown) => new ClickHouseError({ reason: "MigrationFailed", message, cause })

const appliedMigrations = async (client: ClickHouseClient): Promise<Map<string, string>> => {
  const exists = await client.query({
    query: "SELECT count() AS n FROM system.tables WHERE database = currentDatabase() AND name = 'schema_migrations'",
    format: "JSONEachRow"
  })
  const [row] = await exists.json<{ n: string }>()
  if (row === undefined || Number(row.n) === 0) return new Map()
  const rs = await client.query({
    query: "SELECT name, checksum FROM schema_migrations FINAL ORDER BY name",
    format: "JSONEachRow"
  })
  return new Map((await rs.json<{ name: string; checksum: string }>()).map((r) => [r.name, r.checksum]))
}

/**
 * Apply every pending migration of `dir` in order on the client's database. Idempotent: applied files are
 * skipped. Rejects with `ClickHouseError` (reason MigrationFailed) naming the file on a checksum change or a
 * failing statement; files after it are not applied.
 */
export const applyMigrations = async (
  client: ClickHouseClient,
  dir: string = defaultMigrationsDir,
  options: { readonly cluster?: ClusterTarget } = {}
): Promise<MigrationReport> => {
  const migrations = readMigrations(dir)
  // On a cluster every statement runs in its cluster form; applied files are rewritten too (not run), so later
  // files know which tables have local counterparts.
  const locals = new Set<string>()
  const forms = (statement: string) =>
    options.cluster === undefined ? [statement] : clusterStatements(statement, options.cluster, locals)
  let applied: Map<string, string>
  try {
    applied = await appliedMigrations(client)
  } catch (cause) {
    throw fail(`cannot read schema_migrations: ${(cause as Error).message}`, cause)
  }
  const done: Array<string> = []
  const skipped: Array<string> = []
  for (const m of migrations) {
    const previous = applied.get(m.name)
    if (previous !== undefined) {
      if (previous !== m.checksum) {
        throw fail(
          `${m.name} changed after it was applied (checksum ${previous.slice(0, 12)}… now ${m.checksum.slice(0, 12)}…); ` +
            "migrations are forward-only: restore the file and put the change in a new NNNN_*.sql"
        )
      }
      for (const statement of m.statements) forms(statement)
      skipped.push(m.name)
      continue
    }
    for (const [i, statement] of m.statements.entries()) {
      try {
        for (const form of forms(statement)) await client.command({ query: form })
      } catch (cause) {
        throw fail(`${m.name}, statement ${i + 1}: ${(cause as Error).message}`, cause)
      }
    }
    try {
      await client.insert({
        table: "schema_migrations",
        values: [{ name: m.name, checksum: m.checksum }],
        format: "JSONEachRow"
      })
    } catch (cause) {
      throw fail(`${m.name} ran but could not be recorded: ${(cause as Error).message}`, cause)
    }
    done.push(m.name)
  }
  return { applied: done, skipped }
}

/** `applyMigrations` on the ClickHouse service's client. */
export const migrate = (
  dir: string = defaultMigrationsDir
): Effect.Effect<MigrationReport, ClickHouseError, ClickHouse> =>
  Effect.flatMap(ClickHouse, (ch) =>
    Effect.tryPromise({
      try: () =>
        applyMigrations(ch.client, dir, ch.cluster ? { cluster: { cluster: ch.cluster, database: ch.database } } : {}),
      catch: (cause) => (cause instanceof ClickHouseError ? cause : fail(String(cause), cause))
    })
  )

/** The schema brought up to date once per process: services that write or report on it depend on this. */
export class Migrations extends Context.Tag("ton-exporter/Migrations")<Migrations, MigrationReport>() {
  static readonly layer = Layer.effect(Migrations, migrate())
}
