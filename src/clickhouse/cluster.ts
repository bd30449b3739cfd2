/**
 * Migrations on a ClickHouse cluster (CLICKHOUSE_CLUSTER): each statement of sql/ becomes its cluster form. A
 * MergeTree table `t` becomes `t_local` (Replicated*MergeTree, ON CLUSTER) plus `t` (Distributed over `t_local`,
 * sharded by the first sorting column, so rows with equal sorting keys meet on one shard and FINAL still collapses
 * them); materialized views read and write the local tables (they fire on each shard's inserts); plain views, ALTERs
 * and DROPs run ON CLUSTER, ALTERs of indexes on the local table. Invariant: readers and writers keep using the plain
 * names, so no other code knows whether it runs on one server or a cluster; without a cluster a statement is unchanged.
 */
import { tokenize, type Token } from "./sqlGuard.js"

export interface ClusterTarget {
  readonly cluster: string
  readonly database: string
}

/** Names of tables already turned into local + distributed pairs: ALTERs and materialized views need them. */
export type LocalTables = Set<string>

const IDENT = /^[A-Za-z_][A-Za-z0-9_]*$/

export const localName = (table: string): string => `${table}_local`

const up = (t: Token | undefined): string => (t?.kind === "word" ? t.text.toUpperCase() : "")

/** Index of the first token after `CREATE [OR REPLACE] [MATERIALIZED] (TABLE|VIEW) [IF NOT EXISTS]`, or -1. */
const nameIndex = (tokens: ReadonlyArray<Token>, kinds: ReadonlyArray<string>): number => {
  let k = 1
  if (up(tokens[k]) === "OR" && up(tokens[k + 1]) === "REPLACE") k += 2
  if (up(tokens[k]) === "MATERIALIZED") k++
  if (!kinds.includes(up(tokens[k]))) return -1
  k++
  if (up(tokens[k]) === "IF" && up(tokens[k + 1]) === "NOT" && up(tokens[k + 2]) === "EXISTS") k += 3
  return k
}

/** The text with [start, end) replaced, edits applied from the last to the first. */
const splice = (text: string, edits: ReadonlyArray<readonly [number, number, string]>): string =>
  [...edits].sort((a, b) => b[0] - a[0]).reduce((s, [from, to, by]) => s.slice(0, from) + by + s.slice(to), text)

const onCluster = (c: ClusterTarget) => ` ON CLUSTER ${c.cluster}`

const createTable = (sql: string, tokens: ReadonlyArray<Token>, at: number, c: ClusterTarget, locals: LocalTables) => {
  const name = tokens[at]!
  const engineAt = tokens.findIndex((t, k) => k > at && up(t) === "ENGINE")
  const engine = tokens[engineAt + 2]
  if (engineAt < 0 || tokens[engineAt + 1]?.text !== "=" || engine === undefined || !/MergeTree$/.test(engine.text)) {
    // Not a MergeTree table (a Null or Memory table, say): the same table on every node.
    return [splice(sql, [[name.end, name.end, onCluster(c)]])]
  }
  const local = localName(name.text)
  const path = `'/clickhouse/tables/{shard}/${c.database}/${local}', '{replica}'`
  const hasArgs = tokens[engineAt + 3]?.text === "("
  const argsEmpty = hasArgs && tokens[engineAt + 4]?.text === ")"
  const engineEdits: Array<readonly [number, number, string]> = hasArgs
    ? [
        [engine.start, engine.end, `Replicated${engine.text}`],
        [tokens[engineAt + 3]!.end, tokens[engineAt + 3]!.end, argsEmpty ? path : `${path}, `]
      ]
    : [[engine.start, engine.end, `Replicated${engine.text}(${path})`]]
  const localSql = splice(sql, [[name.start, name.end, `${local}${onCluster(c)}`], ...engineEdits])
  const orderAt = tokens.findIndex((t, k) => k > engineAt && up(t) === "ORDER" && up(tokens[k + 1]) === "BY")
  const firstAt = tokens[orderAt + 2]?.text === "(" ? orderAt + 3 : orderAt + 2
  const first = tokens[firstAt]
  const plainColumn = first?.kind === "word" && IDENT.test(first.text) && tokens[firstAt + 1]?.text !== "("
  const shardKey = orderAt >= 0 && plainColumn ? `cityHash64(${first.text})` : "rand()"
  const ifNotExists = up(tokens[at - 1]) === "EXISTS" ? " IF NOT EXISTS" : ""
  const distributed =
    `CREATE TABLE${ifNotExists} ${name.text}${onCluster(c)} AS ${local}\n` +
    `ENGINE = Distributed(${c.cluster}, ${c.database}, ${local}, ${shardKey})`
  locals.add(name.text)
  return [localSql, distributed]
}

