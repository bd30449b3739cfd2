/**
 * The connections the API's store reads through. On embedded chdb: native sessions on the process's engine (same
 * data directory), each bound to the database and given the read settings ONCE when opened, so a statement runs
 * alone (through @clickhouse/client every statement carries a `USE` and one `SET` per setting, which costs the engine
 * more than a small page read itself); several sessions run the statements of concurrent requests side by side.
 * A server is read through the handle's client alone (its HTTP agent already keeps a pool of connections).
 * Invariant: the sessions only read, their settings are exactly `clickHouseSettings` and `readSettings` (so answers are
 * the client's, byte for byte), and `close` closes exactly the sessions made here.
 */
import { Session } from "chdb"
import { clickHouseSettings, type ClickHouseHandle } from "../clickhouse/ClickHouse.js"
import { clientReader, readSettings, type ReadConnection } from "./Store.js"

export interface ReadClients {
  readonly clients: ReadonlyArray<ReadConnection>
  readonly close: () => Promise<void>
}

const settingValue = (v: unknown): string =>
  typeof v === "number" ? String(v) : typeof v === "boolean" ? (v ? "1" : "0") : `'${String(v).replace(/'/g, "''")}'`

/** The statements that prepare a read session: its database, then every setting the client would send. */
export const sessionSetup = (database: string): Array<string> => {
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(database)) throw new Error(`not a plain identifier: ${JSON.stringify(database)}`)
  const settings = { ...clickHouseSettings, ...readSettings } as Record<string, unknown>
  return [
    `USE ${database}`,
    ...Object.entries(settings)
      .filter(([, v]) => v !== undefined)
      .map(([k, v]) => `SET ${k} = ${settingValue(v)}`)
  ]
}

/** A native chdb session prepared for reads; its statements answer JSONEachRow text. */
const sessionReader = (path: string, database: string): { reader: ReadConnection; close: () => void } => {
  const session = new Session(path)
  for (const statement of sessionSetup(database)) session.query(statement)
  return {
    reader: {
      jsonEachRow: async (sql) => (await session.queryAsync(sql, { format: "JSONEachRow" })).text()
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
