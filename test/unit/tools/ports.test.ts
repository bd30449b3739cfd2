// Free port pairs for benchmarks and stand-ins: from PORT_RANGE (LOW-HIGH) only when it is set, with both ports free.
import { createServer, type Server } from "node:net"
import { afterEach, describe, expect, it } from "vitest"
import { freePortPair } from "../../../tools/ports.js"

const saved = process.env.PORT_RANGE
const held: Array<Server> = []
afterEach(async () => {
  if (saved === undefined) delete process.env.PORT_RANGE
  else process.env.PORT_RANGE = saved
  await Promise.all(held.splice(0).map((s) => new Promise((r) => s.close(r))))
})
const hold = (port: number) =>
  new Promise<void>((resolve, reject) => {
    const s = createServer()
    s.once("error", reject)
    s.listen({ port, host: "127.0.0.1", exclusive: true }, () => {
      held.push(s)
      resolve()
    })
  })

describe("freePortPair", () => {
  it("takes a pair inside PORT_RANGE, skipping ports in use", async () => {
    process.env.PORT_RANGE = "41290-41299"
    await hold(41292)
    for (let k = 0; k < 10; k++) {
      const p = await freePortPair()
      expect(p).toBeGreaterThanOrEqual(41290)
      expect(p).toBeLessThan(41299)
      expect([41291, 41292]).not.toContain(p)
    }
  })

  it("says so when the range holds no free pair", async () => {
    process.env.PORT_RANGE = "41296-41298"
    await hold(41297)
    await expect(freePortPair()).rejects.toThrow("PORT_RANGE 41296-41298")
  })
})