const createMaterializedView = (sql: string, tokens: ReadonlyArray<Token>, at: number, c: ClusterTarget, locals: LocalTables) => {
  const edits: Array<readonly [number, number, string]> = [[tokens[at]!.end, tokens[at]!.end, onCluster(c)]]
  for (let k = at + 1; k < tokens.length; k++) {
    const t = tokens[k]!
    const before = up(tokens[k - 1])
    if (t.kind === "word" && locals.has(t.text) && (before === "TO" || before === "FROM" || before === "JOIN")) {
      edits.push([t.start, t.end, localName(t.text)])
    }
  }
  return [splice(sql, edits)]
}

/** Column changes reach both tables of a pair; index and other storage changes only the local one. */
const COLUMN_ALTERS = new Set(["COLUMN"])

const alterTable = (sql: string, tokens: ReadonlyArray<Token>, c: ClusterTarget, locals: LocalTables) => {
  const name = tokens[2]!
  if (!locals.has(name.text)) return [splice(sql, [[name.end, name.end, onCluster(c)]])]
  const local = splice(sql, [[name.start, name.end, `${localName(name.text)}${onCluster(c)}`]])
  const touchesColumns = tokens.some((t, k) => k > 2 && COLUMN_ALTERS.has(up(t)))
  return touchesColumns ? [local, splice(sql, [[name.end, name.end, onCluster(c)]])] : [local]
}

const dropStatement = (sql: string, tokens: ReadonlyArray<Token>, c: ClusterTarget, locals: LocalTables) => {
  let k = 2
  if (up(tokens[k]) === "IF" && up(tokens[k + 1]) === "EXISTS") k += 2
  const name = tokens[k]
  if (name === undefined) return [sql]
  const plain = splice(sql, [[name.end, name.end, onCluster(c)]])
  if (up(tokens[1]) !== "TABLE" || !locals.has(name.text)) return [plain]
  locals.delete(name.text)
  return [plain, splice(sql, [[name.start, name.end, `${localName(name.text)}${onCluster(c)}`]])]
}

/**
 * The statements that carry out `sql` on the cluster, in order; `locals` is updated with the tables it creates.
 * Statements of other kinds (INSERT ... SELECT backfills, OPTIMIZE) run unchanged through the distributed tables.
 */
export const clusterStatements = (sql: string, c: ClusterTarget, locals: LocalTables): ReadonlyArray<string> => {
  if (!IDENT.test(c.cluster) || !IDENT.test(c.database)) {
    throw new Error(`cluster and database must be plain identifiers, got ${JSON.stringify(c)}`)
  }
  const tokens = tokenize(sql)
  const head = up(tokens[0])
  if (head === "CREATE") {
    const table = nameIndex(tokens, ["TABLE"])
    if (table > 0) return createTable(sql, tokens, table, c, locals)
    const view = nameIndex(tokens, ["VIEW"])
    if (view > 0 && tokens.slice(0, view).some((t) => up(t) === "MATERIALIZED")) {
      return createMaterializedView(sql, tokens, view, c, locals)
    }
    if (view > 0) return [splice(sql, [[tokens[view]!.end, tokens[view]!.end, onCluster(c)]])]
    return [sql]
  }
  if (head === "ALTER" && up(tokens[1]) === "TABLE") return alterTable(sql, tokens, c, locals)
  if (head === "DROP" && (up(tokens[1]) === "TABLE" || up(tokens[1]) === "VIEW")) return dropStatement(sql, tokens, c, locals)
  return [sql]
}
