import { describe, expect, it } from "vitest"
import { request } from "node:http"
import { appFor, bigBlockWorld } from "./world.js"

const get = (port: number, path: string) =>
  new Promise<{ status: number; body: string }>((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port, path, agent: false }, (res) => {
      let body = ""
      res.on("data", (d) => (body += d))
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body }))
    })
    req.on("error", reject)
    req.end()
  })

describe("graceful shutdown", () => {
  it("lets an in-flight request finish, then refuses new connections", async () => {
    const { store, shardBlock } = bigBlockWorld()
    let release!: () => void
    const gate = new Promise<void>((r) => (release = r))
    let started!: () => void
    const inFlight = new Promise<void>((r) => (started = r))
    const slow = store.blockTransactions.bind(store)
    store.blockTransactions = async (...args) => {
      started()
      await gate
      return slow(...args)
    }
    const app = appFor(store)
    await app.listen({ host: "127.0.0.1", port: 0 })
    const { port } = app.server.address() as { port: number }
    const url = `/api/v2/getBlockTransactionsExt?workchain=0&shard=${shardBlock.id.shard}&seqno=${shardBlock.id.seqno}`
    const pending = get(port, url)
    await inFlight
    const closing = app.close()
    release()
    const res = await pending
    expect(res.status).toBe(200)
    expect(JSON.parse(res.body).result.transactions).toHaveLength(40)
    await closing
    await expect(get(port, url)).rejects.toThrow(/ECONNREFUSED/)
  })
})
