import { createHash } from "node:crypto"
import { Cell } from "@ton/core"
import { LiteClient, LiteSingleEngine } from "ton-lite-client"
import { Functions } from "ton-lite-client/dist/schema.js"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { blockKey } from "../../../../src/source/shard.js"
import { fixturesChain } from "../../../../tools/fake/server.js"
import { type FakeLiteserver, startFakeLiteserver } from "../../../../tools/fake/liteserver/server.js"
import { withBlockFiles } from "../../../../tools/fake/liteserver/blocks.js"
import { randomServerKey } from "../../../../tools/fake/liteserver/adnl.js"

// The independent client library (its own ADNL and TL code) talking to the local liteserver is the check that the
// fake speaks the real protocol: handshake, packet framing, query wrapping and the lite API's answers.
describe("local liteserver through ton-lite-client", { timeout: 60_000 }, () => {
  let ls: FakeLiteserver
  let engine: LiteSingleEngine
  let client: LiteClient
  const lite = withBlockFiles(fixturesChain())

  beforeAll(async () => {
    ls = await startFakeLiteserver({ chain: lite, reveal: { initial: 5 } })
    engine = new LiteSingleEngine({
      host: `tcp://${ls.host}:${ls.port}`,
      publicKey: Buffer.from(ls.publicKey, "base64"),
      reconnectTimeout: 200
    })
    client = new LiteClient({ engine })
    // the engine refuses queries until its first connection is up
    await new Promise<void>((r) => engine.once("ready", () => r()))
  }, 120_000)
  afterAll(async () => {
    engine?.close()
    await ls?.stop()
  })

  const idOf = (seqno: number) => lite.chain.masterchain.get(seqno)!.block.record.id
  const tlId = (id: { workchain: number; shard: string; seqno: number; root_hash: string; file_hash: string }) => ({
    kind: "tonNode.blockIdExt" as const,
    workchain: id.workchain,
    shard: id.shard,
    seqno: id.seqno,
    rootHash: Buffer.from(id.root_hash, "base64"),
    fileHash: Buffer.from(id.file_hash, "base64")
  })

  it("answers getMasterchainInfo with the revealed head's id", async () => {
    const info = await client.getMasterchainInfo()
    const want = idOf(lite.chain.first + 4)
    expect(info.last.seqno).toBe(want.seqno)
    expect(info.last.shard).toBe(want.shard)
    expect(info.last.rootHash.toString("base64")).toBe(want.root_hash)
    expect(info.last.fileHash.toString("base64")).toBe(want.file_hash)
    expect(await client.getCurrentTime()).toBeGreaterThan(1_600_000_000)
  })

  it("serves whole blocks whose root and file hashes are the ids asked for", async () => {
    const mc = lite.chain.masterchain.get(lite.chain.first + 1)!
    for (const b of [mc.block, ...mc.shardBlocks]) {
      const r = await engine.query(Functions.liteServer_getBlock, {
        kind: "liteServer.getBlock",
        id: tlId(b.record.id)
      })
      expect(r.id.seqno).toBe(b.record.id.seqno)
      expect(Cell.fromBoc(r.data)[0]!.hash().toString("base64")).toBe(b.record.id.root_hash)
      expect(createHash("sha256").update(r.data).digest("base64")).toBe(b.record.id.file_hash)
      expect(r.data.equals(lite.files.get(blockKey(b.record.id))!)).toBe(true)
    }
  })

  it("looks blocks up by seqno and proves their headers with a Merkle proof of the block", async () => {
    const want = idOf(lite.chain.first + 2)
    const r = await client.lookupBlockByID({
      workchain: -1,
      shard: want.shard,
      seqno: want.seqno
    })
    expect(r.id.rootHash.toString("base64")).toBe(want.root_hash)
    const proof = Cell.fromBoc(r.headerProof)[0]!
    expect(proof.isExotic).toBe(true)
    // a Merkle proof cell carries the hash of the block it proves
    expect(proof.bits.subbuffer(8, 256)!.toString("base64")).toBe(want.root_hash)
    const h = await client.getBlockHeader(r.id)
    expect(h.id.fileHash.toString("base64")).toBe(want.file_hash)
  })

  it("answers liteServer.error for blocks past the head, which the client raises", async () => {
    const hidden = lite.chain.masterchain.get(lite.chain.first + 8)!.block.record.id
    await expect(
      engine.query(Functions.liteServer_getBlock, {
        kind: "liteServer.getBlock",
        id: tlId(hidden)
      })
    ).rejects.toThrow(/not in db/)
    ls.advance(4)
    const r = await engine.query(Functions.liteServer_getBlock, {
      kind: "liteServer.getBlock",
      id: tlId(hidden)
    })
    expect(r.id.seqno).toBe(hidden.seqno)
  })

  it("refuses a handshake for another server key", async () => {
    const wrong = randomServerKey().publicKey
    const other = new LiteSingleEngine({
      host: `tcp://${ls.host}:${ls.port}`,
      publicKey: wrong,
      reconnectTimeout: 60_000
    })
    const events: Array<string> = []
    other.on("ready", () => events.push("ready"))
    await new Promise<void>((r) => other.once("close", () => r()))
    other.close()
    expect(events).toEqual([])
    // the server keeps serving the clients that know its key
    expect((await client.getMasterchainInfo()).last.seqno).toBe(ls.head())
  })
})
