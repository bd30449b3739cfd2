/**
 * The gate of the read-only SQL endpoint: one statement, of a reading kind, that reaches nothing outside the
 * database, and the FORMAT it asks for; and who may reach the endpoint at all (loopback, or credentials). Invariant: the lexer errs on the side of code: it never treats as comment or
 * string anything the engine could run, so a second statement, a write or an outside-reaching table function cannot
 * hide from it; the engine's own `readonly` setting is applied on top as a second wall.
 */

export interface Token {
  readonly kind: "word" | "quoted" | "string" | "number" | "punct"
  /** Words upper-cased are compared case-insensitively; `text` keeps the source spelling (quotes removed). */
  readonly text: string
  readonly start: number
  readonly end: number
}

export class SqlRejected extends Error {
  override readonly name = "SqlRejected"
  constructor(
    /** ClickHouse's error code and name, so clients classify the refusal as they would a server's. */
    readonly code: number,
    readonly type: string,
    message: string
  ) {
    super(message)
  }
}

const syntax = (message: string) => new SqlRejected(62, "SYNTAX_ERROR", message)

/**
 * Tokens of `sql` without comments and whitespace. `--` comments run to the end of the line and block comments end
 * at the first closing mark (no nesting); `#` and heredoc strings are not comments or strings here, so text the
 * engine would skip may be read as code (and rejected), never the reverse.
 */
export const tokenize = (sql: string): Array<Token> => {
  const out: Array<Token> = []
  let i = 0
  const n = sql.length
  while (i < n) {
    const c = sql[i]!
    if (/\s/.test(c)) {
      i++
    } else if (c === "-" && sql[i + 1] === "-") {
      const nl = sql.indexOf("\n", i)
      i = nl === -1 ? n : nl + 1
    } else if (c === "/" && sql[i + 1] === "*") {
      const close = sql.indexOf("*/", i + 2)
      if (close === -1) throw syntax("Syntax error: unterminated comment")
      i = close + 2
    } else if (c === "'" || c === '"' || c === "`") {
      let j = i + 1
      let text = ""
      for (;;) {
        if (j >= n) throw syntax(`Syntax error: unterminated ${c === "'" ? "string literal" : "quoted identifier"}`)
        const d = sql[j]!
        if (d === "\\") {
          text += sql[j + 1] ?? ""
          j += 2
        } else if (d === c) {
          if (sql[j + 1] === c) {
            text += c
            j += 2
          } else {
            j++
            break
          }
        } else {
          text += d
          j++
        }
      }
      out.push({ kind: c === "'" ? "string" : "quoted", text, start: i, end: j })
      i = j
    } else if (/[A-Za-z_]/.test(c)) {
      let j = i + 1
      while (j < n && /[A-Za-z0-9_$]/.test(sql[j]!)) j++
      out.push({ kind: "word", text: sql.slice(i, j), start: i, end: j })
      i = j
    } else if (/[0-9]/.test(c)) {
      let j = i + 1
      while (j < n && /[0-9A-Za-z_.]/.test(sql[j]!)) j++
      out.push({ kind: "number", text: sql.slice(i, j), start: i, end: j })
      i = j
    } else {
      out.push({ kind: "punct", text: c, start: i, end: i + 1 })
      i++
    }
  }
  return out
}

/** Statements a reader may send. `(` opens a parenthesised SELECT (`(SELECT 1) UNION ALL (SELECT 2)`). */
const READING = new Set(["SELECT", "WITH", "SHOW", "DESCRIBE", "DESC", "EXPLAIN", "EXISTS", "("])

/**
 * Table functions that only compute or read this engine's own tables; every other table function of the engine
 * (files, URLs, object stores, other databases, programs) is refused, including ones added by later versions.
 */
export const SAFE_TABLE_FUNCTIONS: ReadonlySet<string> = new Set(
  [
    "numbers",
    "numbers_mt",
    "zeros",
    "zeros_mt",
    "primes",
    "generate_series",
    "generateSeries",
    "generateRandom",
    "values",
    "SQLStandardValues",
    "null",
    "view",
    "viewExplain",
    "viewIfPermitted",
    "merge",
    "loop",
    "format",
    "mergeTreeIndex",
    "mergeTreeProjection",
    "mergeTreeTextIndex",
    "mergeTreeAnalyzeIndexes",
    "mergeTreeAnalyzeIndexesUUID"
  ].map((s) => s.toLowerCase())
)

/**
 * Names refused when called, whatever their position: the engine's table functions minus the safe ones, and the
 * scalar `file()`, which reads a file of the host.
 */
export const blockedFunctions = (tableFunctions: Iterable<string>): ReadonlySet<string> => {
  const out = new Set<string>(["file"])
  for (const name of tableFunctions) if (!SAFE_TABLE_FUNCTIONS.has(name.toLowerCase())) out.add(name.toLowerCase())
  return out
}

export interface ReadStatement {
  /** The statement without its trailing semicolon, ready for a SETTINGS clause on a new line. */
  readonly sql: string
  /** The format named by its top-level FORMAT clause, if any. */
  readonly format: string | undefined
}

const upper = (t: Token | undefined): string | undefined => (t?.kind === "word" ? t.text.toUpperCase() : undefined)

export interface Statement extends ReadStatement {
  /** Its first keyword upper-cased (`SELECT`, `INSERT`, `CREATE`, ...), or `(` for a parenthesised SELECT. */
  readonly head: string
  /** Tokens of the statement, trailing semicolons excluded. */
  readonly tokens: ReadonlyArray<Token>
}

