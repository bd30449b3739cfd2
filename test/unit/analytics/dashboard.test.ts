// The Grafana dashboard and its provisioning agree: every panel queries the provisioned ClickHouse data source by
// its uid with raw SQL over the analytics model, panels do not overlap, and the provider path is where the
// dashboard JSON is mounted. (The SQL itself runs against real data in test/integration/analytics-examples.)
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { repoRoot } from "../../../src/infra/kafkaBroker.js"

const dir = join(repoRoot, "dashboards")
const dashboard = JSON.parse(readFileSync(join(dir, "json/ton-overview.json"), "utf8"))
const datasources = readFileSync(join(dir, "provisioning/datasources/clickhouse.yaml"), "utf8")
const providers = readFileSync(join(dir, "provisioning/dashboards/ton.yaml"), "utf8")

interface Panel {
  id: number
  title: string
  datasource: { type: string; uid: string }
  gridPos: { x: number; y: number; w: number; h: number }
  targets: Array<{ datasource: { uid: string }; rawSql: string; editorType: string }>
}

describe("Grafana dashboard", () => {
  const panels = dashboard.panels as Array<Panel>
  const uid = /uid:\s*(\S+)/.exec(datasources)?.[1]

  it("uses the provisioned ClickHouse data source in every panel and target", () => {
    expect(datasources).toContain("type: grafana-clickhouse-datasource")
    expect(uid).toBeDefined()
    expect(panels.length).toBeGreaterThanOrEqual(10)
    for (const p of panels) {
      expect(p.datasource).toEqual({ type: "grafana-clickhouse-datasource", uid })
      expect(p.targets.length).toBeGreaterThan(0)
      for (const t of p.targets) {
        expect(t.datasource.uid).toBe(uid)
        expect(t.editorType).toBe("sql")
        expect(t.rawSql).toMatch(/\bFROM\b/)
      }
    }
  })

  it("has unique panel ids and non-overlapping panels on the 24-column grid", () => {
    expect(new Set(panels.map((p) => p.id)).size).toBe(panels.length)
    const cells = new Set<string>()
    for (const { gridPos: g, title } of panels) {
      expect(g.x + g.w, title).toBeLessThanOrEqual(24)
      for (let x = g.x; x < g.x + g.w; x++)
        for (let y = g.y; y < g.y + g.h; y++) {
          expect(cells.has(`${x},${y}`), `${title} overlaps at ${x},${y}`).toBe(false)
          cells.add(`${x},${y}`)
        }
    }
  })

  it("is loaded from the directory the provider reads", () => {
    expect(providers).toMatch(/path:\s*\/var\/lib\/grafana\/dashboards/)
  })
})
