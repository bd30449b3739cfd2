// The spool-file insert's pieces: the statement it sends, the quoting of its settings and path, and the spool file's
// life (written before the statement, removed after it whatever happens, stale files cleared when an engine opens).
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import {
  fileInsertStatement,
  resetSpool,
  settingsClause,
  spoolDir,
  stringLiteral,
  withSpoolFile
} from "../../../src/clickhouse/fileInsert.js"

const dirs: Array<string> = []
const dataDir = () => {
  const d = mkdtempSync(join(tmpdir(), "file-insert-"))
  dirs.push(d)
  return d
}
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true })
})

describe("fileInsertStatement", () => {
  it("names the columns, the file without guessing its compression, the settings and the format", () => {
    expect(
      fileInsertStatement({
        table: "db.v3_pages",
        columns: ["mc_block_seqno", "asc_rank", "lines"],
        format: "TabSeparated",
        file: "/data/insert_spool/1-1.body",
        settings: settingsClause({ session_timezone: "UTC", output_format_json_quote_64bit_integers: 1 }, (n) => n)
      })
    ).toBe(
      "INSERT INTO db.v3_pages (mc_block_seqno, asc_rank, lines) FROM INFILE '/data/insert_spool/1-1.body' " +
        "COMPRESSION 'none' SETTINGS session_timezone = 'UTC', output_format_json_quote_64bit_integers = 1 FORMAT TabSeparated"
    )
  })

  it("leaves the SETTINGS clause out when there is none", () => {
    expect(fileInsertStatement({ table: "t", columns: ["a"], format: "TabSeparated", file: "/f", settings: "" })).toBe(
      "INSERT INTO t (a) FROM INFILE '/f' COMPRESSION 'none' FORMAT TabSeparated"
    )
  })

  it("quotes backslashes and quotes of paths and string settings", () => {
    expect(stringLiteral("/a'b\\c")).toBe("'/a\\'b\\\\c'")
    expect(settingsClause({ insert_deduplication_token: "x'y" }, (n) => n)).toBe("insert_deduplication_token = 'x\\'y'")
  })
})

describe("spool files", () => {
  it("hold the body while the statement runs and are removed after it", async () => {
    const data = dataDir()
    resetSpool(data)
    const seen = await withSpoolFile(data, Buffer.from("1\tx\n"), async (file) => {
      expect(file.startsWith(spoolDir(data))).toBe(true)
      return readFileSync(file, "utf8")
    })
    expect(seen).toBe("1\tx\n")
    expect(readdirSync(spoolDir(data))).toEqual([])
  })

  it("hold a body given as chunks as those chunks one after another", async () => {
    const data = dataDir()
    resetSpool(data)
    const chunks = [Buffer.from("1\tx\n2\t"), Buffer.alloc(0), Buffer.from("y\n"), Buffer.from("3\tz\n")]
    const seen = await withSpoolFile(data, chunks, async (file) => readFileSync(file, "utf8"))
    expect(seen).toBe("1\tx\n2\ty\n3\tz\n")
    expect(readdirSync(spoolDir(data))).toEqual([])
  })

  it("are removed when the statement fails, and the failure reaches the caller", async () => {
    const data = dataDir()
    resetSpool(data)
    await expect(
      withSpoolFile(data, Buffer.from("x"), async () => {
        throw new Error("engine refused")
      })
    ).rejects.toThrow("engine refused")
    expect(readdirSync(spoolDir(data))).toEqual([])
  })

  it("get distinct names, so statements of one process never share a file", async () => {
    const data = dataDir()
    resetSpool(data)
    const names = await Promise.all([1, 2, 3].map(() => withSpoolFile(data, Buffer.from("x"), async (f) => f)))
    expect(new Set(names).size).toBe(3)
  })

  it("left behind by a killed process are cleared when the engine opens", () => {
    const data = dataDir()
    resetSpool(data)
    writeFileSync(join(spoolDir(data), "123-4.body"), "stale")
    resetSpool(data)
    expect(existsSync(spoolDir(data))).toBe(true)
    expect(readdirSync(spoolDir(data))).toEqual([])
  })
})