/**
 * One statement of any kind that reaches nothing outside the database: no second statement, no refused table
 * function, no INTO OUTFILE. Throws `SqlRejected` with ClickHouse's code otherwise.
 */
export const checkStatement = (sql: string, blocked: ReadonlySet<string>): Statement => {
  const tokens = tokenize(sql)
  let last = tokens.length
  while (last > 0 && tokens[last - 1]!.text === ";" && tokens[last - 1]!.kind === "punct") last--
  if (last === 0) throw syntax("Empty query")
  const body = tokens.slice(0, last)
  if (body.some((t) => t.kind === "punct" && t.text === ";")) {
    throw syntax("Syntax error (Multi-statements are not allowed)")
  }
  const first = body[0]!
  const head = first.kind === "punct" ? first.text : (upper(first) ?? first.text)
  let depth = 0
  let format: string | undefined
  for (let k = 0; k < body.length; k++) {
    const t = body[k]!
    const next = body[k + 1]
    if (t.kind === "punct") {
      if (t.text === "(") depth++
      else if (t.text === ")") depth--
      continue
    }
    if ((t.kind === "word" || t.kind === "quoted") && next?.kind === "punct" && next.text === "(") {
      if (blocked.has(t.text.toLowerCase())) {
        throw new SqlRejected(
          164,
          "READONLY",
          `Cannot execute query: ${t.text}() reaches outside the database and is not allowed here`
        )
      }
    }
    const word = upper(t)
    if (word === "INTO" && upper(next) === "OUTFILE") {
      throw new SqlRejected(164, "READONLY", "Cannot execute query: INTO OUTFILE writes a file")
    }
    if (word === "FORMAT" && depth === 0 && next !== undefined && (next.kind === "word" || next.kind === "quoted")) {
      const after = body[k + 2]
      if (!(after?.kind === "punct" && after.text === "(")) format = next.text
    }
  }
  return { sql: sql.slice(0, body[body.length - 1]!.end), format, head, tokens: body }
}

/** Accepts one reading statement; throws `SqlRejected` with ClickHouse's code for anything else. */
export const checkReadOnly = (sql: string, blocked: ReadonlySet<string>): ReadStatement => {
  const statement = checkStatement(sql, blocked)
  if (!isReading(statement)) {
    const first = statement.tokens[0]!
    throw new SqlRejected(
      164,
      "READONLY",
      `Cannot execute query in readonly mode: this endpoint runs SELECT, WITH, SHOW, DESCRIBE, EXPLAIN and EXISTS only, got ${first.kind === "word" ? first.text.toUpperCase() : JSON.stringify(first.text)}`
    )
  }
  return { sql: statement.sql, format: statement.format }
}

/** A statement of a reading kind: it takes a trailing SETTINGS clause and answers in its FORMAT. */
export const isReading = (s: Pick<Statement, "head" | "tokens">): boolean =>
  READING.has(s.head) && (s.tokens[0]!.kind === "word" || s.head === "(")

/** What an `INSERT INTO t [(a, b)] [SETTINGS ...] FORMAT F` statement names, its rows being the request's data. */
export interface InsertWithData {
  readonly database: string | undefined
  readonly table: string
  readonly columns: ReadonlyArray<string> | undefined
  readonly format: string
}

const isName = (t: Token | undefined): t is Token => t !== undefined && (t.kind === "word" || t.kind === "quoted")
const isPunct = (t: Token | undefined, text: string): boolean => t?.kind === "punct" && t.text === text

/**
 * The target of an INSERT whose data follows its FORMAT clause (what @clickhouse/client sends: the statement in the
 * URL, the rows as the body); undefined for any other statement (INSERT ... SELECT, INSERT ... VALUES, settings
 * inside the statement), which then runs as text.
 */
export const insertWithData = (s: Statement): InsertWithData | undefined => {
  const t = s.tokens
  if (s.head !== "INSERT" || upper(t[1]) !== "INTO") return undefined
  let k = 2
  if (upper(t[k]) === "TABLE") k++
  if (!isName(t[k])) return undefined
  let database: string | undefined
  let table = t[k]!.text
  k++
  if (isPunct(t[k], ".") && isName(t[k + 1])) {
    database = table
    table = t[k + 1]!.text
    k += 2
  }
  let columns: Array<string> | undefined
  if (isPunct(t[k], "(")) {
    columns = []
    k++
    for (;;) {
      if (!isName(t[k])) return undefined
      columns.push(t[k]!.text)
      k++
      if (isPunct(t[k], ",")) k++
      else if (isPunct(t[k], ")")) {
        k++
        break
      } else return undefined
    }
  }
  if (upper(t[k]) !== "FORMAT" || !isName(t[k + 1]) || k + 2 !== t.length) return undefined
  return { database, table, columns, format: t[k + 1]!.text }
}

const LOOPBACK = /^(127\.\d+\.\d+\.\d+|::1|localhost|::ffff:127\.\d+\.\d+\.\d+)$/i

/** Refuses a reachable endpoint without credentials; the message names the settings to change. */
export const checkSqlExposure = (s: {
  readonly host: string
  readonly user: string
  readonly password: string
}): string | undefined =>
  LOOPBACK.test(s.host) || (s.user !== "" && s.password !== "")
    ? undefined
    : `SQL_HOST=${s.host}: the SQL endpoint serves every table to whoever reaches it; outside loopback set ` +
      "SQL_USER and SQL_PASSWORD (or keep SQL_HOST=127.0.0.1, or SQL_PORT=0 to turn it off)"
