import { createServer } from "node:http"
import { connect, type Socket } from "node:net"
import { describe, expect, it } from "vitest"
import { closeWithDeadline, describeClosed, trackConnections } from "../../../src/ops/httpShutdown.js"
import { MemoryTxStore } from "../../../tools/fake/memoryStore.js"
import { appFor } from "../api/world.js"

/** A client that sends the request line and one header, then nothing: the request never completes. */
const halfOpen = (port: number): Promise<Socket> =>
  new Promise((resolve, reject) => {
    const s = connect(port, "127.0.0.1", () => {
      s.write("GET /api/v3/masterchainBlockShards?seqno=1004 HTTP/1.1\r\nHost: x\r\n", () => resolve(s))
    })
    s.on("error", reject)
  })

const closed = (s: Socket): Promise<void> => new Promise((r) => (s.destroyed ? r() : s.once("close", () => r())))

describe("closeWithDeadline", () => {
  it("cuts a client that sent half a request at the deadline (Fastify app)", async () => {
    const app = appFor(new MemoryTxStore())
    trackConnections(app.server)
    await app.listen({ host: "127.0.0.1", port: 0 })
    const { port } = app.server.address() as { port: number }
    const client = await halfOpen(port)
    // Without the deadline app.close() waits for this request until Node's headers timeout (a minute).
    const result = await closeWithDeadline(app.server, 300, () => app.close())
    await closed(client)
    expect(result.open).toBe(1)
    expect(result.cut).toBe(1)
    expect(result.ms).toBeGreaterThanOrEqual(300)
    expect(result.ms).toBeLessThan(10_000)
    expect(app.server.listening).toBe(false)
    expect(describeClosed("api", result, 300)).toMatch(/^api: stopped in \d+\.\d s \(1 of 1 connection cut after the 0.3 s drain deadline\)$/)
  }, 20_000)

  it("lets a request in flight finish within the deadline and cuts nothing", async () => {
    let finish!: () => void
    const server = createServer((_req, res) => {
      finish = () => res.end("done")
    })
    trackConnections(server)
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()))
    const { port } = server.address() as { port: number }
    const client = connect(port, "127.0.0.1")
    let answer = ""
    client.on("data", (d) => (answer += d.toString()))
    client.write("GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
    while (finish === undefined) await new Promise((r) => setTimeout(r, 10))
    const closing = closeWithDeadline(server, 5_000)
    setTimeout(() => finish(), 50)
    const result = await closing
    await closed(client)
    expect(answer).toMatch(/^HTTP\/1.1 200 OK[\s\S]*done$/)
    expect(result).toMatchObject({ open: 1, cut: 0 })
  }, 20_000)

  it("closes an idle keep-alive connection at once", async () => {
    const server = createServer((_req, res) => res.end("ok"))
    trackConnections(server)
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()))
    const { port } = server.address() as { port: number }
    const client = connect(port, "127.0.0.1")
    await new Promise<void>((r) => {
      client.once("data", () => r())
      client.write("GET / HTTP/1.1\r\nHost: x\r\n\r\n")
    })
    const result = await closeWithDeadline(server, 5_000)
    await closed(client)
    expect(result).toMatchObject({ open: 1, cut: 0 })
  }, 20_000)
})
