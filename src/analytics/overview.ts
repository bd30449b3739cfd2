/**
 * What the overview page shows, read from ClickHouse in one call: ingest progress and lag, write throughput per
 * minute, the latest masterchain blocks, per-day / per-hour activity from the analytics views and the delivered
 * internal messages per day by decoded opcode name (`jetton_transfer`, `nft_transfer`, ...).
 * Invariant: every figure counts completed masterchain blocks only (the same marker rule as the API), and 64-bit
 * quantities stay decimal strings so nothing is rounded on the way to the browser.
 */
import type { ClickHouseClient } from "@clickhouse/client"

export interface OverviewProgress {
  readonly done_blocks: number
  readonly first_mc_seqno: number | null
  readonly last_mc_seqno: number | null
  /** Newest generation time among the blocks the last done masterchain block commits. */
  readonly last_gen_utime: number | null
  /** Seconds between `generated_at` and `last_gen_utime`. */
  readonly lag_seconds: number | null
  readonly transactions: number
  /** Masterchain blocks with rows but no completion marker (a batch in flight or cut short). */
  readonly pending_blocks: number
}

export interface OverviewBlock {
  readonly mc_seqno: number
  readonly gen_utime: number
  readonly block_count: number
  readonly tx_count: number
}

export interface OverviewMinute {
  /** Unix seconds of the minute the rows were written. */
  readonly minute: number
  readonly transactions: number
}

export interface OverviewDay {
  readonly day: string
  readonly transactions: number
  readonly successful: number
  readonly aborted: number
  readonly total_fees: string
  readonly active_accounts: number
  readonly messages_in: number
  readonly bounced_in: number
  readonly value_moved: string
}

export interface OverviewHour {
  readonly hour: number
  readonly transactions: number
  readonly active_accounts: number
}

/** Delivered internal messages of one day and one named opcode (opcodes the decoding scheme does not name are left out). */
export interface OverviewOpcodeDay {
  readonly day: string
  readonly name: string
  readonly messages: number
  readonly value: string
}

export interface OverviewData {
  readonly generated_at: number
  readonly progress: OverviewProgress
  readonly latest_blocks: ReadonlyArray<OverviewBlock>
  readonly throughput: ReadonlyArray<OverviewMinute>
  readonly hourly: ReadonlyArray<OverviewHour>
  readonly daily: ReadonlyArray<OverviewDay>
  readonly opcodes_daily: ReadonlyArray<OverviewOpcodeDay>
}

export interface OverviewOptions {
  /** Days of activity before the newest day with data (not before today: a backfill of old blocks still shows). */
  readonly days: number
  readonly latestBlocks: number
  readonly throughputMinutes: number
  /** Unix seconds "now" (tests pin it). */
  readonly now: number
}

const rows = async <T>(client: ClickHouseClient, query: string, query_params: Record<string, unknown> = {}) =>
  (await client.query({ query, query_params, format: "JSONEachRow" })).json<T>()

const toNum = (v: unknown): number => Number(v)
const orNull = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v))

