import { describe, expect, it } from "vitest"
import { blockedFunctions, checkReadOnly, checkSqlExposure, SqlRejected, tokenize } from "../../../src/clickhouse/sqlGuard.js"

// The engine's table functions as chdb 26.7 lists them (a sample: the gate reads the real list at start-up).
const blocked = blockedFunctions(["file", "url", "s3", "remote", "executable", "mysql", "numbers", "merge", "format", "values", "view"])

const rejected = (sql: string): SqlRejected => {
  try {
    checkReadOnly(sql, blocked)
  } catch (e) {
    if (e instanceof SqlRejected) return e
    throw e
  }
  throw new Error(`accepted: ${sql}`)
}

describe("checkReadOnly", () => {
  it.each([
    ["SELECT count() FROM transactions", undefined],
    ["select 1 format JSONEachRow", "JSONEachRow"],
    ["WITH 1 AS a SELECT a FORMAT JSONCompactEachRow;", "JSONCompactEachRow"],
    ["  -- a comment\nSHOW TABLES", undefined],
    ["DESCRIBE TABLE transactions", undefined],
    ["desc transactions", undefined],
    ["EXPLAIN SELECT 1", undefined],
    ["EXISTS TABLE transactions", undefined],
    ["(SELECT 1) UNION ALL (SELECT 2)", undefined],
    ["SELECT format('{}', 'x'), * FROM numbers(3) FORMAT TSV", "TSV"],
    ["SELECT * FROM (SELECT 1 FORMAT JSON)", undefined],
    ["SELECT 'a; DROP TABLE x' AS s", undefined],
    ["SELECT 'it''s; \\' ;' AS s", undefined],
    ["SELECT `weird;name` FROM t", undefined],
    ["SELECT 1 /* ; INSERT */", undefined],
    ["SELECT {n:UInt32} + 1", undefined]
  ])("accepts %j", (sql, format) => {
    const r = checkReadOnly(sql, blocked)
    expect(r.format).toBe(format)
    expect(r.sql.endsWith(";")).toBe(false)
  })

  it("drops the trailing semicolons and comments, so a SETTINGS clause can follow on a new line", () => {
    expect(checkReadOnly("SELECT 1 ; ; -- done", blocked).sql).toBe("SELECT 1")
    expect(checkReadOnly("SELECT 1 -- note\n", blocked).sql).toBe("SELECT 1")
  })

  it.each([
    ["INSERT INTO transactions VALUES (1)", 164],
    ["insert into t select 1", 164],
    ["DROP TABLE transactions", 164],
    ["ALTER TABLE t DELETE WHERE 1", 164],
    ["CREATE TABLE x (a Int8) ENGINE = Memory", 164],
    ["SET readonly = 0", 164],
    ["SYSTEM SHUTDOWN", 164],
    ["KILL QUERY WHERE 1", 164],
    ["OPTIMIZE TABLE t", 164],
    ["USE system", 164],
    ["TRUNCATE t", 164],
    ["SELECT 1; DROP TABLE transactions", 62],
    ["SELECT 1; SELECT 2", 62],
    ["SELECT 1 # ; INSERT INTO t VALUES (1)", 62],
    ["SELECT $$ ; $$", 62],
    ["SELECT * FROM file('/etc/passwd', 'LineAsString')", 164],
    ["SELECT file('/etc/passwd')", 164],
    ["SELECT * FROM `url`('http://x/', 'CSV')", 164],
    ["SELECT * FROM URL ('http://x/', 'CSV')", 164],
    ["SELECT * FROM s3 /* hidden */ ('http://x/')", 164],
    ["SELECT * FROM remote('h', system.one)", 164],
    ["SELECT * FROM executable('x', 'TSV', 'a String')", 164],
    ["SELECT 1 INTO OUTFILE '/tmp/x'", 164],
    ["", 62],
    [" ; ", 62],
    ["SELECT 'unterminated", 62],
    ["SELECT 1 /* unterminated", 62]
  ])("rejects %j with code %i", (sql, code) => {
    expect(rejected(sql).code).toBe(code)
  })

  it("names what it refuses", () => {
    expect(rejected("INSERT INTO t VALUES (1)").message).toMatch(/readonly mode.*got INSERT/)
    expect(rejected("SELECT * FROM url('http://x/', 'CSV')").message).toMatch(/url\(\) reaches outside the database/)
    expect(rejected("SELECT 1; SELECT 2").message).toMatch(/Multi-statements are not allowed/)
  })
})

describe("blockedFunctions", () => {
  it("blocks every table function that is not known to be safe, and the scalar file()", () => {
    expect([...blocked].sort()).toEqual(["executable", "file", "mysql", "remote", "s3", "url"])
    expect(blockedFunctions(["someFutureLake"]).has("somefuturelake")).toBe(true)
  })
})

describe("tokenize", () => {
  it("keeps strings and quoted names whole, and skips comments", () => {
    expect(tokenize("SELECT 'a''b', \"c\\\"d\" -- x\n/* y */ 1").map((t) => [t.kind, t.text])).toEqual([
      ["word", "SELECT"],
      ["string", "a'b"],
      ["punct", ","],
      ["quoted", 'c"d'],
      ["number", "1"]
    ])
  })
})

describe("checkSqlExposure", () => {
  it("allows loopback without credentials and anything else only with both", () => {
    expect(checkSqlExposure({ host: "127.0.0.1", user: "", password: "" })).toBeUndefined()
    expect(checkSqlExposure({ host: "::1", user: "", password: "" })).toBeUndefined()
    expect(checkSqlExposure({ host: "localhost", user: "", password: "" })).toBeUndefined()
    expect(checkSqlExposure({ host: "0.0.0.0", user: "u", password: "p" })).toBeUndefined()
    expect(checkSqlExposure({ host: "0.0.0.0", user: "", password: "" })).toMatch(/^SQL_HOST=0\.0\.0\.0: .*SQL_USER and SQL_PASSWORD/)
    expect(checkSqlExposure({ host: "10.0.0.5", user: "u", password: "" })).toMatch(/^SQL_HOST=10\.0\.0\.5/)
  })
})
