/**
 * The WebAssembly SHA-256 (src/ton/fast/sha256Wasm.ts) against the JS one (src/ton/fast/sha256.ts, the reference)
 * and node:crypto: random messages of every length 0..300 bytes, batches of many, and every cell of every real
 * fixture transaction hashed by a CellStore of each kind (and its root against @ton/core's hash).
 */
import { createHash } from "node:crypto"
import { Cell } from "@ton/core"
import { describe, expect, it } from "vitest"
import { CellStore, OutsideFastPath } from "../../../src/ton/fast/cells.js"
import { sha256Into } from "../../../src/ton/fast/sha256.js"
import { BATCH, makeSha256Batch, sha256WasmOnce } from "../../../src/ton/fast/sha256Wasm.js"
import { fixtureCases } from "../../../tools/decodeDiff/run.js"
import { REAL } from "./support.js"

/** A deterministic byte stream (xorshift32), so a failure is reproducible. */
const bytesOf = (seed: number, len: number): Uint8Array => {
  let x = seed | 1
  const out = new Uint8Array(len)
  for (let i = 0; i < len; i++) {
    x ^= x << 13
    x ^= x >>> 17
    x ^= x << 5
    out[i] = x & 0xff
  }
  return out
}

const jsDigest = (data: Uint8Array): string => {
  const out = new Uint8Array(32)
  sha256Into(data, data.length, out, 0)
  return Buffer.from(out).toString("hex")
}

describe("sha256 in WebAssembly", () => {
  const batch = makeSha256Batch()

  it("loads on this runtime", () => {
    expect(batch).toBeDefined()
  })

  it("equals the JS SHA-256 and node:crypto on random messages of every length 0..300", () => {
    for (let len = 0; len <= 300; len++) {
      for (let seed = 1; seed <= 8; seed++) {
        const data = bytesOf(len * 31 + seed, len)
        const got = Buffer.from(sha256WasmOnce(batch!, data)).toString("hex")
        expect(got, `length ${len} seed ${seed}`).toBe(jsDigest(data))
        expect(got, `length ${len} seed ${seed}`).toBe(createHash("sha256").update(data).digest("hex"))
      }
    }
  })

  it("hashes a full batch of messages of mixed lengths in one call", () => {
    const b = batch!
    const messages = Array.from({ length: BATCH }, (_, j) => bytesOf(j + 1, (j * 37) % 301))
    for (const m of messages) b.mem.set(m, b.message(m.length))
    expect(b.full()).toBe(true)
    expect(b.run()).toBe(BATCH)
    messages.forEach((m, j) => {
      const got = Buffer.from(b.mem.subarray(b.outAt + j * 32, b.outAt + j * 32 + 32)).toString("hex")
      expect(got, `message ${j}`).toBe(jsDigest(m))
    })
  })

  it("gives every cell of every real fixture transaction the JS hasher's hash, and @ton/core's root hash", () => {
    const wasm = new CellStore("wasm")
    const js = new CellStore("js")
    expect(wasm.hasher).toBe("wasm")
    expect(js.hasher).toBe("js")
    const cases = fixtureCases(REAL)
    expect(cases.length).toBeGreaterThan(1500)
    let cells = 0
    let outsideFastPath = 0
    // hashAll throws only after hashing every cell (two cells of one hash): the hashes are compared either way
    const hashAll = (s: CellStore) => {
      try {
        s.hashAll()
      } catch (e) {
        if (!(e instanceof OutsideFastPath)) throw e
      }
    }
    for (const c of cases) {
      const bytes = Buffer.from(c.boc, "base64")
      try {
        wasm.parse(bytes)
      } catch (e) {
        if (!(e instanceof OutsideFastPath)) throw e
        outsideFastPath++
        continue
      }
      js.parse(bytes)
      hashAll(wasm)
      hashAll(js)
      const n = wasm.bocCells
      expect(js.bocCells).toBe(n)
      expect(wasm.hashes.subarray(0, n * 32).equals(js.hashes.subarray(0, n * 32)), c.source).toBe(true)
      expect(wasm.hashB64(wasm.root), c.source).toBe(Cell.fromBoc(bytes)[0]!.hash().toString("base64"))
      cells += n
    }
    // the few the fast path leaves to @ton/core (exotic cells in a transaction) have no store hashes to compare
    expect(outsideFastPath).toBeLessThan(cases.length / 20)
    expect(cells).toBeGreaterThan(10 * cases.length)
  })
})