export const readOverview = async (client: ClickHouseClient, options: OverviewOptions): Promise<OverviewData> => {
  const [p] = await rows<Record<string, unknown>>(
    client,
    `SELECT count() AS done_blocks, if(count() = 0, NULL, min(mc_seqno)) AS first_mc_seqno,
            if(count() = 0, NULL, max(mc_seqno)) AS last_mc_seqno, sum(tx_count) AS transactions
     FROM (SELECT mc_seqno, any(tx_count) AS tx_count FROM mc_blocks_done GROUP BY mc_seqno)`
  )
  const last = orNull(p?.last_mc_seqno)
  const [g] =
    last === null
      ? [undefined]
      : await rows<{ t: number | string }>(
          client,
          "SELECT max(gen_utime) AS t FROM blocks WHERE mc_block_seqno = {s:UInt32}",
          { s: last }
        )
  const gen = g === undefined ? null : toNum(g.t)
  // Pending blocks are looked for above the last done one only: the cleanup keeps everything below complete.
  const [pending] = await rows<{ n: number | string }>(
    client,
    `SELECT uniqExact(mc_seqno) AS n FROM mc_shard_blocks
     WHERE mc_seqno > {s:UInt32} AND mc_seqno NOT IN (SELECT mc_seqno FROM mc_blocks_done WHERE mc_seqno > {s:UInt32})`,
    { s: last ?? 0 }
  )
  const progress: OverviewProgress = {
    done_blocks: toNum(p?.done_blocks ?? 0),
    first_mc_seqno: orNull(p?.first_mc_seqno),
    last_mc_seqno: last,
    last_gen_utime: gen,
    lag_seconds: gen === null ? null : Math.max(0, options.now - gen),
    transactions: toNum(p?.transactions ?? 0),
    pending_blocks: toNum(pending?.n ?? 0)
  }

  // Read in key order from the end: LIMIT 1 BY collapses a replayed marker without a full FINAL merge.
  const markers = await rows<Record<string, unknown>>(
    client,
    `SELECT mc_seqno, block_count, tx_count FROM mc_blocks_done
     ORDER BY mc_seqno DESC LIMIT 1 BY mc_seqno LIMIT {k:UInt32}`,
    { k: options.latestBlocks }
  )
  const seqnos = markers.map((r) => toNum(r.mc_seqno))
  const gens = await rows<{ s: number | string; t: number | string }>(
    client,
    "SELECT mc_block_seqno AS s, max(gen_utime) AS t FROM blocks WHERE mc_block_seqno IN {l:Array(UInt32)} GROUP BY s",
    { l: seqnos }
  )
  const genOf = new Map(gens.map((r) => [toNum(r.s), toNum(r.t)]))
  const latest = markers.map((r): Record<string, unknown> => ({ ...r, gen_utime: genOf.get(toNum(r.mc_seqno)) ?? 0 }))

  // Write throughput counts every stored attempt: it is what the writer did, replays included.
  const throughput = await rows<Record<string, unknown>>(
    client,
    `SELECT toUnixTimestamp(toStartOfMinute(inserted_at)) AS minute, sum(transactions) AS transactions
     FROM analytics_tx_mc WHERE inserted_at >= toDateTime({from:UInt32}, 'UTC')
     GROUP BY minute ORDER BY minute`,
    { from: options.now - options.throughputMinutes * 60 }
  )

  const [newest] = await rows<{ h: number | string }>(
    client,
    "SELECT toUnixTimestamp(ifNull(max(hour), toDateTime(0, 'UTC'))) AS h FROM analytics_tx_mc"
  )
  const to = toNum(newest?.h ?? 0) + 3600
  const from = Math.max(0, to - options.days * 86_400)
  const range = { from, to }
  const hourly = await rows<Record<string, unknown>>(
    client,
    `SELECT toUnixTimestamp(hour) AS hour, transactions, active_accounts
     FROM analytics_hourly(from_time = toDateTime({from:UInt32}, 'UTC'), to_time = toDateTime({to:UInt32}, 'UTC'))
     WHERE hour >= toDateTime({to:UInt32} - 48 * 3600, 'UTC') ORDER BY hour`,
    range
  )
  const daily = await rows<Record<string, unknown>>(
    client,
    `SELECT toString(day) AS day, transactions, successful, aborted, toString(total_fees) AS total_fees,
            active_accounts, messages_in, bounced_in, toString(value_moved) AS value_moved
     FROM analytics_daily(from_time = toDateTime({from:UInt32}, 'UTC'), to_time = toDateTime({to:UInt32}, 'UTC'))
     ORDER BY day`,
    range
  )
  const opcodes = await rows<Record<string, unknown>>(
    client,
    `SELECT toString(a.day) AS day, n.name AS name, sum(a.messages) AS messages, toString(sum(a.value)) AS value
     FROM analytics_opcodes(from_time = toDateTime({from:UInt32}, 'UTC'), to_time = toDateTime({to:UInt32}, 'UTC')) AS a
     INNER JOIN (SELECT opcode, any(name) AS name FROM opcode_names GROUP BY opcode) AS n ON n.opcode = a.opcode
     WHERE a.direction = 'in' AND a.type = 'int'
     GROUP BY day, name
     ORDER BY day, messages DESC, name`,
    range
  )

  return {
    generated_at: options.now,
    progress,
    latest_blocks: latest.map((r) => ({
      mc_seqno: toNum(r.mc_seqno),
      gen_utime: toNum(r.gen_utime),
      block_count: toNum(r.block_count),
      tx_count: toNum(r.tx_count)
    })),
    throughput: throughput.map((r) => ({ minute: toNum(r.minute), transactions: toNum(r.transactions) })),
    hourly: hourly.map((r) => ({
      hour: toNum(r.hour),
      transactions: toNum(r.transactions),
      active_accounts: toNum(r.active_accounts)
    })),
    daily: daily.map((r) => ({
      day: String(r.day),
      transactions: toNum(r.transactions),
      successful: toNum(r.successful),
      aborted: toNum(r.aborted),
      total_fees: String(r.total_fees),
      active_accounts: toNum(r.active_accounts),
      messages_in: toNum(r.messages_in),
      bounced_in: toNum(r.bounced_in),
      value_moved: String(r.value_moved)
    })),
    opcodes_daily: opcodes.map((r) => ({
      day: String(r.day),
      name: String(r.name),
      messages: toNum(r.messages),
      value: String(r.value)
    }))
  }
}
