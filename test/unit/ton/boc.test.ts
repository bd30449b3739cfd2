import { beginCell, Cell } from "@ton/core"
import { describe, expect, it } from "vitest"
import { crc32c, parseBoc, serializeBoc, serializeBocBase64 } from "../../../src/ton/boc.js"
import { err, listReal, ok, readReal, readRealJson, yamlResponseBodies } from "./support.js"

const BLOCKPI = "v2/blockpi-official-docs__v2_getBlockTransactionsExt__mc-39984096.json"
const REPLAY = "tx-bocs/tonutils-go__transaction_replay_regression__mainnet-2txs-with-shard-accounts.json"

/** Every string in a JSON value that is a CRC32C bag of cells ("te6cck..."), with where it was found. */
const collectBocs = (value: unknown, where: string, out: Array<{ where: string; b64: string }>) => {
  if (typeof value === "string") {
    if (value.startsWith("te6cck")) out.push({ where, b64: value })
  } else if (value !== null && typeof value === "object") {
    for (const [k, v] of Object.entries(value)) collectBocs(v, `${where}.${k}`, out)
  }
  return out
}

/** BOCs as toncenter's servers (tonlib and the indexer, i.e. the node's serializer) returned them. */
const toncenterBocs = (): Array<{ where: string; b64: string }> => {
  const out: Array<{ where: string; b64: string }> = []
  for (const f of listReal("v2").filter((f) => f.endsWith(".json"))) collectBocs(readRealJson(`v2/${f}`), f, out)
  for (const f of listReal("v3").filter((f) => f.endsWith(".json") && !f.includes("rebuilt"))) {
    collectBocs(readRealJson(`v3/${f}`), f, out)
  }
  for (const f of listReal("v2/aiotx-vcr-cassettes__testnet-toncenter-v2")) {
    for (const body of yamlResponseBodies(readReal(`v2/aiotx-vcr-cassettes__testnet-toncenter-v2/${f}`))) {
      if (body.startsWith("{")) collectBocs(JSON.parse(body), f, out)
    }
  }
  for (const part of [1, 2]) {
    const file = `indexer-traces/ton-indexer-tests-traces__decoded__part${part}.json`
    collectBocs(readRealJson(file), file, out)
  }
  return out
}

describe("serializeBoc reproduces the node's BagOfCells", () => {
  const vectors = toncenterBocs()

  it("collects a meaningful set of real toncenter BOCs", () => {
    expect(vectors.length).toBeGreaterThan(2500)
  })

  it("re-serializes every real toncenter BOC byte for byte (including trees with heavy 'special' subtrees)", () => {
    const mismatches = vectors.filter((v) => serializeBocBase64(ok(parseBoc(v.b64))) !== v.b64).map((v) => v.where)
    expect(mismatches).toEqual([])
  })

  it("matches node BOCs written without CRC (config and library trees of thousands of cells)", () => {
    const j = readRealJson(REPLAY)
    const { config } = j
    const node = [config.config_root_boc_base64, config.libraries_boc_base64[0], config.prev_blocks_stack_boc_base64]
    for (const b64 of node as Array<string>) {
      const original = Buffer.from(b64, "base64")
      const mine = serializeBoc(ok(parseBoc(b64)))
      // Same serializer without the CRC flag: drop our CRC bit and trailing checksum to compare the cell layout.
      const flags = Buffer.from([mine[4]! & 0x07])
      const withoutCrc = Buffer.concat([mine.subarray(0, 4), flags, mine.subarray(5, mine.length - 4)])
      expect(withoutCrc.equals(original)).toBe(true)
    }
  })

  it("differs from @ton/core's own toBoc on multi-cell trees (the reason this serializer exists)", () => {
    const b64 = readRealJson(BLOCKPI).result.transactions[1].data
    const cell = ok(parseBoc(b64))
    expect(cell.toBoc({ idx: false, crc32: true }).toString("base64")).not.toBe(b64)
    expect(serializeBocBase64(cell)).toBe(b64)
  })

  it("writes the smallest BOC of the empty cell exactly as toncenter does", () => {
    expect(serializeBocBase64(new Cell())).toBe("te6cckEBAQEAAgAAAEysuc0=")
  })

  it("stores equal cells once even when they are distinct objects", () => {
    const leaf = () => beginCell().storeUint(0xabc, 12).endCell()
    const root = beginCell()
      .storeRef(leaf())
      .storeRef(leaf())
      .storeRef(beginCell().storeRef(leaf()).endCell())
      .endCell()
    const boc = serializeBoc(root)
    expect(boc[6]).toBe(3) // cells: the root, the inner cell and one leaf
    expect(ok(parseBoc(boc.toString("base64"))).hash()).toEqual(root.hash())
  })

  it("computes CRC32C (Castagnoli)", () => {
    expect(crc32c(Buffer.from("123456789"))).toBe(0xe3069283)
  })
})

describe("parseBoc classifies bad input", () => {
  const good = readRealJson(BLOCKPI).result.transactions[0].data as string

  it("rejects non-base64 with the offending character position", () => {
    const e = err(parseBoc("te6cck!!notbase64"))
    expect(e._tag).toBe("DecodeError")
    expect(e.reason).toBe("not_base64")
    expect(e.position).toBe("char 6")
  })

  it("rejects an empty string", () => {
    expect(err(parseBoc("")).reason).toBe("not_base64")
  })

  it("reports a truncated BOC with the byte where it stops", () => {
    const bytes = Buffer.from(good, "base64")
    const cut = bytes.subarray(0, 100).toString("base64")
    const e = err(parseBoc(cut))
    expect(e.reason).toBe("truncated")
    expect(e.position).toBe("byte 100")
  })

  it("reports bad magic and a corrupted checksum as bad_boc", () => {
    expect(err(parseBoc(Buffer.from("not a boc at all").toString("base64"))).reason).toBe("bad_boc")
    const bytes = Buffer.from(good, "base64")
    bytes[40] = bytes[40]! ^ 0xff
    const e = err(parseBoc(bytes.toString("base64")))
    expect(e.reason).toBe("bad_boc")
    expect(e.message).toContain("CRC32C")
  })
})
