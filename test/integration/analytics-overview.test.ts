// End to end: real mainnet blocks stored in ClickHouse, the overview plugin served on loopback, the page opened in
// the system's headless Chromium (Debian package, no browser download). The figures the page shows must equal the
// same figures queried from the base tables. UPDATE_SCREENSHOTS=1 rewrites docs/screenshots/overview.png.
import type { ClickHouseClient } from "@clickhouse/client"
import Fastify, { type FastifyInstance } from "fastify"
import { mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { chromium, type BrowserContext } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { overviewRoutes } from "../../src/analytics/page/routes.js"
import { flattenBundles } from "../../src/flatten/index.js"
import { repoRoot, testClickHouse, type TestClickHouse } from "../support/integration.js"
import { insertTables } from "../support/storeRows.js"
import { realBlockBundles } from "../unit/store/realBlocks.js"

const CHROMIUM = process.env.CHROMIUM_PATH || "/usr/bin/chromium"
// Pinned before anything is written, so every insert falls inside the page's throughput window.
const NOW = Math.floor(Date.now() / 1000)
const { bundles } = realBlockBundles()

let handle: TestClickHouse
let client: ClickHouseClient
let app: FastifyInstance
let context: BrowserContext
let profile: string
let base: string

const rows = async <T = Record<string, string>>(query: string): Promise<Array<T>> =>
  (await client.query({ query, format: "JSONEachRow" })).json<T>()

const fmt = (n: number | string) => Number(n).toLocaleString("en-US")
const ton = (nano: string) => {
  const v = BigInt(nano)
  return `${(v / 1_000_000_000n).toLocaleString("en-US")}.${(v % 1_000_000_000n).toString().padStart(9, "0")}`
}

beforeAll(async () => {
  handle = await testClickHouse("analytics overview")
  client = handle.client
  await insertTables(client, flattenBundles(bundles))
  app = Fastify()
  await app.register(overviewRoutes, { client, now: () => NOW })
  base = await app.listen({ host: "127.0.0.1", port: 0 })
  profile = mkdtempSync(join(tmpdir(), "overview-chromium-"))
  context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    viewport: { width: 1280, height: 900 },
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync"
    ]
  })
})

afterAll(async () => {
  await context?.close()
  await app?.close()
  await handle?.close()
  if (profile !== undefined) rmSync(profile, { recursive: true, force: true })
})

describe("overview page in headless Chromium", () => {
  it("shows ingest progress, latest blocks and daily activity equal to ClickHouse", async () => {
    const page = await context.newPage()
    const failed: Array<string> = []
    page.on("requestfailed", (r) => failed.push(r.url()))
    page.on("request", (r) => {
      if (!r.url().startsWith(base)) failed.push(`outside loopback: ${r.url()}`)
    })
    await page.goto(`${base}/overview?days=36500`)
    await page.waitForSelector("body[data-ready=true]", { timeout: 60_000 })
    const text = async (sel: string) => (await page.textContent(sel))?.trim()
    const table = (id: string) =>
      page.$$eval(`#${id} tbody tr`, (trs) =>
        trs.map((tr) => [...tr.querySelectorAll("td")].map((td) => td.textContent))
      )

    const [progress] = await rows(`SELECT uniqExact(mc_seqno) AS done, max(mc_seqno) AS last FROM mc_blocks_done`)
    const [txs] = await rows("SELECT count() AS n FROM transactions FINAL")
    expect(Number(progress!.done)).toBe(bundles.length)
    expect(await text("#done-blocks")).toBe(fmt(progress!.done!))
    expect(await text("#last-seqno")).toBe(String(progress!.last))
    expect(await text("#tx-total")).toBe(fmt(txs!.n!))
    expect(await text("#pending")).toBe("0")
    const [lastGen] = await rows(
      `SELECT max(gen_utime) AS t FROM blocks WHERE mc_block_seqno = (SELECT max(mc_seqno) FROM mc_blocks_done)`
    )
    const lagDays = Math.round((NOW - Number(lastGen!.t)) / 86_400)
    expect(await text("#lag")).toBe(`${lagDays} d`)

    const latest = await rows(
      `SELECT toString(mc_seqno) AS s, toString(any(tx_count)) AS n FROM mc_blocks_done GROUP BY mc_seqno
       ORDER BY mc_seqno DESC LIMIT 10`
    )
    const shownLatest = await table("latest-blocks")
    expect(shownLatest.map((r) => [r[0], r[3]])).toEqual(latest.map((r) => [r.s, fmt(r.n!)]))

    const daily = await rows(
      `SELECT toString(toDate(toDateTime(t.now, 'UTC'))) AS day, count() AS n,
              countIf(NOT ifNull(t.aborted, false)) AS ok,
              countIf(ifNull(t.aborted, false)) AS bad, uniqExact(t.account) AS accounts,
              toString(sum(toUInt128(t.total_fees))) AS fees
       FROM transactions AS t FINAL GROUP BY day ORDER BY day`
    )
    const value = await rows(
      `SELECT toString(toDate(toDateTime(tx_now, 'UTC'))) AS day, countIf(direction = 'in') AS msgs,
              countIf(direction = 'in' AND type = 'int' AND ifNull(bounced, false)) AS bounced,
              toString(sumIf(ifNull(value, toUInt128(0)), direction = 'in' AND type = 'int')) AS value
       FROM messages FINAL GROUP BY day ORDER BY day`
    )
    expect(daily.length).toBeGreaterThan(2)
    const shownDaily = await table("daily")
    expect(shownDaily).toEqual(
      daily.map((d, i) => [
        d.day,
        fmt(d.n!),
        fmt(d.ok!),
        fmt(d.bad!),
        fmt(d.accounts!),
        fmt(value[i]!.msgs!),
        fmt(value[i]!.bounced!),
        ton(d.fees!),
        ton(value[i]!.value!)
      ])
    )
    // Messages by decoded opcode name, from the base table's own decoded_opcode column.
    const named = await rows(
      `SELECT toString(toDate(toDateTime(tx_now, 'UTC'))) AS day, decoded_opcode AS name, count() AS n,
              toString(sum(ifNull(value, toUInt128(0)))) AS value
       FROM messages FINAL WHERE direction = 'in' AND type = 'int' AND decoded_opcode IS NOT NULL
       GROUP BY day, name ORDER BY day, n DESC, name`
    )
    expect(named.some((r) => r.name === "jetton_transfer")).toBe(true)
    expect(await table("opcodes")).toEqual(named.map((r) => [r.day, r.name, fmt(r.n!), ton(r.value!)]))
    const barValues = await page.$$eval("#chart-daily-tx rect", (rs) => rs.map((r) => r.getAttribute("data-value")))
    expect(barValues).toEqual(daily.map((d) => String(d.n)))
    const throughput = await page.$$eval("#chart-throughput rect", (rs) =>
      rs.map((r) => Number(r.getAttribute("data-value")))
    )
    const [written] = await rows("SELECT sum(transactions) AS n FROM analytics_tx_mc")
    expect(throughput.length).toBeGreaterThan(0)
    expect(throughput.reduce((a, b) => a + b, 0)).toBe(Number(written!.n))

    // The kept screenshot changes with every run (clock, throughput minute): it is rewritten on request only.
    const shot =
      process.env.UPDATE_SCREENSHOTS === "1"
        ? join(repoRoot, "docs/screenshots/overview.png")
        : join(profile, "overview.png")
    await page.screenshot({ path: shot, fullPage: true })
    expect(readFileSync(shot).subarray(1, 4).toString()).toBe("PNG")
    expect(failed).toEqual([])
  })
})
