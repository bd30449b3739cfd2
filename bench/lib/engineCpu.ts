// One insert statement's CPU on the embedded engine, both ways the insert benches count it: the process's CPU while
// the statement ran, and the statement's threads by the engine's own count (system.events' user and system time,
// read before and after; the counters are the engine's, over every thread it ran the statement on).
import type { ClickHouseHandle, EncodedInsert } from "../../src/clickhouse/ClickHouse.js"
import { processCpuSeconds } from "../../src/ops/cpu.js"

/** system.events of the embedded engine, event -> value. */
export const engineEvents = async (ch: ClickHouseHandle): Promise<Map<string, number>> => {
  const r = await ch.embedded!.run("SELECT event, value FROM system.events", { format: "TSV" })
  const out = new Map<string, number>()
  for (const line of Buffer.from(r.bytes).toString("utf8").split("\n")) {
    const [k, v] = line.split("\t")
    if (k !== undefined && k !== "" && v !== undefined) out.set(k, Number(v))
  }
  return out
}

/** The engine's threads' CPU seconds (user + system) in a reading of system.events. */
export const engineThreadsCpu = (e: ReadonlyMap<string, number>): number =>
  ((e.get("UserTimeMicroseconds") ?? 0) + (e.get("SystemTimeMicroseconds") ?? 0)) / 1e6

/** Runs one insert: the process's CPU seconds while it ran, the engine's threads' seconds, and its events' deltas. */
export const measuredInsert = async (
  ch: ClickHouseHandle,
  insert: EncodedInsert
): Promise<{ readonly process: number; readonly engine: number; readonly events: Map<string, number> }> => {
  const e0 = await engineEvents(ch)
  const t0 = processCpuSeconds()
  await ch.insertEncoded(insert)
  const spent = processCpuSeconds() - t0
  const e1 = await engineEvents(ch)
  const events = new Map<string, number>()
  for (const [k, v] of e1) events.set(k, v - (e0.get(k) ?? 0))
  return { process: spent, engine: engineThreadsCpu(e1) - engineThreadsCpu(e0), events }
}
