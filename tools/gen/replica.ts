/**
 * One lane of replica derivation, runnable in a worker thread or in-process: holds the base set and a Deriver, and
 * turns replica numbers into ready-to-serve transactions (node-order BOC, hash, "wc:HEX" account).
 * Invariant: a lane only ever derives replicas k with k % lanes === lane, in increasing k.
 */
import { Cell } from "@ton/core"
import { serializeBoc } from "../../src/ton/boc.js"
import { Deriver, readAfter } from "./derive.js"
import type { BaseTx } from "./derive.js"
import type { GenTx } from "./types.js"

export interface LaneInit {
  readonly seed: string
  readonly lane: number
  readonly lanes: number
  /** Base set as [workchain, BOC base64] in lt order. */
  readonly base: ReadonlyArray<readonly [number, string]>
  readonly hubs: ReadonlyArray<string>
  readonly ltSpan: string
  readonly timeSpan: number
}

export class Lane {
  private readonly base: ReadonlyArray<BaseTx>
  private readonly deriver: Deriver

  constructor(init: LaneInit) {
    this.base = init.base.map(([workchain, boc]) => ({ workchain, cell: Cell.fromBase64(boc) }))
    this.deriver = new Deriver({
      seed: init.seed,
      hubs: new Set(init.hubs),
      ltSpan: BigInt(init.ltSpan),
      timeSpan: init.timeSpan,
      lanes: init.lanes
    })
  }

  /** The first `limit` transactions of replica k (all of them by default). */
  replica(k: number, limit = Infinity): Array<GenTx> {
    const out: Array<GenTx> = []
    const n = Math.min(limit, this.base.length)
    for (let i = 0; i < n; i++) {
      const b = this.base[i]!
      const d = this.deriver.derive(b, k)
      out.push({
        account: `${b.workchain}:${d.account.toString(16).padStart(64, "0").toUpperCase()}`,
        workchain: b.workchain,
        lt: d.lt.toString(),
        hash: d.cell.hash().toString("base64"),
        boc: serializeBoc(d.cell).toString("base64"),
        now: d.now,
        origin: "generated",
        after: readAfter(d.cell)
      })
    }
    return out
  }
}
