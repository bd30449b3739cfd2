/**
 * The run-time replacements of @ton/core internals (src/ton/fastHash.ts) against the library's own functions on every
 * real BOC we have: whole blocks (Merkle updates, pruned branches), their transactions, and toncenter's BOCs. Cells,
 * hashes at every level, depths, decoded records and errors on damaged bags must be the same with and without them.
 */
import { beginCell, BitString, Cell } from "@ton/core"
import { createRequire } from "node:module"
import fs from "node:fs"
import path from "node:path"
import { Either } from "effect"
import { describe, expect, it } from "vitest"
import { isBase64 } from "../../../src/ton/boc.js"
import { extractBlock } from "../../../src/ton/block.js"
import { decodeTransaction } from "../../../src/ton/decode.js"
import {
  crc32c,
  fastBitsToPaddedBuffer,
  installFastCellHash,
  LIBRARY_ORIGINAL,
  replaceableFunctions,
  withLazyCellHashes
} from "../../../src/ton/fastHash.js"
import { listReal, readRealJson, REAL } from "./support.js"
import { goJson } from "../../../src/api/json.js"
import { decodeBodyBoc } from "../../../src/ton/bodies/decode.js"
import { fixtureBodies } from "../../../tools/markerParity/parity.js"

const require = createRequire(import.meta.url)
installFastCellHash()

type Fn = ((...args: Array<any>) => any) & { [LIBRARY_ORIGINAL]?: (...args: Array<any>) => any }

/**
 * Runs `f` with the replaced functions put back to the library's own, then reinstalls the replacements. SHA-256 stays
 * node:crypto's (checked at install, and the digest is the standard's) so the library's cell paths run in seconds.
 */
const withLibrary = <A>(f: () => A): A => {
  const swapped = replaceableFunctions()
    .filter(({ name }) => name !== "sha256_sync")
    .map(({ holder, name }) => {
      const fast = holder[name] as Fn
      holder[name] = fast[LIBRARY_ORIGINAL]
      return () => (holder[name] = fast)
    })
  try {
    return f()
  } finally {
    for (const restore of swapped) restore()
  }
}

const blockFiles = listReal("blocks").filter((f) => /\.(boc|hex\.txt|b64\.txt)$/.test(f))
const blockBytes = (f: string): Buffer => {
  const full = path.join(REAL, "blocks", f)
  if (f.endsWith(".boc")) return fs.readFileSync(full)
  const text = fs.readFileSync(full, "utf8").trim()
  return Buffer.from(text, f.endsWith(".hex.txt") ? "hex" : "base64")
}

const collectBocs = (value: unknown, out: Array<string>): Array<string> => {
  if (typeof value === "string") {
    if (value.startsWith("te6c")) out.push(value)
  } else if (value !== null && typeof value === "object") {
    for (const v of Object.values(value)) collectBocs(v, out)
  }
  return out
}

/** Every BOC of the real fixtures: whole blocks, and the BOC strings of the block, v2, v3 and tx-bocs JSON files. */
const corpus = (): Array<{ where: string; bytes: Buffer }> => {
  const out: Array<{ where: string; bytes: Buffer }> = blockFiles.map((f) => ({ where: f, bytes: blockBytes(f) }))
  for (const dir of ["blocks", "v2", "v3", "tx-bocs"]) {
    for (const f of listReal(dir).filter((x) => x.endsWith(".json"))) {
      collectBocs(readRealJson(`${dir}/${f}`), []).forEach((b64, i) =>
        out.push({ where: `${dir}/${f}#${i}`, bytes: Buffer.from(b64, "base64") })
      )
    }
  }
  return out
}

/** Everything observable about a cell tree, every cell visited once per path. */
const describeTree = (root: Cell): Array<string> => {
  const out: Array<string> = []
  const seen = new Set<Cell>()
  const walk = (c: Cell) => {
    if (seen.has(c)) return
    seen.add(c)
    const levels = [0, 1, 2, 3].map((l) => `${c.hash(l).toString("hex")}/${c.depth(l)}`).join(",")
    // the level-0 hash covers the data bits and every ref; other levels and depths are compared as well
    out.push(`${c.type} ${c.mask.value} ${c.bits.length} ${c.refs.length} ${levels}`)
    c.refs.forEach(walk)
  }
  walk(root)
  return out
}

const outcome = (bytes: Buffer): string => {
  try {
    return Cell.fromBoc(bytes).flatMap(describeTree).join("\n")
  } catch (e) {
    return `error: ${e instanceof Error ? e.message : String(e)}`
  }
}

