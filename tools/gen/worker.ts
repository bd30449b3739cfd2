/**
 * Worker-thread entry of the chain generator: runs emulated worlds and replica lanes off the main thread, so the two
 * cores work in parallel. Invariant: it holds no state besides the lane it was given; every answer carries the id of
 * the request it answers.
 */
import { parentPort } from "node:worker_threads"
import { installFastCellHash } from "../../src/ton/fastHash.js"
import { serializeBoc } from "../../src/ton/boc.js"
import { Lane } from "./replica.js"
import type { LaneInit } from "./replica.js"
import { runWorld } from "./world.js"
import type { WorldOptions } from "./world.js"

export type WorkerRequest =
  | { readonly id: number; readonly op: "world"; readonly opts: WorldOptions }
  | { readonly id: number; readonly op: "lane"; readonly init: LaneInit }
  | { readonly id: number; readonly op: "replica"; readonly k: number; readonly limit: number }

installFastCellHash()
let lane: Lane | null = null

const handle = async (req: WorkerRequest): Promise<unknown> => {
  switch (req.op) {
    case "world": {
      const r = await runWorld(req.opts)
      return {
        txs: r.txs.map((t) => [t.workchain, serializeBoc(t.cell).toString("base64")]),
        hubs: r.hubs,
        actions: r.actions,
        rejected: r.rejected
      }
    }
    case "lane":
      lane = new Lane(req.init)
      return null
    case "replica":
      if (lane === null) throw new Error("replica requested before lane init")
      return lane.replica(req.k, req.limit)
  }
}

parentPort?.on("message", (req: WorkerRequest) => {
  handle(req).then(
    (result) => parentPort!.postMessage({ id: req.id, result }),
    (e: unknown) => parentPort!.postMessage({ id: req.id, error: e instanceof Error ? e.stack ?? e.message : String(e) })
  )
})
