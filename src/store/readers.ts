/**
 * The connections the API's store reads through. On embedded chdb: native sessions on the process's engine (same
 * data directory), each bound to the database and given the read settings ONCE when opened, so a statement runs
 * alone (through @clickhouse/client every statement carries a `USE` and one `SET` per setting, which costs the engine
 * more than a small page read itself); several sessions run the statements of concurrent requests side by side.
 * A server is read through the handle's client alone (its HTTP agent already keeps a pool of connections).
 * Invariant: the sessions only read, their settings are exactly `clickHouseSettings`, `readSettings` and
 * `sessionReadSettings` (which change how a statement runs, never what it answers; so answers are
 * the client's, byte for byte), and `close` closes exactly the sessions made here.
 */
import type { Session } from "chdb"
import { createRequire } from "node:module"
import { clickHouseSettings, type ClickHouseHandle } from "../clickhouse/ClickHouse.js"
import { clientReader, readSettings, type ReadConnection } from "./Store.js"

/**
 * Settings of the API's own sessions beyond the client's, none of which changes an answer: a page reads a few hundred
 * rows, so one thread per statement (four sessions already run four statements side by side, on two cores) spares
 * the per-statement pipeline and thread start-up, and lazy materialization (read the sort columns, sort, then read
 * the long text columns by row number) reads the same granules twice for a one-granule key range.
 */
export const sessionReadSettings = {
  max_threads: 1,
  query_plan_optimize_lazy_materialization: 0
} as const

export interface ReadClients {
  readonly clients: ReadonlyArray<ReadConnection>
  readonly close: () => Promise<void>
}

const settingValue = (v: unknown): string =>
  typeof v === "number" ? String(v) : typeof v === "boolean" ? (v ? "1" : "0") : `'${String(v).replace(/'/g, "''")}'`

/** The statements that prepare a read session: its database, then every setting the client would send. */
export const sessionSetup = (database: string): Array<string> => {
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(database)) throw new Error(`not a plain identifier: ${JSON.stringify(database)}`)
  const settings = { ...clickHouseSettings, ...readSettings, ...sessionReadSettings } as Record<string, unknown>
  return [
    `USE ${database}`,
    ...Object.entries(settings)
      .filter(([, v]) => v !== undefined)
      .map(([k, v]) => `SET ${k} = ${settingValue(v)}`)
  ]
}

/** chdb's sessions, loaded only on the embedded engine (an API on CLICKHOUSE_URL never maps libchdb.so). */
const loadSession = (): typeof Session => (createRequire(import.meta.url)("chdb") as { Session: typeof Session }).Session

/** A native chdb session prepared for reads; its statements answer JSONEachRow text. */
const sessionReader = (path: string, database: string): { reader: ReadConnection; close: () => void } => {
  const session = new (loadSession())(path)
  for (const statement of sessionSetup(database)) session.query(statement)
  return {
    reader: {
      jsonEachRow: async (sql) => (await session.queryAsync(sql, { format: "JSONEachRow" })).text(),
      // the statement's FORMAT clause decides; this is only the engine's default
      text: async (sql) => (await session.queryAsync(sql, { format: "TabSeparatedRaw" })).text(),
      bytes: async (sql) => {
        const b = (await session.queryAsync(sql, { format: "TabSeparatedRaw" })).bytes()
        return Buffer.from(b.buffer, b.byteOffset, b.byteLength)
      }
    },
    close: () => session.close()
  }
}

export const readClients = (ch: ClickHouseHandle, sessions: number): ReadClients => {
  if (ch.backend !== "chdb") return { clients: [clientReader(ch.client)], close: async () => {} }
  const opened = Array.from({ length: Math.max(1, sessions) }, () => sessionReader(ch.location, ch.database))
  return {
    clients: opened.map((o) => o.reader),
    close: async () => {
      for (const o of opened) o.close()
    }
  }
}
