/**
 * The pure rules of the re-decode (src/store/redecode.ts): what a store's recorded decoder version asks of this
 * build, when a body's stored values are stale, and that the text it writes is the text a fresh ingest writes
 * (src/flatten/message_contents.ts) for real bodies of the block fixtures.
 */
import { describe, expect, it } from "vitest"
import { messageContentRows } from "../../../src/flatten/message_contents.js"
import { decodedText, decoderPlan, isStale } from "../../../src/store/redecode.js"
import { realBlockBundles } from "./realBlocks.js"

describe("decoderPlan", () => {
  it("re-decodes a store written by an older decoder (0: none recorded), leaves a current or newer one", () => {
    expect(decoderPlan(0, 1)).toBe("redecode")
    expect(decoderPlan(1, 2)).toBe("redecode")
    expect(decoderPlan(2, 2)).toBe("current")
    expect(decoderPlan(3, 2)).toBe("newer")
  })
})

describe("isStale", () => {
  it("is fresh only when every row of the hash holds exactly the fresh value", () => {
    expect(isStale(['{"@type":"a"}'], '{"@type":"a"}')).toBe(false)
    expect(isStale([null], null)).toBe(false)
    expect(isStale(['{"@type":"a"}'], '{"@type":"b"}')).toBe(true)
    expect(isStale([null], '{"@type":"a"}')).toBe(true)
    expect(isStale(['{"@type":"a"}'], null)).toBe(true)
    // Two copies not merged yet, one of them old: stale, so both are rewritten.
    expect(isStale(['{"@type":"a"}', null], '{"@type":"a"}')).toBe(true)
    expect(isStale([], null)).toBe(true)
  })
})

describe("decodedText", () => {
  it("is what a fresh ingest writes into message_contents.decoded, for every body of the real blocks", () => {
    const rows = messageContentRows(realBlockBundles().bundles.flatMap((b) => b.transactions))
    const bodies = rows.filter((r) => r.decoded !== null)
    expect(bodies.length).toBeGreaterThan(10)
    for (const r of bodies) expect(decodedText(r.boc), r.hash).toBe(r.decoded)
  })
})
