// The toncenter adapter's in-flight bound under interruption: a request interrupted while it waits for a permit
// leaves the queue, so the permit goes to the next request instead of to nobody, and the bound still holds.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import { Effect, Fiber } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { makeToncenterHttp } from "../../../src/source/ToncenterHttp.js"

const INFO = JSON.stringify({
  ok: true,
  result: {
    last: { workchain: -1, shard: "-9223372036854775808", seqno: 9, root_hash: "r", file_hash: "f" }
  }
})

describe("toncenter in-flight bound under interruption", { timeout: 60_000 }, () => {
  let server: Server
  let url: string
  let inFlight = 0
  let maxInFlight = 0
  let asked = 0
  const held: Array<ServerResponse> = []
  let hold = true
  beforeAll(async () => {
    server = createServer((_req: IncomingMessage, res: ServerResponse) => {
      asked++
      inFlight++
      maxInFlight = Math.max(maxInFlight, inFlight)
      res.once("finish", () => inFlight--)
      if (hold) held.push(res)
      else res.end(INFO)
    })
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r))
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  })
  afterAll(() => {
    server.closeAllConnections()
    server.close()
  })

  const until = async (check: () => boolean) => {
    while (!check()) await new Promise((r) => setTimeout(r, 5))
  }

  it("an interrupted waiter gives its place up; the next request gets the permit", async () => {
    const http = await Effect.runPromise(makeToncenterHttp({ url, rps: 0, concurrency: 1, retries: 0 }))
    const first = Effect.runFork(http.masterchainInfo)
    await until(() => held.length === 1)
    const waiting = Effect.runFork(http.masterchainInfo)
    await new Promise((r) => setTimeout(r, 50))
    expect(asked).toBe(1)
    await Effect.runPromise(Fiber.interrupt(waiting))
    hold = false
    held.shift()!.writeHead(200, { "content-type": "application/json" }).end(INFO)
    expect((await Effect.runPromise(Fiber.join(first))).last.seqno).toBe(9)
    // with the interrupted waiter still queued, the freed permit would go to it and this request would never start
    const next = await Effect.runPromise(Effect.timeout(http.masterchainInfo, "5 seconds"))
    expect(next.last.seqno).toBe(9)
    expect(asked).toBe(2)
    expect(maxInFlight).toBe(1)
  })
})
