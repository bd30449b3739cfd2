// Every example query of sql/examples runs against real mainnet blocks stored by the pipeline's own flattening (one
// batch stored twice, as a replay would), and returns the figures computed here, independently, from the decoded
// records. A new example without an expectation below fails the suite.
import type { ClickHouseClient } from "@clickhouse/client"
import { readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { flattenBundles } from "../../src/flatten/index.js"
import { Cell } from "@ton/core"
import { opcodeName } from "../../src/ton/bodies/decode.js"
import type { TransactionRecord } from "../../src/ton/record.js"
import { repoRoot, testClickHouse, type TestClickHouse } from "../support/integration.js"
import { insertTables } from "../support/storeRows.js"
import { realBlockBundles } from "../unit/store/realBlocks.js"

const EXAMPLES = join(repoRoot, "sql/examples")
const { bundles } = realBlockBundles()
const txs: ReadonlyArray<TransactionRecord> = bundles.flatMap((b) => b.transactions)

let handle: TestClickHouse
let client: ClickHouseClient

type Row = Record<string, string | null>
const norm = (r: Record<string, unknown>): Row =>
  Object.fromEntries(Object.entries(r).map(([k, v]) => [k, v === null ? null : String(v)]))

const run = async (file: string, params: Record<string, unknown>): Promise<Array<Row>> => {
  const query = readFileSync(join(EXAMPLES, file), "utf8")
  const rs = await client.query({ query, query_params: params, format: "JSONEachRow" })
  return (await rs.json<Record<string, unknown>>()).map(norm)
}

const day = (t: number) => new Date(t * 1000).toISOString().slice(0, 10)
const hour = (t: number) => `${new Date(t * 1000).toISOString().slice(0, 13).replace("T", " ")}:00:00`
const dateTime = (t: number) => new Date(t * 1000).toISOString().slice(0, 19).replace("T", " ")
const aborted = (t: TransactionRecord) => t.description.aborted === true
const groupBy = <K, V>(xs: ReadonlyArray<V>, key: (v: V) => K): Map<K, Array<V>> => {
  const m = new Map<K, Array<V>>()
  for (const x of xs) m.set(key(x), [...(m.get(key(x)) ?? []), x])
  return m
}
const sorted = <K extends string | number>(m: Map<K, unknown>) =>
  [...m.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
const sum = (xs: ReadonlyArray<string | null>) => xs.reduce((s, x) => s + BigInt(x ?? "0"), 0n)
const delivered = txs.flatMap((t) => (t.in_msg === null ? [] : [{ tx: t, msg: t.in_msg }]))
const internal = delivered.filter((d) => d.msg.type === "int")

const TIME = { from_time: "2000-01-01 00:00:00", to_time: "2100-01-01 00:00:00" }
const DAYS = { from_day: "2000-01-01", to_day: "2099-12-31" }
const ALL_SEQNOS = { from_seqno: 0, to_seqno: 4_294_967_295 }

const byAccount = groupBy(txs, (t) => t.account)
const accountSummary = (account: string, list: ReadonlyArray<TransactionRecord>) => ({
  account,
  transactions: String(list.length),
  aborted: String(list.filter(aborted).length),
  total_fees: String(sum(list.map((t) => t.total_fees))),
  first_seen: dateTime(Math.min(...list.map((t) => t.now))),
  last_seen: dateTime(Math.max(...list.map((t) => t.now)))
})
const topAccounts = [...byAccount.entries()].sort(
  ([a, x], [b, y]) => y.length - x.length || (a < b ? -1 : a > b ? 1 : 0)
)
const busiest = topAccounts[0]![0]

const expectations: Record<string, () => { params: Record<string, unknown>; rows: Array<Row> }> = {
  "01_daily_activity.sql": () => {
    const days = groupBy(txs, (t) => day(t.now))
    return {
      params: TIME,
      rows: sorted(days).map((d) => {
        const l = days.get(d)!
        return {
          day: d,
          transactions: String(l.length),
          successful: String(l.filter((t) => !aborted(t)).length),
          aborted: String(l.filter(aborted).length),
          active_accounts: String(new Set(l.map((t) => t.account)).size)
        }
      })
    }
  },
  "02_fee_trend.sql": () => {
    const days = groupBy(txs, (t) => day(t.now))
    return {
      params: TIME,
      rows: sorted(days).map((d) => {
        const fees = sum(days.get(d)!.map((t) => t.total_fees))
        return { day: d, total_fees: String(fees), avg_fee_per_tx: String(fees / BigInt(days.get(d)!.length)) }
      })
    }
  },
  "03_top_opcodes.sql": () => {
    const ops = groupBy(internal, (d) => d.msg.opcode ?? -1)
    const rows = [...ops.entries()]
      .map(([op, l]) => ({ op, n: l.length, value: sum(l.map((d) => d.msg.value)) }))
      .sort((a, b) => b.n - a.n || a.op - b.op)
      .slice(0, 5)
      .map((r) => ({
        opcode: String(r.op),
        opcode_hex: r.op < 0 ? "none" : `0x${r.op.toString(16).padStart(8, "0")}`,
        decoded_opcode: r.op < 0 ? null : opcodeName(r.op),
        messages: String(r.n),
        value: String(r.value)
      }))
    return { params: { ...TIME, top: 5 }, rows }
  },
  "04_account_summary.sql": () => {
    const list = byAccount.get(busiest)!
    return {
      params: { ...DAYS, account: busiest },
      rows: [{ ...accountSummary(busiest, list), active_days: String(new Set(list.map((t) => day(t.now))).size) }]
    }
  },
  "05_account_history.sql": () => {
    const list = [...byAccount.get(busiest)!].sort((a, b) => (BigInt(b.lt) > BigInt(a.lt) ? 1 : -1)).slice(0, 7)
    return {
      params: { ...ALL_SEQNOS, account: busiest, limit: 7 },
      rows: list.map((t) => ({
        lt: t.lt,
        hash: t.hash,
        now: String(t.now),
        total_fees: t.total_fees,
        aborted: String(aborted(t)),
        in_type: t.in_msg?.type ?? null,
        in_source: t.in_msg?.source ?? null,
        in_value: t.in_msg?.value ?? null
      }))
    }
  },
  "06_bounced_rate.sql": () => {
    const days = groupBy(internal, (d) => day(d.tx.now))
    return {
      params: TIME,
      rows: sorted(days).map((d) => {
        const l = days.get(d)!
        const b = l.filter((x) => x.msg.bounced === true).length
        return {
          day: d,
          internal_in: String(l.length),
          bounced_in: String(b),
          bounced_rate: String(Math.round((b / l.length) * 1e6) / 1e6)
        }
      })
    }
  },
  "07_jetton_transfer_volume.sql": () => {
    const days = groupBy(
      internal.filter((d) => d.msg.opcode === 0x0f8a7ea5),
      (d) => day(d.tx.now)
    )
    return {
      params: TIME,
      rows: sorted(days).map((d) => ({
        day: d,
        transfers: String(days.get(d)!.length),
        ton_attached: String(sum(days.get(d)!.map((x) => x.msg.value))),
        bounced: String(days.get(d)!.filter((x) => x.msg.bounced === true).length)
      }))
    }
  },
  "08_top_contracts.sql": () => ({
    params: { ...DAYS, top: 5 },
    rows: topAccounts.slice(0, 5).map(([a, l]) => accountSummary(a, l))
  }),
  "09_value_moved.sql": () => {
    const all = groupBy(txs, (t) => day(t.now))
    const days = groupBy(internal, (d) => day(d.tx.now))
    return {
      params: TIME,
      rows: sorted(all).map((d) => ({
        day: d,
        value_moved: String(sum((days.get(d) ?? []).map((x) => x.msg.value))),
        internal_in: String((days.get(d) ?? []).length)
      }))
    }
  },
  "10_external_messages.sql": () => {
    const hours = groupBy(
      delivered.filter((d) => d.msg.type === "ext_in"),
      (d) => hour(d.tx.now)
    )
    return { params: TIME, rows: sorted(hours).map((h) => ({ hour: h, external_in: String(hours.get(h)!.length) })) }
  },
  "11_exit_codes.sql": () => {
    const code = (t: TransactionRecord) => {
      const c = t.description.compute_ph
      return c === undefined || c.skipped ? null : c.exit_code
    }
    const codes = groupBy(txs.filter(aborted), code)
    const rows = [...codes.entries()]
      .sort(([a, x], [b, y]) => y.length - x.length || (a === null ? 1 : b === null ? -1 : a - b))
      .map(([c, l]) => ({ exit_code: c === null ? null : String(c), transactions: String(l.length) }))
    return { params: ALL_SEQNOS, rows }
  },
  "12_new_accounts.sql": () => {
    const firsts = groupBy([...byAccount.values()], (l) => day(Math.min(...l.map((t) => t.now))))
    return { params: DAYS, rows: sorted(firsts).map((d) => ({ day: d, new_accounts: String(firsts.get(d)!.length) })) }
  },
  "14_jetton_amounts.sql": () => {
    // TEP-74 transfer layout read with @ton/core: op, query_id, amount, then the payload's Either bit after
    // destination, response destination, custom payload and forward amount; a comment is op 0 and UTF-8 text.
    const utf8 = new TextDecoder("utf-8", { fatal: true })
    const read = (boc: string): { amount: bigint; comment: boolean } => {
      try {
        const s = Cell.fromBase64(boc).beginParse()
        s.skip(32 + 64)
        const amount = s.loadCoins()
        s.loadAddressAny()
        s.loadAddressAny()
        s.loadMaybeRef()
        s.loadCoins()
        const p = s.loadBit() ? s.loadRef().beginParse() : s
        if (p.remainingBits < 32 || p.loadUint(32) !== 0) return { amount, comment: false }
        try {
          utf8.decode(p.loadBuffer(p.remainingBits / 8))
          return { amount, comment: p.remainingRefs === 0 }
        } catch {
          return { amount, comment: false }
        }
      } catch {
        return { amount: 0n, comment: false }
      }
    }
    const days = groupBy(
      internal.filter((d) => d.msg.opcode === 0x0f8a7ea5),
      (d) => day(d.tx.now)
    )
    return {
      params: ALL_SEQNOS,
      rows: sorted(days).map((d) => {
        const parsed = days.get(d)!.map((x) => read(x.msg.body.boc))
        return {
          day: d,
          transfers: String(parsed.length),
          jetton_amount: String(parsed.reduce((a, x) => a + x.amount, 0n)),
          with_comment: String(parsed.filter((x) => x.comment).length)
        }
      })
    }
  },
  "13_ingest_progress.sql": () => {
    const seqnos = bundles.map((b) => b.mc_seqno)
    const first = Math.min(...seqnos)
    const last = Math.max(...seqnos)
    return {
      params: {},
      rows: [
        {
          done_blocks: String(seqnos.length),
          first_seqno: String(first),
          last_seqno: String(last),
          missing_inside: String(last - first + 1 - seqnos.length),
          transactions: String(txs.length)
        }
      ]
    }
  }
}

beforeAll(async () => {
  handle = await testClickHouse("analytics examples")
  client = handle.client
  await insertTables(client, flattenBundles(bundles))
  await insertTables(client, flattenBundles(bundles.slice(2, 5)))
})

afterAll(async () => {
  await handle?.close()
})

describe("sql/examples against real mainnet blocks", () => {
  const files = readdirSync(EXAMPLES)
    .filter((f) => f.endsWith(".sql"))
    .sort()

  it("has an expectation for every example and at least a dozen examples", () => {
    expect(files.length).toBeGreaterThanOrEqual(12)
    expect(files).toEqual(Object.keys(expectations).sort())
  })

  it.each(files)("%s returns the figures computed from the decoded records", async (file) => {
    const want = expectations[file]!()
    expect(want.rows.length).toBeGreaterThan(0)
    const got = await run(file, want.params)
    expect(got).toEqual(want.rows)
  })

  it("every Grafana panel query runs on the same data and answers", async () => {
    const dashboard = JSON.parse(readFileSync(join(repoRoot, "dashboards/json/ton-overview.json"), "utf8"))
    for (const panel of dashboard.panels as Array<{ title: string; targets: Array<{ rawSql: string }> }>) {
      for (const t of panel.targets) {
        // What the data source plugin's macros expand to, over a range that holds every fixture block.
        const query = t.rawSql
          .replaceAll("$__fromTime", "toDateTime(946684800)")
          .replaceAll("$__toTime", "toDateTime(4102444800)")
        expect(query, panel.title).not.toContain("$__")
        const rs = await client.query({ query, format: "JSONEachRow" })
        expect((await rs.json()).length, panel.title).toBeGreaterThan(0)
      }
    }
  })

  it("the fixtures exercise the interesting examples (not only empty answers)", async () => {
    expect(internal.filter((d) => d.msg.opcode === 0x0f8a7ea5).length).toBeGreaterThan(0)
    expect(internal.filter((d) => d.msg.bounced === true).length).toBeGreaterThan(0)
    expect(txs.filter(aborted).length).toBeGreaterThan(0)
  })
})
