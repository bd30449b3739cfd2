// The runnables' producer run (pipelines/live.ts `producerRun`) carries every PRODUCER_* setting the producer takes
// (PRODUCER_INFLIGHT_BYTES among them),
// whichever way the mode is chosen: before, PRODUCER_LEARN_BLOCKS was read and validated but never reached the
// producer, so a range backfill of several producers started its traces cold.
import { ConfigProvider, Effect, Layer } from "effect"
import { describe, expect, it } from "vitest"
import { producerRun, UpstreamChoice } from "../../../pipelines/live.js"

const runWith = (env: Record<string, string>, range: { first: number; last: number } | undefined) =>
  Effect.runPromise(
    producerRun.pipe(
      Effect.provide(Layer.succeed(UpstreamChoice, { description: "test", range })),
      Effect.withConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(env))))
    )
  )

describe("the runnables' producer run", () => {
  it("passes PRODUCER_LEARN_BLOCKS and the decode settings through, with an explicit mode and on the offline fake", async () => {
    const env = {
      PRODUCER_LEARN_BLOCKS: "256",
      PRODUCER_DECODE_WORKERS: "3",
      PRODUCER_INFLIGHT_BYTES: "1048576",
      PRODUCER_FROM: "1000",
      PRODUCER_TO: "2000"
    }
    const expected = { mode: "backfill", from: 1000, to: 2000, learnBlocks: 256, decodeWorkers: 3, inflightBytes: 1048576 }
    const explicit = await runWith({ ...env, PRODUCER_MODE: "backfill" }, undefined)
    expect(explicit).toMatchObject(expected)
    const offline = await runWith(env, { first: 10, last: 20 })
    expect(offline).toMatchObject(expected)
  })

  it("defaults to no learning blocks and 64 MiB of fetched bundles held", async () => {
    expect(await runWith({}, { first: 10, last: 20 })).toMatchObject({
      mode: "backfill",
      from: 10,
      to: 20,
      learnBlocks: 0,
      inflightBytes: 64 * 1024 * 1024
    })
  })
})
