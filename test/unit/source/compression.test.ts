import { Effect } from "effect"
import http from "node:http"
import type { AddressInfo } from "node:net"
import zlib from "node:zlib"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { makeToncenterHttp } from "../../../src/source/ToncenterHttp.js"

const block = { workchain: -1, shard: "-9223372036854775808", seqno: 4242, root_hash: "r", file_hash: "f" }
const body = JSON.stringify({ ok: true, result: { last: block } })
const compressors: Record<string, (b: Buffer) => Buffer> = {
  gzip: (b) => zlib.gzipSync(b),
  deflate: (b) => zlib.deflateSync(b),
  br: (b) => zlib.brotliCompressSync(b),
  identity: (b) => b
}

describe("toncenter response encodings", () => {
  let server: http.Server
  let url = ""
  const asked: Array<string | undefined> = []
  beforeAll(async () => {
    // /<encoding>/api/v2/getMasterchainInfo answers with the body compressed that way.
    server = http.createServer((req, res) => {
      asked.push(req.headers["accept-encoding"])
      const encoding = req.url!.split("/")[1]!
      const data = compressors[encoding]!(Buffer.from(body))
      res.writeHead(200, {
        "content-type": "application/json",
        ...(encoding === "identity" ? {} : { "content-encoding": encoding }),
        "content-length": data.length
      })
      res.end(data)
    })
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r))
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  })
  afterAll(() => new Promise<void>((r) => server.close(() => r())))

  it.each(Object.keys(compressors))("reads a %s body", async (encoding) => {
    const api = await Effect.runPromise(makeToncenterHttp({ url: `${url}/${encoding}`, rps: 0, retries: 0 }))
    const info = await Effect.runPromise(api.masterchainInfo)
    expect(info.last.seqno).toBe(4242)
    expect(asked.at(-1)).toContain("gzip")
  })

  it("classifies a body that does not inflate as a network failure", async () => {
    const bad = http.createServer((_req, res) => {
      res.writeHead(200, { "content-encoding": "gzip", "content-length": 10 })
      res.end(Buffer.from("not gzip!!"))
    })
    await new Promise<void>((r) => bad.listen(0, "127.0.0.1", r))
    try {
      const api = await Effect.runPromise(
        makeToncenterHttp({ url: `http://127.0.0.1:${(bad.address() as AddressInfo).port}`, rps: 0, retries: 0 })
      )
      const failure = await Effect.runPromise(Effect.flip(api.masterchainInfo))
      expect(failure.reason).toBe("network")
    } finally {
      await new Promise<void>((r) => bad.close(() => r()))
    }
  })
})
