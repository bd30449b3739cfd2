// The toncenter adapter's per-request deadline (one timer in the request, no timeout fiber): a response whose body
// stalls after its headers, or that never starts, fails as `timeout` within about `timeoutMs` and is asked again; a
// request that completes in time leaves no timer behind (the process could exit at once).
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { Effect, Either } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { makeToncenterHttp } from "../../../src/source/ToncenterHttp.js"

const INFO = JSON.stringify({
  ok: true,
  result: {
    last: { workchain: -1, shard: "-9223372036854775808", seqno: 7, root_hash: "r", file_hash: "f" }
  }
})

describe("toncenter request deadline", { timeout: 60_000 }, () => {
  let server: Server
  let url: string
  let mode: "stall-body" | "no-answer" | "ok" = "ok"
  let asked = 0
  beforeAll(async () => {
    server = createServer((req, res) => {
      asked++
      if (mode === "no-answer") return
      res.writeHead(200, { "content-type": "application/json" })
      if (mode === "stall-body") return void res.write(INFO.slice(0, 10))
      res.end(INFO)
    })
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r))
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  })
  afterAll(() => {
    server.closeAllConnections()
    server.close()
  })

  for (const m of ["stall-body", "no-answer"] as const) {
    it(`fails a request as timeout when ${m === "stall-body" ? "its body stalls" : "no answer starts"}, after retries`, async () => {
      mode = m
      asked = 0
      const http = await Effect.runPromise(
        makeToncenterHttp({ url, rps: 0, timeoutMs: 150, retries: 2, retryBaseMs: 1, retryMaxMs: 5 })
      )
      const started = performance.now()
      const got = await Effect.runPromise(Effect.either(http.masterchainInfo))
      const ms = performance.now() - started
      expect(Either.isLeft(got)).toBe(true)
      if (Either.isLeft(got)) {
        expect(got.left.reason).toBe("timeout")
        expect(got.left.message).toBe("no complete response within 150 ms")
      }
      expect(asked).toBe(3)
      expect(ms).toBeGreaterThanOrEqual(3 * 150 - 10)
    })
  }

  it("answers in time and leaves no timer pending", async () => {
    mode = "ok"
    const http = await Effect.runPromise(makeToncenterHttp({ url, rps: 0, timeoutMs: 60_000 }))
    const before = process.getActiveResourcesInfo().filter((r) => r === "Timeout").length
    const got = await Effect.runPromise(http.masterchainInfo)
    expect(got.last.seqno).toBe(7)
    const after = process.getActiveResourcesInfo().filter((r) => r === "Timeout").length
    expect(after).toBeLessThanOrEqual(before)
  })
})
