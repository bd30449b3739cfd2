import { describe, expect, it } from "vitest"
import { assignTraceIds, externalParents } from "../../../src/trace/traceIds.js"
import { Lru } from "../../../src/trace/Lru.js"
import { hashOf, msg, tx } from "./records.js"

const noHistory = { get: () => undefined }

describe("assignTraceIds", () => {
  it("follows internal messages across a bundle regardless of the order transactions are listed in", () => {
    const a = tx("a", 10, msg("ext", "ext_in"), [msg("a->b"), msg("a->c")])
    const b = tx("b", 20, msg("a->b"), [msg("b->d")])
    const c = tx("c", 21, msg("a->c"))
    const d = tx("d", 30, msg("b->d"))
    const [out] = assignTraceIds([[d, c, b, a]], noHistory, "own-hash")
    expect(out!.map((t) => t.trace_id)).toEqual([hashOf("a"), hashOf("a"), hashOf("a"), hashOf("a")])
  })

  it("starts a trace at tick-tock and at transactions without an in-msg", () => {
    const tick = tx("tick", 5, null, [msg("tick->x")], "tick_tock")
    const x = tx("x", 6, msg("tick->x"))
    const [out] = assignTraceIds([[tick, x]], noHistory, "own-hash")
    expect(out!.map((t) => t.trace_id)).toEqual([hashOf("tick"), hashOf("tick")])
  })

  it("resolves parents in earlier bundles of the same batch, then in history, then by the missing rule", () => {
    const a = tx("a", 10, msg("e", "ext_in"), [msg("a->b")])
    const b = tx("b", 100, msg("a->b"))
    const fromHistory = tx("h", 101, msg("old->h"))
    const orphan = tx("o", 102, msg("unknown->o"))
    const history = { get: (m: string) => (m === msg("old->h").hash ? "ROOT" : undefined) }
    const learned = new Map<string, string>()
    const out = assignTraceIds([[a], [b, fromHistory, orphan]], history, "own-hash", (m, t) => learned.set(m, t))
    expect(out[1]!.map((t) => t.trace_id)).toEqual([hashOf("a"), "ROOT", hashOf("o")])
    expect(learned.get(msg("a->b").hash)).toBe(hashOf("a"))
    const producerView = assignTraceIds([[b, orphan]], noHistory, "leave-null")
    expect(producerView[0]!.map((t) => t.trace_id)).toEqual([null, null])
  })

  it("keeps an id a transaction already carries (the producer's) and passes it on to its children", () => {
    const b = { ...tx("b", 100, msg("old->b"), [msg("b->c")]), trace_id: "PRODUCERS" }
    const c = tx("c", 101, msg("b->c"))
    const [out] = assignTraceIds([[c, b]], noHistory, "own-hash")
    expect(out!.map((t) => t.trace_id)).toEqual(["PRODUCERS", "PRODUCERS"])
  })

  it("lists only in-msgs whose sender is outside the given transactions", () => {
    const a = tx("a", 10, msg("e", "ext_in"), [msg("a->b")])
    const b = tx("b", 20, msg("a->b"))
    const c = tx("c", 30, msg("z->c"))
    expect(externalParents([a, b, c])).toEqual([msg("z->c").hash])
  })

  it("lists no parent for a transaction that carries its id or starts a trace: assignment never asks history", () => {
    const carried = { ...tx("p", 40, msg("y->p")), trace_id: "PRODUCERS" }
    const tock = tx("t", 41, msg("w->t"), [], "tick_tock")
    const open = tx("o", 42, msg("v->o"))
    expect(externalParents([carried, tock, open])).toEqual([msg("v->o").hash])
    // the same answers as when history is asked about every outside sender
    const asked: Array<string> = []
    const history = { get: (m: string) => (asked.push(m), m === msg("v->o").hash ? "ROOT" : undefined) }
    const [out] = assignTraceIds([[carried, tock, open]], history, "own-hash")
    expect(out!.map((t) => t.trace_id)).toEqual(["PRODUCERS", hashOf("t"), "ROOT"])
    expect(asked).toEqual([msg("v->o").hash])
  })
})

describe("Lru", () => {
  it("evicts the least recently used entry", () => {
    const lru = new Lru<string, number>(2)
    lru.set("a", 1)
    lru.set("b", 2)
    expect(lru.get("a")).toBe(1)
    lru.set("c", 3)
    expect(lru.get("b")).toBeUndefined()
    expect(lru.get("a")).toBe(1)
    expect(lru.size).toBe(2)
  })

  it("counts its lookups' hits and misses and tells what it holds", () => {
    const lru = new Lru<string, string>(100, { maxWeight: 10, weigh: (v) => v.length })
    expect(lru.stats()).toEqual({ entries: 0, weight: 0, hits: 0, misses: 0 })
    lru.set("a", "xyz")
    lru.get("a")
    lru.get("a")
    lru.get("b")
    expect(lru.stats()).toEqual({ entries: 1, weight: 3, hits: 2, misses: 1 })
  })
})

describe("Lru with a weight budget", () => {
  it("keeps the total weight within the budget, evicting the least recently used first", () => {
    const lru = new Lru<string, string>(100, { maxWeight: 10, weigh: (v) => v.length })
    lru.set("a", "xxxx")
    lru.set("b", "yyyy")
    expect(lru.get("a")).toBe("xxxx")
    lru.set("c", "zzzz")
    expect(lru.get("b")).toBeUndefined()
    expect(lru.get("a")).toBe("xxxx")
    expect(lru.get("c")).toBe("zzzz")
    expect(lru.weight).toBe(8)
  })

  it("does not keep a value heavier than the whole budget, and replacing or deleting an entry gives its weight back", () => {
    const lru = new Lru<string, string>(100, { maxWeight: 10, weigh: (v) => v.length })
    lru.set("a", "xx")
    lru.set("big", "x".repeat(11))
    expect(lru.get("big")).toBeUndefined()
    expect(lru.get("a")).toBe("xx")
    lru.set("a", "xxxxx")
    expect(lru.weight).toBe(5)
    lru.delete("a", "other")
    expect(lru.weight).toBe(5)
    lru.delete("a")
    expect([lru.size, lru.weight]).toEqual([0, 0])
  })

  it("still holds at most `capacity` entries", () => {
    const lru = new Lru<number, string>(2, { maxWeight: 1000, weigh: (v) => v.length })
    for (let i = 0; i < 5; i++) lru.set(i, "x")
    expect([lru.size, lru.weight]).toEqual([2, 2])
  })
})
