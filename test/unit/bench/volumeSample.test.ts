import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { keepAliveGetter, v2BlocksOf, volumeEndpoints, type ShardBlockRow } from "../../../bench/lib/volumeSample.js"

const row = (workchain: number, seqno: number, tx_count: number): ShardBlockRow => ({
  workchain,
  shard: workchain === -1 ? "8000000000000000" : `${seqno % 2 === 0 ? "4" : "c"}000000000000000`,
  seqno,
  tx_count
})

describe("v2BlocksOf", () => {
  // a masterchain block's shard blocks: its own, two basechain blocks without transactions, four with
  const blocks = [row(-1, 100, 3), row(0, 10, 0), row(0, 11, 5), row(0, 12, 1), row(0, 13, 0), row(0, 14, 7), row(0, 15, 2)]
  const withTxs = [11, 12, 14, 15]

  it("picks the basechain block at index seqno modulo their count when one is asked", () => {
    for (const seqno of [0, 1, 2, 3, 4, 9_999, 50_000_001]) {
      expect(v2BlocksOf(seqno, blocks, 1).map((b) => b.seqno)).toEqual([withTxs[seqno % 4]])
    }
  })

  it("takes distinct basechain blocks with transactions, in order from that index", () => {
    expect(v2BlocksOf(2, blocks, 3).map((b) => b.seqno)).toEqual([14, 15, 11])
    expect(v2BlocksOf(7, blocks, 2).map((b) => b.seqno)).toEqual([15, 11])
  })

  it("gives each such block once when more are asked than there are, and none when there are none", () => {
    expect(v2BlocksOf(1, blocks, 10).map((b) => b.seqno).sort()).toEqual(withTxs)
    expect(v2BlocksOf(1, [row(-1, 5, 1), row(0, 6, 0)], 3)).toEqual([])
  })
})

describe("volumeEndpoints", () => {
  it("is v2 and v3 when unset or empty, and the names given, in their order, otherwise", () => {
    expect(volumeEndpoints(undefined)).toEqual(["v2", "v3"])
    expect(volumeEndpoints("")).toEqual(["v2", "v3"])
    expect(volumeEndpoints("v3")).toEqual(["v3"])
    expect(volumeEndpoints("blocks, shards,v2")).toEqual(["blocks", "shards", "v2"])
  })

  it("refuses a name it does not know", () => {
    expect(() => volumeEndpoints("v3,block")).toThrow(/block is none of v2, v3, blocks, shards/)
  })
})

describe("keepAliveGetter", () => {
  let base = ""
  let connections = 0
  const server = createServer((req, res) => res.end(`answer to ${req.url}`))
  server.on("connection", () => connections++)
  beforeAll(async () => {
    await new Promise<void>((ok) => server.listen(0, "127.0.0.1", ok))
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  })
  afterAll(async () => {
    server.closeAllConnections()
    await new Promise<void>((ok) => server.close(() => ok()))
  })

  it("answers sequential requests with their whole bodies over one socket kept open", async () => {
    const client = keepAliveGetter(base)
    const bodies: Array<string> = []
    for (let i = 0; i < 5; i++) {
      const r = await client.get(`/page?seqno=${i}`)
      expect(r.status).toBe(200)
      bodies.push(r.body.toString())
    }
    client.close()
    expect(bodies).toEqual([0, 1, 2, 3, 4].map((i) => `answer to /page?seqno=${i}`))
    expect(client.sockets()).toBe(1)
    expect(connections).toBe(1)
  })
})
