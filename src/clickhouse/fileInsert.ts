/**
 * Large pre-encoded insert bodies handed to the embedded engine through a file (`INSERT ... FROM INFILE`) instead of
 * chdb's raw insert, which counts the body's lines byte by byte and copies it twice into fresh memory before the
 * engine parses it: for the page tables' megabytes of rendered text that was most of their insert CPU (BENCHMARKS.md,
 * "Ingest: the consumer's large inserts through a file"). Invariant: the statement is the same INSERT of the same
 * bytes in the same format with the same settings (deduplication token included), only where the engine reads the
 * data from differs; a spool file lives from just before its statement to just after it, and the directory is
 * emptied when the engine opens (files a killed process left behind).
 */
import { mkdirSync, rmSync } from "node:fs"
import { unlink, writeFile } from "node:fs/promises"
import { join } from "node:path"

/**
 * Bodies at least this long go through a file. Below it the file's write, the statement and the unlink cost more
 * than the raw path's copies (the one-row-per-block tables: +0.7-0.9 us per transaction each when filed).
 */
export const FILE_INSERT_BYTES = 1 << 20

/** Where an engine's spool files live: inside its data directory, so no other location must be writable. */
export const spoolDir = (dataPath: string): string => join(dataPath, "insert_spool")

/** An empty spool directory for an engine this process has just opened. */
export const resetSpool = (dataPath: string): void => {
  const dir = spoolDir(dataPath)
  rmSync(dir, { recursive: true, force: true })
  mkdirSync(dir, { recursive: true })
}

/** A ClickHouse string literal. */
export const stringLiteral = (s: string): string => `'${s.replace(/\\/g, "\\\\").replace(/'/g, "\\'")}'`

/** `name = value, ...` of a SETTINGS clause (numbers as they are, anything else as a string literal). */
export const settingsClause = (settings: Record<string, string | number>, ident: (name: string) => string): string =>
  Object.entries(settings)
    .map(([k, v]) => `${ident(k)} = ${typeof v === "number" ? v : stringLiteral(String(v))}`)
    .join(", ")

/**
 * The INSERT of `file`'s rows into `table` (already qualified and quoted). No compression is named explicitly:
 * FROM INFILE would otherwise guess one from the file name's extension.
 */
export const fileInsertStatement = (o: {
  readonly table: string
  /** Quoted; absent: every column of the table, in its order. */
  readonly columns?: ReadonlyArray<string> | undefined
  readonly format: string
  readonly file: string
  readonly settings: string
}): string =>
  `INSERT INTO ${o.table}${o.columns === undefined ? "" : ` (${o.columns.join(", ")})`} FROM INFILE ${stringLiteral(o.file)} COMPRESSION 'none'` +
  `${o.settings === "" ? "" : ` SETTINGS ${o.settings}`} FORMAT ${o.format}`

let serial = 0

/**
 * Runs `use` with `body` (one buffer, or chunks written one after another) in a fresh spool file of `dataPath`,
 * removed afterwards whatever `use` does.
 */
export const withSpoolFile = async <A>(
  dataPath: string,
  body: Buffer | ReadonlyArray<Buffer>,
  use: (file: string) => Promise<A>
): Promise<A> => {
  const file = join(spoolDir(dataPath), `${process.pid}-${++serial}.body`)
  try {
    await writeFile(file, body)
    return await use(file)
  } finally {
    await unlink(file).catch(() => undefined)
  }
}
