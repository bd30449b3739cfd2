import { createServer, request, type ServerResponse } from "node:http"
import { describe, expect, it } from "vitest"
import { countRequests } from "../../../src/api/requestsInFlight.js"

const get = (port: number): Promise<void> =>
  new Promise((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port, path: "/", agent: false }, (res) => {
      res.resume()
      res.on("end", () => resolve())
    })
    req.on("error", reject)
    req.end()
  })

const until = async (cond: () => boolean): Promise<void> => {
  for (let i = 0; i < 500 && !cond(); i++) await new Promise((r) => setTimeout(r, 5))
  expect(cond()).toBe(true)
}

describe("countRequests", () => {
  it("counts requests from before the server's own handler sees them until their responses close", async () => {
    const held: Array<ServerResponse> = []
    const seen: Array<number> = []
    const server = createServer((_req, res) => {
      // the handler added first already sees its own request counted
      seen.push(inFlight())
      held.push(res)
    })
    const inFlight = countRequests(server)
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()))
    const { port } = server.address() as { port: number }
    expect(inFlight()).toBe(0)
    const one = get(port)
    await until(() => held.length === 1)
    expect(inFlight()).toBe(1)
    const two = get(port)
    await until(() => held.length === 2)
    expect(inFlight()).toBe(2)
    expect(seen).toEqual([1, 2])
    held[0]!.end("a")
    await one
    await until(() => inFlight() === 1)
    held[1]!.end("b")
    await two
    await until(() => inFlight() === 0)
    server.close()
  })

  it("uncounts a request whose client went away before its answer", async () => {
    const held: Array<ServerResponse> = []
    const server = createServer((_req, res) => void held.push(res))
    const inFlight = countRequests(server)
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()))
    const { port } = server.address() as { port: number }
    const req = request({ host: "127.0.0.1", port, path: "/", agent: false })
    req.on("error", () => {})
    req.end()
    await until(() => held.length === 1)
    expect(inFlight()).toBe(1)
    req.destroy()
    await until(() => inFlight() === 0)
    // answering it afterwards uncounts nothing twice
    held[0]!.end("late")
    await new Promise((r) => setTimeout(r, 20))
    expect(inFlight()).toBe(0)
    server.close()
  })
})