describe("fast @ton/core internals", () => {
  const bocs = corpus()

  it("installs every replacement (each one agreed with the library on its samples)", () => {
    const missing = replaceableFunctions()
      .filter(({ holder, name }) => !(LIBRARY_ORIGINAL in (holder[name] as Fn)))
      .map((f) => f.name)
    expect(missing).toEqual([])
  })

  it("parses every real BOC into the same cells, hashes and depths at every level", () => {
    expect(bocs.length).toBeGreaterThan(100)
    let cells = 0
    for (const { where, bytes } of bocs) {
      const fast = outcome(bytes)
      const lib = withLibrary(() => outcome(bytes))
      expect(fast, where).toBe(lib)
      cells += fast.split("\n").length
    }
    // whole blocks hold Merkle updates and pruned branches: the library's own paths for levels above 0
    expect(cells).toBeGreaterThan(10000)
  })

  it("parses every real BOC with hashes made when asked for into the same cells, hashes and depths at every level", () => {
    let lazy = 0
    for (const { where, bytes } of bocs) {
      // cells made lazily, hashed afterwards (describeTree asks for every level, parents before their children)
      const parsed = (() => {
        try {
          return withLazyCellHashes(() => Cell.fromBoc(bytes))
        } catch (e) {
          return `error: ${e instanceof Error ? e.message : String(e)}`
        }
      })()
      if (typeof parsed !== "string") {
        const made = parsed[0] as unknown as { _hashes: { constructor: { name: string } } }
        if (made._hashes.constructor.name === "LazyHashes") lazy++
      }
      const seen = typeof parsed === "string" ? parsed : parsed.flatMap(describeTree).join("\n")
      expect(seen, where).toBe(withLibrary(() => outcome(bytes)))
    }
    // the replaced path did make lazy cells (ordinary roots of the transactions and toncenter's BOCs)
    expect(lazy).toBeGreaterThan(100)
    // outside the scope, cells are hashed as they are made
    const eager = Cell.fromBoc(bocs[bocs.length - 1]!.bytes)[0] as unknown as { _hashes: unknown }
    expect(Array.isArray(eager._hashes)).toBe(true)
  })

  it("makes lazily parsed ordinary cells without per-cell closures, reading, hashing and printing as the library's", () => {
    let light = 0
    for (const { where, bytes } of bocs) {
      let parsed: Array<Cell>
      try {
        parsed = withLazyCellHashes(() => Cell.fromBoc(bytes))
      } catch {
        continue
      }
      const lib = withLibrary(() => Cell.fromBoc(bytes))
      parsed.forEach((root, i) => {
        const ref = lib[i]!
        expect(root).toBeInstanceOf(Cell)
        expect(Object.isFrozen(root), where).toBe(true)
        if (!Object.hasOwn(root, "beginParse")) light++
        expect(root.toBoc().equals(ref.toBoc()), where).toBe(true)
        if (bytes.length < 4096) expect(root.toString(), where).toBe(ref.toString())
        expect(root.equals(ref) && root.level() === ref.level() && root.isExotic === ref.isExotic, where).toBe(true)
        const [a, b] = [root.beginParse(true), ref.beginParse(true)]
        expect([a.remainingBits, a.remainingRefs], where).toEqual([b.remainingBits, b.remainingRefs])
        if (a.remainingRefs > 0) expect(a.loadRef().hash().equals(b.loadRef().hash()), where).toBe(true)
      })
    }
    // the roots of the transactions' and toncenter's BOCs are ordinary: light
    expect(light).toBeGreaterThan(100)
    // outside the scope, the library's constructor makes them
    expect(Object.hasOwn(Cell.fromBoc(bocs[bocs.length - 1]!.bytes)[0]!, "beginParse")).toBe(true)
  })

  it("hashes a cell built afterwards over lazily made children as the library does", () => {
    // the children hash themselves when first asked, inside the parent's own hashing: their representation must not
    // overwrite the parent's in the shared scratch buffer
    let checked = 0
    for (const { where, bytes } of bocs.filter((_, i) => i % 10 === 0)) {
      const build = (root: Cell) => {
        const b = beginCell().storeUint(checked, 64).storeRef(root)
        if (root.refs.length > 0) b.storeRef(root.refs[0]!)
        return b.endCell()
      }
      let lazyRoot: Cell
      try {
        lazyRoot = withLazyCellHashes(() => Cell.fromBoc(bytes))[0]!
      } catch {
        continue
      }
      if (lazyRoot.level() !== 0) continue
      const built = build(lazyRoot)
      const reference = withLibrary(() => build(Cell.fromBoc(bytes)[0]!))
      expect(built.hash().toString("hex"), where).toBe(reference.hash().toString("hex"))
      expect(built.depth(), where).toBe(reference.depth())
      checked++
    }
    expect(checked).toBeGreaterThan(20)
  })

  it("decodes every body of the real blocks (parsed with lazy hashes) as with the library's internals", () => {
    const bodies = fixtureBodies(REAL).map((b) => b.cell.toBoc().toString("base64"))
    expect(bodies.length).toBeGreaterThan(400)
    const fast = bodies.map((b) => goJson(decodeBodyBoc(b)))
    expect(fast.filter((t) => t !== "null").length).toBeGreaterThan(100)
    expect(fast).toEqual(withLibrary(() => bodies.map((b) => goJson(decodeBodyBoc(b)))))
  })

  it("fails on damaged bags exactly as the library does", () => {
    const damaged: Array<Buffer> = []
    for (const { bytes } of bocs.filter((_, i) => i % 20 === 0)) {
      for (const cut of [3, 5, 9, Math.floor(bytes.length / 2), bytes.length - 5, bytes.length - 1]) {
        damaged.push(bytes.subarray(0, cut))
      }
      for (const at of [4, 5, 6, 7, 12, 20, bytes.length - 2]) {
        const copy = Buffer.from(bytes)
        copy[at] = copy[at]! ^ 0x5a
        damaged.push(copy)
      }
      const legacy = Buffer.from(bytes)
      legacy.writeUInt32BE(0x68ff65f3, 0)
      damaged.push(legacy)
    }
    for (const bytes of damaged) expect(outcome(bytes)).toBe(withLibrary(() => outcome(bytes)))
  })

  it("decodes every transaction of the real blocks into the same record", () => {
    let n = 0
    for (const f of blockFiles) {
      const block = extractBlock(blockBytes(f))
      if (Either.isLeft(block)) throw new Error(`${f}: ${block.left.message}`)
      const h = block.right.header
      const ctx = { block: h, mc_block_seqno: h.seqno }
      for (const t of block.right.transactions) {
        const fast = decodeTransaction(t.boc, ctx, { exoticBodies: "keep" })
        const lib = withLibrary(() => decodeTransaction(t.boc, ctx, { exoticBodies: "keep" }))
        expect(fast).toEqual(lib)
        n++
      }
    }
    expect(n).toBeGreaterThan(1000)
  })

  it("pads cell data, reads uints and buffers at every bit offset as the library does", () => {
    const { BitReader } = require("@ton/core/dist/boc/BitReader.js")
    const padded = require("@ton/core/dist/boc/utils/paddedBits.js")
    const bytes = Buffer.alloc(140)
    for (let i = 0; i < bytes.length; i++) bytes[i] = (i * 151 + 7) & 0xff
    for (let offset = 0; offset < 10; offset++) {
      for (const length of [0, 1, 7, 8, 9, 63, 64, 65, 255, 256, 257, 300, 1000, 1023]) {
        const bits = new BitString(bytes, offset, length)
        expect(fastBitsToPaddedBuffer(bits)).toEqual(withLibrary(() => padded.bitsToPaddedBuffer(bits)))
        const reader = new BitReader(bits)
        for (const n of [0, 1, 8, 13, 48, 49, 64, 97, 256, 300]) {
          for (const at of [0, 1, 7]) {
            const read = () => {
              try {
                return [reader._preloadUint(n, at), reader._preloadBuffer(n >> 3, at).toString("hex")]
              } catch (e) {
                return String(e)
              }
            }
            expect(read()).toEqual(withLibrary(read))
          }
        }
      }
    }
  })

  it("computes the library's CRC32C", () => {
    const lib = require("@ton/core/dist/utils/crc32c.js")
    for (const { bytes } of bocs.slice(0, 50)) {
      const b = bytes.subarray(0, bytes.length - 4)
      expect(lib.crc32c(b)).toEqual(withLibrary(() => lib.crc32c(b)))
      expect(crc32c(b)).toBe(withLibrary(() => lib.crc32c(b)).readUInt32LE(0))
    }
  })
})

