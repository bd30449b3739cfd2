// Freeing a buffer's bytes when the program is done with them (src/ops/release.ts) and the producer's use of it after
// a Kafka transaction commits: a promoted buffer dropped the ordinary way keeps its bytes until the next full
// collection; released, they go at the next scavenge.
import { describe, expect, it } from "vitest"
import type { PublishItem } from "../../../src/kafka/BundlePublisher.js"
import { releaseBytes } from "../../../src/ops/release.js"
import type { Prepared } from "../../../src/producer/assemble.js"
import { releasePublished } from "../../../src/producer/Producer.js"
import { runScript, srcUrl } from "../../support/scriptProcess.js"

const moduleUrl = srcUrl("ops/release.ts")

/** MB of ArrayBuffer memory one scavenge frees after 40 promoted 1 MiB buffers are dropped, released first or not. */
const freedByScavenge = (release: boolean): number =>
  Number(
    runScript(
      `import { releaseBytes } from ${JSON.stringify(moduleUrl)}
const held = []
for (let i = 0; i < 40; i++) held.push(Buffer.allocUnsafeSlow(1 << 20).fill(i))
// promoted, as a bundle waiting for its Kafka transaction is
for (let i = 0; i < 3; i++) globalThis.gc({ type: "minor" })
const before = process.memoryUsage().arrayBuffers
${release ? "for (const b of held) if (!releaseBytes(b)) throw new Error('not released')" : ""}
held.length = 0
globalThis.gc({ type: "minor" })
// the sweep of the young generation's ArrayBuffers may finish on a helper thread: let it, and scavenge once more
await new Promise((r) => setTimeout(r, 100))
globalThis.gc({ type: "minor" })
process.stdout.write(String((before - process.memoryUsage().arrayBuffers) / 1048576))
`,
      { nodeArgs: ["--expose-gc"] }
    )
  )

describe("releaseBytes", () => {
  it("lets a promoted buffer's bytes go at the next scavenge, which otherwise keeps them", () => {
    expect(freedByScavenge(false)).toBeLessThan(4)
    expect(freedByScavenge(true)).toBeGreaterThan(36)
  }, 60_000)

  it("empties a buffer of its own, and leaves slices of a shared or larger buffer alone", () => {
    const own = Buffer.allocUnsafeSlow(10_000).fill(7)
    const view = own.subarray(100, 200)
    expect(releaseBytes(own)).toBe(true)
    expect(own.length).toBe(0)
    expect(view.length).toBe(0)
    expect(releaseBytes(own)).toBe(false)

    const pooled = Buffer.from("a short text from Node's shared pool")
    expect(pooled.buffer.byteLength).toBeGreaterThan(pooled.length)
    expect(releaseBytes(pooled)).toBe(false)
    expect(pooled.toString()).toBe("a short text from Node's shared pool")

    const big = Buffer.allocUnsafeSlow(4096).fill(1)
    expect(releaseBytes(big.subarray(0, 2048))).toBe(false)
    expect(big.length).toBe(4096)
    expect(releaseBytes(new Uint8Array(new SharedArrayBuffer(64)))).toBe(false)
    expect(releaseBytes(null)).toBe(false)
    expect(releaseBytes(undefined)).toBe(false)
  })
})

describe("releasePublished", () => {
  const bundle = (mcSeqno: number, valueBytes = 5000, draftBytes = 8000) => {
    const value = Buffer.allocUnsafeSlow(valueBytes).fill(mcSeqno)
    const drafts = Buffer.allocUnsafeSlow(draftBytes).fill(mcSeqno)
    const item = {
      mcSeqno,
      bundle: { key: String(mcSeqno), value, headers: {} },
      deadLetters: [],
      blocks: 1,
      transactions: 2,
      drafts: { bytes: drafts, list: [] },
      accountStates: []
    } as unknown as Prepared
    const filled = Buffer.concat([value, Buffer.from("x")])
    const published: PublishItem = {
      bundle: { key: String(mcSeqno), value: filled, headers: {} },
      deadLetters: [],
      transactions: [
        { key: "a", value: drafts.subarray(0, 4000), headers: {} },
        { key: "b", value: drafts.subarray(4000), headers: {} }
      ]
    }
    return { item, published }
  }

  it("frees a committed bundle's records and drafts, and nothing of other bundles", () => {
    const committed = [bundle(1), bundle(2)]
    const waiting = bundle(3)
    releasePublished(
      committed.map((b) => b.item),
      committed.map((b) => b.published)
    )
    for (const { item, published } of committed) {
      expect(item.bundle!.value.length).toBe(0)
      expect(item.drafts.bytes.byteLength).toBe(0)
      expect(published.bundle!.value.length).toBe(0)
      for (const t of published.transactions!) expect(t.value.length).toBe(0)
    }
    expect(waiting.item.bundle!.value.length).toBe(5000)
    expect(waiting.item.drafts.bytes.byteLength).toBe(8000)
    expect(waiting.published.transactions![1]!.value[0]).toBe(3)
  })

  it("with a size floor, frees only the committed bundles of at least that many bytes (records and drafts)", () => {
    const small = bundle(1)
    const large = bundle(2, 20_000, 30_000)
    releasePublished([small.item, large.item], [small.published, large.published], 50_000)
    expect(large.item.bundle!.value.length).toBe(0)
    expect(large.item.drafts.bytes.byteLength).toBe(0)
    expect(large.published.bundle!.value.length).toBe(0)
    expect(small.item.bundle!.value.length).toBe(5000)
    expect(small.item.drafts.bytes.byteLength).toBe(8000)
    expect(small.published.bundle!.value.length).toBe(5001)
  })
})
