import { Effect, Exit, Layer } from "effect"
import { createServer } from "node:net"
import { describe, expect, it } from "vitest"
import { Health } from "../../../src/ops/Health.js"
import { Metrics } from "../../../src/ops/Metrics.js"
import { OpsServerLive } from "../../../src/ops/OpsServer.js"

describe("OpsServerLive", () => {
  it("stops the start-up with an error naming METRICS_PORT when the port is taken", async () => {
    const blocker = createServer()
    await new Promise<void>((r) => blocker.listen(0, "127.0.0.1", () => r()))
    const { port } = blocker.address() as { port: number }
    try {
      const layer = OpsServerLive(port).pipe(Layer.provide(Layer.merge(Metrics.layerTest, Health.layer)))
      const exit = await Effect.runPromiseExit(Effect.scoped(Layer.build(layer)))
      expect(Exit.isFailure(exit)).toBe(true)
      const error = Exit.isFailure(exit) ? exit.cause.toJSON() : undefined
      expect(JSON.stringify(error)).toContain(`METRICS_PORT=${port}`)
      expect(JSON.stringify(error)).toContain("OpsServerError")
      expect(JSON.stringify(error)).toContain("taken by another process")
    } finally {
      blocker.close()
    }
  })

})