describe("isBase64", () => {
  const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=|[A-Za-z0-9+/]{2,3})?$/
  const BASE64_URL = /^(?:[A-Za-z0-9_-]{4})*(?:[A-Za-z0-9_-]{2}==|[A-Za-z0-9_-]{3}=|[A-Za-z0-9_-]{2,3})?$/
  const reference = (s: string) => BASE64.test(s) || BASE64_URL.test(s)

  it("accepts exactly what the standard and url-safe base64 expressions accept, on every short string", () => {
    const alphabet = "A9+/-_=.é"
    const mismatches: Array<string> = []
    for (let len = 0; len <= 6; len++) {
      for (let k = 0; k < alphabet.length ** len; k++) {
        let s = ""
        for (let i = 0, x = k; i < len; i++, x = Math.floor(x / alphabet.length)) s += alphabet[x % alphabet.length]
        if (isBase64(s) !== reference(s)) mismatches.push(s)
      }
    }
    expect(mismatches).toEqual([])
  })

  it("accepts real BOCs in both alphabets and refuses them with a stray character", () => {
    for (const b64 of collectBocs(readRealJson(`v3/${listReal("v3").find((f) => f.includes("traces"))}`), [])) {
      const url = b64.replace(/\+/g, "-").replace(/\//g, "_")
      expect([isBase64(b64), isBase64(url), isBase64(`${b64.slice(0, 8)}!${b64.slice(9)}`)]).toEqual([
        true,
        true,
        false
      ])
    }
  })
})
