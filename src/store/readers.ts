/**
 * The clients the API's store reads through. Embedded chdb runs the statements of one session one after another, so
 * the store gets extra sessions on the process's engine (same data directory, same database binding as
 * ClickHouse.ts's own client) to run the statements of concurrent requests side by side; a server is read through
 * the handle's client alone (its HTTP agent already keeps a pool of connections).
 * Invariant: the extra sessions only read, and `close` closes exactly the sessions made here.
 */
import { createClient, type ClickHouseClient } from "@clickhouse/client"
import { createChdbConnection } from "chdb/connection"
import {
  clickHouseSettings,
  inDatabase,
  type ClickHouseHandle,
  type ClientConnection
} from "../clickhouse/ClickHouse.js"

export interface ReadClients {
  readonly clients: ReadonlyArray<ClickHouseClient>
  readonly close: () => Promise<void>
}

export const readClients = (ch: ClickHouseHandle, sessions: number): ReadClients => {
  if (ch.backend !== "chdb" || sessions <= 1) return { clients: [ch.client], close: async () => {} }
  const extra = Array.from({ length: sessions - 1 }, () => {
    const base = createChdbConnection({ path: ch.location })
    const connection = { ...inDatabase(base, ch.database), close: () => base.close() }
    return createClient({ connection: connection as unknown as ClientConnection, clickhouse_settings: clickHouseSettings })
  })
  return {
    clients: [ch.client, ...extra],
    close: async () => {
      for (const c of extra) await c.close()
    }
  }
}
